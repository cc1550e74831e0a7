#include "sim/config/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace edgetwin {

namespace {

std::uint64_t g_digest = 0xcbf29ce484222325ULL;  // of the files read so far (inputs_digest)

// Closes the descriptor however the read ends.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a pipe";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

[[noreturn]] void fail_with_errno(const char* action) { throw InputFileError(action, std::strerror(errno)); }

}  // namespace

InputFileError::InputFileError(std::string action, std::string reason)
    : std::runtime_error(action + " file: " + reason), action_(std::move(action)), reason_(std::move(reason)) {}

std::string byte_size_text(std::size_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  if (bytes >= (1u << 10) && bytes % (1u << 10) == 0) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} bytes", bytes);
}

std::uint64_t fnv1a(std::string_view bytes, std::uint64_t hash) {
  for (const char c : bytes) hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return hash;
}

std::uint64_t inputs_digest() { return g_digest; }

std::string read_input_file(const std::filesystem::path& file, std::size_t max_bytes, std::string_view what,
                            InputDigest digest) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; the type check below refuses it.
  const Descriptor fd(::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) fail_with_errno("cannot open");
  struct stat status {};
  if (::fstat(fd.get(), &status) != 0) fail_with_errno("cannot read");
  if (!S_ISREG(status.st_mode)) throw InputFileError("cannot read", kind_of(status.st_mode));
  const std::string too_large =
      fmt::format("larger than {}, the limit for {} (sim/config/input_limits.hpp)", byte_size_text(max_bytes), what);
  if (static_cast<std::uintmax_t>(status.st_size) > max_bytes) throw InputFileError("cannot read", too_large);
  std::string text;
  char buffer[65536];
  while (true) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_with_errno("cannot read");
    if (n == 0) {
      if (digest == InputDigest::input)
        g_digest = fnv1a(text, fnv1a(std::to_string(text.size()) + ':', g_digest));  // contents, not paths
      return text;
    }
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > max_bytes) throw InputFileError("cannot read", too_large);  // it grew while being read
  }
}

}  // namespace edgetwin
