#include "calibrate/profile/atomic_file.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace edgetwin::calibrate {

namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what, int error) {
  throw std::runtime_error(fmt::format("{}: {}: {}", path.string(), what, std::strerror(error)));
}

void write_all(int fd, std::string_view content, const std::filesystem::path& temp) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(temp, "write failed", errno);
    done += static_cast<std::size_t>(n);
  }
}

// Makes the rename itself durable: without it a crash can lose the new directory entry.
void sync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;  // best effort: some file systems refuse opening a directory
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) fail(dir, "cannot create directory", ec.value());
  // Same directory as the target, so rename() stays on one file system and is atomic.
  std::string pattern = (dir / ("." + path.filename().string() + ".tmp.XXXXXX")).string();
  int fd = ::mkstemp(pattern.data());
  if (fd < 0) fail(path, "cannot create temp file", errno);
  const std::filesystem::path temp = pattern;
  try {
    write_all(fd, content, temp);
    if (::fchmod(fd, 0644) != 0) fail(temp, "chmod failed", errno);  // mkstemp makes 0600
    if (::fsync(fd) != 0) fail(temp, "fsync failed", errno);
    const int closed = ::close(fd);
    fd = -1;
    if (closed != 0) fail(temp, "close failed", errno);
  } catch (...) {
    if (fd >= 0) ::close(fd);
    std::filesystem::remove(temp, ec);
    throw;
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::filesystem::remove(temp, ec);
    fail(path, "rename failed", error);
  }
  sync_directory(dir);
}

}  // namespace edgetwin::calibrate
