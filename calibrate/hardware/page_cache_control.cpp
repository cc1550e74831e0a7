#include "calibrate/hardware/page_cache_control.hpp"

#include <cerrno>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "calibrate/hardware/hardware_error.hpp"

namespace edgetwin::calibrate {

namespace {

class FileDescriptor {
 public:
  FileDescriptor(const std::filesystem::path& file, int flags) : fd_(::open(file.c_str(), flags | O_CLOEXEC)) {
    if (fd_ < 0) throw HardwareError(fmt::format("{}: cannot open: {}", file.string(), std::strerror(errno)));
  }
  ~FileDescriptor() { ::close(fd_); }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::uint64_t file_size(int fd, const std::filesystem::path& file) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw HardwareError(fmt::format("{}: stat failed: {}", file.string(), std::strerror(errno)));
  return static_cast<std::uint64_t>(st.st_size);
}

}  // namespace

std::uint64_t page_size_bytes() { return static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)); }

Residency file_residency(const std::filesystem::path& file) {
  FileDescriptor fd(file, O_RDONLY);
  Residency r;
  r.file_bytes = file_size(fd.get(), file);
  if (r.file_bytes == 0) return r;  // mmap of length 0 is invalid; nothing can be resident
  const std::uint64_t page = page_size_bytes();
  r.pages = (r.file_bytes + page - 1) / page;
  // Mapping alone faults nothing in; mincore then reports the page cache's state.
  void* map = ::mmap(nullptr, r.file_bytes, PROT_READ, MAP_SHARED, fd.get(), 0);
  if (map == MAP_FAILED) throw HardwareError(fmt::format("{}: mmap failed: {}", file.string(), std::strerror(errno)));
  std::vector<unsigned char> vec(r.pages);
  const int rc = ::mincore(map, r.file_bytes, vec.data());
  const int error = errno;
  ::munmap(map, r.file_bytes);
  if (rc != 0) throw HardwareError(fmt::format("{}: mincore failed: {}", file.string(), std::strerror(error)));
  for (const unsigned char v : vec) r.resident_pages += v & 1u;
  r.resident_bytes = std::min(r.resident_pages * page, r.file_bytes);
  return r;
}

Residency files_residency(const std::vector<std::filesystem::path>& files) {
  Residency total;
  for (const auto& f : files) {
    const Residency r = file_residency(f);
    total.file_bytes += r.file_bytes;
    total.pages += r.pages;
    total.resident_pages += r.resident_pages;
    total.resident_bytes += r.resident_bytes;
  }
  return total;
}

void evict_file(const std::filesystem::path& file) {
  FileDescriptor fd(file, O_RDONLY);
  // Dirty pages cannot be dropped; writing them back first makes the eviction complete.
  ::fdatasync(fd.get());
  const int rc = ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
  if (rc != 0) throw HardwareError(fmt::format("{}: posix_fadvise(DONTNEED) failed: {}", file.string(), std::strerror(rc)));
}

void evict_files(const std::vector<std::filesystem::path>& files) {
  for (const auto& f : files) evict_file(f);
}

}  // namespace edgetwin::calibrate
