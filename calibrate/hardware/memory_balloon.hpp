// A memory balloon: anonymous memory taken away from the page cache for the length of a run,
// so that less RAM than the dataset remains and epochs 1+ only partly hit (page-cache
// pressure without a smaller machine).
//
// Contract: the constructor maps `bytes` of anonymous memory in chunks, asks for transparent
// huge pages (inflating 20 GB page by page costs ~50 s of kernel time on the dev VM), locks
// each chunk with mlock when the process may and otherwise writes one byte per page, so every
// page is resident before the run starts (this machine has no swap; mlock keeps it resident
// where there is). It raises the process's oom_score_adj to 1000 first, so that if the
// machine runs short the OOM killer takes this validation rather than someone else's work.
//
// The machine is shared: with min_free_bytes > 0 a watchdog thread polls MemAvailable every
// 50 ms and gives back one chunk each time it finds less than that free, so another user's
// build gets its memory instead of the OOM killer. deflated_bytes() says how much went back;
// a run whose balloon deflated measured something else than was predicted, and the caller
// must treat it so. The destructor stops the watchdog and gives the memory back. Errors are
// std::runtime_error.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace edgetwin::calibrate {

class MemoryBalloon {
 public:
  MemoryBalloon(std::uint64_t bytes, std::uint64_t min_free_bytes);
  ~MemoryBalloon();
  MemoryBalloon(const MemoryBalloon&) = delete;
  MemoryBalloon& operator=(const MemoryBalloon&) = delete;

  std::uint64_t bytes() const { return bytes_; }
  std::uint64_t deflated_bytes() const { return deflated_bytes_.load(); }
  bool locked() const { return locked_; }

  static constexpr std::uint64_t kChunkBytes = 256ull << 20;

 private:
  void inflate();
  void watch(std::uint64_t min_free_bytes);
  bool give_back_one_chunk();
  void release_all();

  struct Chunk {
    void* memory = nullptr;
    std::uint64_t bytes = 0;
  };
  std::uint64_t bytes_ = 0;
  bool locked_ = true;
  std::mutex chunks_mutex_;
  std::vector<Chunk> chunks_;
  std::atomic<std::uint64_t> deflated_bytes_{0};
  std::atomic<bool> stop_{false};
  std::thread watchdog_;
};

// MemAvailable of /proc/meminfo now, in bytes: what a new allocation can take without swapping.
std::uint64_t mem_available_bytes();

}  // namespace edgetwin::calibrate
