#include "calibrate/hardware/microbenchmarks.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "calibrate/hardware/hardware_error.hpp"
#include "calibrate/hardware/page_cache_control.hpp"

namespace edgetwin::calibrate {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

class Fd {
 public:
  Fd(const std::filesystem::path& file, int flags) : fd_(::open(file.c_str(), flags | O_CLOEXEC, 0644)) {}
  ~Fd() { reset(); }
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    reset();
    fd_ = std::exchange(other.fd_, -1);
    return *this;
  }
  int get() const { return fd_; }
  bool ok() const { return fd_ >= 0; }

 private:
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int fd_;
};

Fd open_or_throw(const std::filesystem::path& file, int flags) {
  Fd fd(file, flags);
  if (!fd.ok()) throw HardwareError(fmt::format("{}: cannot open: {}", file.string(), std::strerror(errno)));
  return fd;
}

std::uint64_t size_of(int fd) {
  struct stat st {};
  ::fstat(fd, &st);
  return static_cast<std::uint64_t>(st.st_size);
}

// Aligned buffer: O_DIRECT needs the memory, offset and length aligned to the block size.
struct AlignedBuffer {
  explicit AlignedBuffer(std::size_t bytes) {
    if (::posix_memalign(&data, 4096, bytes) != 0) throw HardwareError("out of memory for the read buffer");
    std::memset(data, 0, bytes);
  }
  ~AlignedBuffer() { std::free(data); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  void* data = nullptr;
};

BandwidthResult finish(std::uint64_t bytes, const std::vector<double>& seconds) {
  BandwidthResult r;
  r.bytes = bytes;
  for (const double s : seconds) r.bytes_per_s.push_back(static_cast<double>(bytes) / s);
  r.best_bytes_per_s = *std::max_element(r.bytes_per_s.begin(), r.bytes_per_s.end());
  return r;
}

double read_whole(int fd, void* buffer, std::size_t chunk, const std::filesystem::path& file) {
  const auto t0 = Clock::now();
  for (off_t offset = 0;;) {
    const ssize_t n = ::pread(fd, buffer, chunk, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw HardwareError(fmt::format("{}: read failed at byte {}: {}", file.string(), offset, std::strerror(errno)));
    if (n == 0) break;
    offset += n;
  }
  return seconds_since(t0);
}

}  // namespace

double read_file_whole(const std::filesystem::path& file, std::vector<char>& buffer) {
  const Fd fd = open_or_throw(file, O_RDONLY);
  return read_whole(fd.get(), buffer.data(), buffer.size(), file);
}

BandwidthResult measure_memory_bandwidth(std::uint64_t bytes, int repetitions) {
  if (bytes == 0 || repetitions < 1) throw HardwareError("memory bandwidth: need bytes > 0 and repetitions >= 1");
  std::vector<char> source(bytes, 1);
  std::vector<char> target(bytes, 0);  // touched once here so page faults stay out of the timing
  std::vector<double> seconds;
  for (int i = 0; i < repetitions; ++i) {
    source[static_cast<std::size_t>(i) % bytes] = static_cast<char>(i);  // keep the copy from being elided
    const auto t0 = Clock::now();
    std::memcpy(target.data(), source.data(), bytes);
    seconds.push_back(seconds_since(t0));
  }
  volatile char sink = target[bytes / 2];
  (void)sink;
  return finish(bytes, seconds);
}

BandwidthResult measure_sequential_read(const std::filesystem::path& file, int repetitions) {
  if (repetitions < 1) throw HardwareError("sequential read: repetitions must be >= 1");
  Fd fd = open_or_throw(file, O_RDONLY);
  const std::uint64_t bytes = size_of(fd.get());
  if (bytes == 0) throw HardwareError(fmt::format("{}: empty file, nothing to time", file.string()));
  ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  AlignedBuffer buffer(1 << 20);  // 1 MiB requests, the size a streaming reader issues
  std::vector<double> seconds;
  for (int i = 0; i < repetitions; ++i) {
    evict_file(file);  // every repetition reads from the device, not the page cache
    seconds.push_back(read_whole(fd.get(), buffer.data, 1 << 20, file));
  }
  return finish(bytes, seconds);
}

RandomReadResult measure_random_reads(const std::filesystem::path& file, int reads, std::uint64_t seed) {
  RandomReadResult r;
  AlignedBuffer buffer(r.block_bytes);
  // O_DIRECT bypasses the page cache; some file systems refuse it at open, others at the
  // first read, so probe one block before trusting it.
  Fd fd(file, O_RDONLY | O_DIRECT);
  r.direct_io = fd.ok() && ::pread(fd.get(), buffer.data, r.block_bytes, 0) >= 0;
  if (!r.direct_io) fd = open_or_throw(file, O_RDONLY);
  const std::uint64_t blocks = size_of(fd.get()) / r.block_bytes;
  if (blocks < 2) throw HardwareError(fmt::format("{}: needs at least 2 blocks of {} bytes", file.string(), r.block_bytes));
  if (reads < 1) throw HardwareError("random reads: reads must be >= 1");
  r.reads = static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(reads), blocks));
  // Distinct blocks in a seeded random order: without O_DIRECT no read can hit a page an
  // earlier one brought in.
  std::vector<std::uint64_t> order(blocks);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(seed);
  for (std::size_t i = 0; i < static_cast<std::size_t>(r.reads); ++i) std::swap(order[i], order[i + rng() % (blocks - i)]);
  if (!r.direct_io) {
    evict_file(file);
    ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_RANDOM);  // no readahead around each block
  }
  const auto t0 = Clock::now();
  for (int i = 0; i < r.reads; ++i) {
    const auto offset = static_cast<off_t>(order[static_cast<std::size_t>(i)] * r.block_bytes);
    if (::pread(fd.get(), buffer.data, r.block_bytes, offset) < 0) {
      throw HardwareError(fmt::format("{}: read failed at byte {}: {}", file.string(), offset, std::strerror(errno)));
    }
  }
  r.seconds = seconds_since(t0);
  r.reads_per_s = r.reads / r.seconds;
  r.s_per_read = r.seconds / r.reads;
  return r;
}

void write_bench_file(const std::filesystem::path& file, std::uint64_t bytes, std::uint64_t seed) {
  Fd fd = open_or_throw(file, O_WRONLY | O_CREAT | O_TRUNC);
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> chunk(1 << 17);  // 1 MiB
  for (std::uint64_t done = 0; done < bytes;) {
    for (auto& word : chunk) word = rng();
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(bytes - done, chunk.size() * 8));
    if (::write(fd.get(), chunk.data(), n) != static_cast<ssize_t>(n)) {
      throw HardwareError(fmt::format("{}: write failed: {}", file.string(), std::strerror(errno)));
    }
    done += n;
  }
  if (::fsync(fd.get()) != 0) throw HardwareError(fmt::format("{}: fsync failed: {}", file.string(), std::strerror(errno)));
}

}  // namespace edgetwin::calibrate
