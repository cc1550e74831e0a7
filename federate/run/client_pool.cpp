#include "federate/run/client_pool.hpp"

#include <stdexcept>

#include "calibrate/datasets/dataset_error.hpp"
#include "federate/learn/local_training.hpp"
#include "sim/app/child_process.hpp"
#include "sim/config/config_error.hpp"

namespace edgetwin::federate {
namespace {

// The first byte of a piece's bytes says how it ended, so that every process learns it from
// the gathered bytes and throws alike (no rank may leave an MPI collective behind).
enum class Ending : char { done = 'd', bad_input = 'i', failed = 'f' };

std::string ended(Ending how, const std::string& bytes) { return static_cast<char>(how) + bytes; }

std::string run_tagged(const std::function<std::string(std::size_t)>& piece, std::size_t i) {
  try {
    return ended(Ending::done, piece(i));
  } catch (const ConfigError& e) {
    return ended(Ending::bad_input, e.what());
  } catch (const calibrate::DatasetError& e) {
    return ended(Ending::bad_input, e.what());
  } catch (const ModelMismatch& e) {
    return ended(Ending::bad_input, e.what());
  } catch (const std::exception& e) {
    return ended(Ending::failed, e.what());
  }
}

}  // namespace

std::vector<std::string> ClientPool::run(std::size_t pieces, const std::function<std::string(std::size_t)>& piece) {
  ChunkDistribution& where = distribution_ != nullptr ? *distribution_ : local_;
  ChunkBytes mine;
  run_in_children(
      where.hand_out(pieces), jobs_, [&](std::size_t i) { return run_tagged(piece, i); },
      [&](std::size_t i, ChildResult result) {
        mine[i] = result.error ? ended(Ending::failed, "a learning process ended: " + *result.error) : std::move(result.bytes);
      });
  std::vector<std::string> all = where.gather(pieces, std::move(mine));
  for (std::string& bytes : all) {
    const auto how = bytes.empty() ? Ending::failed : static_cast<Ending>(bytes.front());
    if (how == Ending::bad_input) throw ConfigError({Diagnostic{"", 0, 0, "", bytes.substr(1)}});
    if (how != Ending::done) throw std::runtime_error(bytes.empty() ? "a learning piece sent nothing" : bytes.substr(1));
    bytes.erase(0, 1);
  }
  return all;
}

}  // namespace edgetwin::federate
