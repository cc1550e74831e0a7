#include "sim/app/mpi_distribution.hpp"

#include "sim/config/config_error.hpp"

#ifdef EDGETWIN_WITH_MPI

#include <mpi.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace edgetwin {
namespace {

void append_u64(std::string& out, std::uint64_t value) { out.append(reinterpret_cast<const char*>(&value), sizeof value); }

std::uint64_t take_u64(const std::string& in, std::size_t& at) {
  if (in.size() - at < sizeof(std::uint64_t)) throw std::runtime_error("MPI gather: a rank's chunks are cut short");
  std::uint64_t value = 0;
  std::memcpy(&value, in.data() + at, sizeof value);
  at += sizeof value;
  return value;
}

class OpenMpiDistribution final : public MpiDistribution {
 public:
  OpenMpiDistribution(bool dynamic, bool results_everywhere) : dynamic_(dynamic), everywhere_(results_everywhere) {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) MPI_Init(nullptr, nullptr);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
  }
  ~OpenMpiDistribution() override {
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (!finalised) MPI_Finalize();
  }
  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }

  TaskSource hand_out(std::size_t chunks) override {
    if (!dynamic_) return cyclic_chunks(chunks, static_cast<std::size_t>(rank_), static_cast<std::size_t>(ranks_));
    const MPI_Aint size = rank_ == 0 ? sizeof(std::int64_t) : 0;
    MPI_Win_allocate(size, sizeof(std::int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &counter_, &window_);
    if (rank_ == 0) *counter_ = 0;
    MPI_Barrier(MPI_COMM_WORLD);  // the counter is 0 before anyone takes from it
    MPI_Win_lock_all(0, window_);
    return [this, chunks]() -> std::optional<std::size_t> {
      const std::int64_t one = 1;
      std::int64_t taken = 0;
      MPI_Fetch_and_op(&one, &taken, MPI_INT64_T, 0, 0, MPI_SUM, window_);
      MPI_Win_flush(0, window_);
      if (taken >= static_cast<std::int64_t>(chunks)) return std::nullopt;
      return static_cast<std::size_t>(taken);
    };
  }

  std::vector<std::string> gather(std::size_t chunks, ChunkBytes mine) override {
    if (dynamic_) {
      MPI_Win_unlock_all(window_);
      MPI_Win_free(&window_);
    }
    std::string packed;
    for (const auto& [chunk, bytes] : mine) {
      append_u64(packed, chunk);
      append_u64(packed, bytes.size());
      packed += bytes;
    }
    if (packed.size() > INT_MAX) throw std::runtime_error("MPI gather: one rank's results exceed 2 GiB; use more ranks");
    const int length = static_cast<int>(packed.size());
    std::vector<int> lengths(static_cast<std::size_t>(ranks_)), offsets(lengths.size());
    if (everywhere_) MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD);
    else MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    long long total = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      if (total > INT_MAX) throw std::runtime_error("MPI gather: the results exceed 2 GiB; use shards (--shard)");
      offsets[r] = static_cast<int>(total);
      total += lengths[r];
    }
    const bool receives = everywhere_ || rank_ == 0;
    std::string all(receives ? static_cast<std::size_t>(total) : 0, '\0');
    if (everywhere_)
      MPI_Allgatherv(packed.data(), length, MPI_BYTE, all.data(), lengths.data(), offsets.data(), MPI_BYTE, MPI_COMM_WORLD);
    else
      MPI_Gatherv(packed.data(), length, MPI_BYTE, all.data(), lengths.data(), offsets.data(), MPI_BYTE, 0, MPI_COMM_WORLD);
    if (!receives) return {};
    return unpack(all, chunks);
  }

 private:
  static std::vector<std::string> unpack(const std::string& all, std::size_t chunks) {
    std::vector<std::string> out(chunks);
    std::vector<bool> seen(chunks, false);
    for (std::size_t at = 0; at < all.size();) {
      const std::uint64_t chunk = take_u64(all, at);
      const std::uint64_t size = take_u64(all, at);
      if (chunk >= chunks || seen[chunk] || size > all.size() - at)
        throw std::runtime_error(fmt::format("MPI gather: chunk {} is out of place", chunk));
      seen[chunk] = true;
      out[chunk] = all.substr(at, size);
      at += size;
    }
    for (std::size_t c = 0; c < chunks; ++c)
      if (!seen[c]) throw std::runtime_error(fmt::format("MPI gather: no rank ran chunk {}", c));
    return out;
  }

  bool dynamic_;
  bool everywhere_;
  int rank_ = 0;
  int ranks_ = 1;
  MPI_Win window_ = MPI_WIN_NULL;
  std::int64_t* counter_ = nullptr;
};

}  // namespace

std::unique_ptr<MpiDistribution> make_mpi_distribution(bool dynamic, bool results_everywhere) {
  return std::make_unique<OpenMpiDistribution>(dynamic, results_everywhere);
}

}  // namespace edgetwin

#else

namespace edgetwin {

std::unique_ptr<MpiDistribution> make_mpi_distribution(bool, bool) {
  throw ConfigError({Diagnostic{"", 0, 0, "--mpi",
                                "this edgetwin was built without MPI: install openmpi-bin and libopenmpi-dev "
                                "(scripts/install-deps.sh) and configure again (cmake -DEDGETWIN_MPI=ON)"}});
}

}  // namespace edgetwin

#endif
