#include "sim/app/child_process.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace edgetwin {

namespace {

// The first byte says how the child ended: its result follows, or its error message.
constexpr char kResult = 'r';
constexpr char kError = 'e';

void write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const auto n = ::write(fd, data.data(), data.size());
    if (n <= 0) _exit(3);
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

std::string read_all(int fd) {
  std::string out;
  char buffer[65536];
  for (;;) {
    const auto n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
  }
  return out;
}

[[noreturn]] void child_main(int fd, const std::function<std::string()>& produce) {
  std::string message;
  try {
    message = kResult + produce();
  } catch (const std::exception& e) {
    message = kError + std::string(e.what());
  }
  write_all(fd, message);
  ::close(fd);
  _exit(0);
}

std::string errno_text(const char* what) { return std::string(what) + " failed: " + std::strerror(errno); }

}  // namespace

std::string run_in_child(const std::function<std::string()>& produce) {
  int fds[2];
  if (::pipe(fds) != 0) throw ChildProcessError(errno_text("pipe"));
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw ChildProcessError(errno_text("fork"));
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(fds[1], produce);
  }
  ::close(fds[1]);
  std::string data = read_all(fds[0]);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || data.empty()) {
    throw ChildProcessError("child process crashed or ended without a result (wait status " + std::to_string(status) + ")");
  }
  if (data.front() == kError) throw ChildProcessError(data.substr(1));
  return data.substr(1);
}

std::size_t ChildBytesReader::take_size() {
  std::size_t size = 0;
  std::memcpy(&size, take(sizeof size).data(), sizeof size);
  return size;
}

std::string_view ChildBytesReader::take(std::size_t n) {
  if (n > bytes_.size()) throw ChildProcessError("child process result is truncated");
  const std::string_view part = bytes_.substr(0, n);
  bytes_.remove_prefix(n);
  return part;
}

}  // namespace edgetwin
