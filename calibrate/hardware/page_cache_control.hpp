// Page-cache control of single files, as vmtouch does it: evict with
// posix_fadvise(POSIX_FADV_DONTNEED) and count resident pages with mmap + mincore.
//
// Contract: never drops the whole cache (not allowed on shared machines; the study's
// `echo 3 > drop_caches` is replaced by evicting exactly the dataset's files). Eviction of
// clean pages is immediate; dirty pages are written back first (fdatasync) so they can go.
// Errors (missing file, mmap failure) are HardwareError naming the file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace edgetwin::calibrate {

struct Residency {
  std::uint64_t file_bytes = 0;
  std::uint64_t pages = 0;           // pages the files span (page size from sysconf)
  std::uint64_t resident_pages = 0;
  std::uint64_t resident_bytes = 0;  // resident_pages * page size, capped at file_bytes
  double fraction() const { return pages == 0 ? 0.0 : double(resident_pages) / double(pages); }
};

Residency file_residency(const std::filesystem::path& file);
Residency files_residency(const std::vector<std::filesystem::path>& files);  // sums

void evict_file(const std::filesystem::path& file);
void evict_files(const std::vector<std::filesystem::path>& files);

std::uint64_t page_size_bytes();

}  // namespace edgetwin::calibrate
