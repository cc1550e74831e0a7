// Microbenchmarks for a host device file: memory copy bandwidth, sequential read bandwidth of
// a file from storage (after eviction), random 4 KiB read rate.
//
// Contract: each returns every repetition and the best; bandwidths count bytes copied or read
// (a memcpy of N bytes counts N, the rate at which a page-cache hit delivers data).
// Random reads use O_DIRECT when the file system allows it, else evict the file and read
// distinct pages with POSIX_FADV_RANDOM (no readahead); `direct_io` says which was used.
// Files must be larger than the block size; errors are HardwareError.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace edgetwin::calibrate {

struct BandwidthResult {
  std::uint64_t bytes = 0;              // per repetition
  std::vector<double> bytes_per_s;      // one per repetition
  double best_bytes_per_s = 0;
};

struct RandomReadResult {
  int reads = 0;
  std::uint64_t block_bytes = 4096;
  bool direct_io = false;
  double seconds = 0;
  double reads_per_s = 0;
  double s_per_read = 0;
};

BandwidthResult measure_memory_bandwidth(std::uint64_t bytes = 256ull << 20, int repetitions = 5);
BandwidthResult measure_sequential_read(const std::filesystem::path& file, int repetitions = 3);
RandomReadResult measure_random_reads(const std::filesystem::path& file, int reads, std::uint64_t seed = 1);

// Reads `file` from its start to its end through the page cache in requests of the buffer's
// size; the seconds it took.
double read_file_whole(const std::filesystem::path& file, std::vector<char>& buffer);

// Writes `bytes` of pseudo-random data (incompressible) and fsyncs it, for the storage benches.
void write_bench_file(const std::filesystem::path& file, std::uint64_t bytes, std::uint64_t seed = 1);

}  // namespace edgetwin::calibrate
