#include "calibrate/hardware/memory_balloon.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>

#include <sys/mman.h>
#include <unistd.h>

#include <fmt/format.h>

namespace edgetwin::calibrate {

namespace {

constexpr auto kWatchInterval = std::chrono::milliseconds(50);

// Best effort: without it the OOM killer would pick by size alone, which is this process
// anyway while it holds the balloon.
void volunteer_for_oom_killer() {
  std::ofstream adj("/proc/self/oom_score_adj");
  adj << 1000;
}

void touch_every_page(void* memory, std::uint64_t bytes) {
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  auto* bytes_view = static_cast<volatile unsigned char*>(memory);
  for (std::uint64_t offset = 0; offset < bytes; offset += page) bytes_view[offset] = 1;
}

}  // namespace

MemoryBalloon::MemoryBalloon(std::uint64_t bytes, std::uint64_t min_free_bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  volunteer_for_oom_killer();
  try {
    inflate();
  } catch (...) {
    release_all();
    throw;
  }
  if (min_free_bytes > 0) watchdog_ = std::thread([this, min_free_bytes] { watch(min_free_bytes); });
}

MemoryBalloon::~MemoryBalloon() {
  stop_ = true;
  if (watchdog_.joinable()) watchdog_.join();
  release_all();
}

void MemoryBalloon::inflate() {
  for (std::uint64_t done = 0; done < bytes_;) {
    const std::uint64_t size = std::min(kChunkBytes, bytes_ - done);
    void* memory = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) {
      throw std::runtime_error(fmt::format("memory balloon: cannot map {} bytes: {}", size, std::strerror(errno)));
    }
    {
      const std::lock_guard lock(chunks_mutex_);
      chunks_.push_back({memory, size});
    }
    ::madvise(memory, size, MADV_HUGEPAGE);  // advice only: fewer, cheaper faults where THP is on
    // mlock populates and pins; without the privilege the pages are faulted in by hand.
    if (::mlock(memory, size) != 0) {
      locked_ = false;
      touch_every_page(memory, size);
    }
    done += size;
  }
}

void MemoryBalloon::watch(std::uint64_t min_free_bytes) {
  while (!stop_) {
    if (mem_available_bytes() < min_free_bytes && !give_back_one_chunk()) return;
    std::this_thread::sleep_for(kWatchInterval);
  }
}

bool MemoryBalloon::give_back_one_chunk() {
  const std::lock_guard lock(chunks_mutex_);
  if (chunks_.empty()) return false;
  ::munmap(chunks_.back().memory, chunks_.back().bytes);
  deflated_bytes_ += chunks_.back().bytes;
  chunks_.pop_back();
  return true;
}

void MemoryBalloon::release_all() {
  const std::lock_guard lock(chunks_mutex_);
  for (const Chunk& c : chunks_) ::munmap(c.memory, c.bytes);
  chunks_.clear();
}

std::uint64_t mem_available_bytes() {
  std::ifstream in("/proc/meminfo");
  for (std::string line; std::getline(in, line);) {
    unsigned long long kib = 0;
    if (std::sscanf(line.c_str(), "MemAvailable: %llu kB", &kib) == 1) return kib * 1024ull;
  }
  return 0;
}

}  // namespace edgetwin::calibrate
