#include "sim/app/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <new>

#include <fmt/format.h>

#include "sim/app/termination.hpp"

namespace edgetwin {
namespace {

namespace fs = std::filesystem;

// Written out in pieces of this size: a trace of a long run never sits whole in memory.
constexpr std::size_t kBufferBytes = 1 << 20;

constexpr std::string_view kTag = ".edgetwin-";
constexpr std::string_view kSuffix = ".tmp";

fs::path directory_of(const fs::path& target) { return target.has_parent_path() ? target.parent_path() : fs::path("."); }

std::string temporary_prefix(const fs::path& target) {
  std::string prefix = ".";  // built by appends: "." + s trips a false -Wrestrict in g++ 12
  prefix += target.filename().string();
  prefix += kTag;
  return prefix;
}

// A temporary file of another run for this target whose process no longer exists.
void remove_stale_temporaries(const fs::path& target) {
  std::error_code ec;
  for (const fs::path& file : leftovers_of_dead_processes(directory_of(target), temporary_prefix(target), kSuffix)) {
    fs::remove(file, ec);
  }
}

// Makes the rename durable: without it a crash can lose the new directory entry.
void sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: some file systems refuse opening a directory
  ::fsync(fd);
  ::close(fd);
}

// The nearest directory that exists on the way to target: where its missing parents would be
// created.
fs::path nearest_existing_directory(const fs::path& target) {
  fs::path dir = fs::absolute(target).parent_path();
  std::error_code ec;
  while (!fs::exists(dir, ec) && dir.has_parent_path() && dir != dir.parent_path()) dir = dir.parent_path();
  return dir;
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  const fs::path ca = fs::weakly_canonical(a, ec);
  if (ec) return a == b;
  const fs::path cb = fs::weakly_canonical(b, ec);
  return ec ? a == b : ca == cb;
}

}  // namespace

OutputFile::OutputFile(fs::path target, Durability durability)
    : target_(std::move(target)), durability_(durability) {
  if (target_.filename().empty()) throw OutputError(fmt::format("{}: cannot write: not a file name", target_.string()));
  std::error_code ec;
  fs::create_directories(directory_of(target_), ec);
  if (ec) throw OutputError(fmt::format("{}: cannot create its directory: {}", target_.string(), ec.message()));
  remove_stale_temporaries(target_);
  temporary_ = directory_of(target_) / (temporary_prefix(target_) + std::to_string(::getpid()) + std::string(kSuffix));
  slot_ = register_temporary(temporary_);  // before it exists: a signal during open() removes it too
  fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd_ < 0) fail("cannot write", errno);
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::write(std::string_view bytes) {
  if (first_error_ != 0) fail(first_error_what_.c_str(), first_error_);
  buffer_.append(bytes);
  if (buffer_.size() >= kBufferBytes) flush_buffer();
}

bool OutputFile::append(std::string_view bytes) noexcept {
  if (first_error_ != 0) return false;
  try {
    buffer_.append(bytes);
    if (buffer_.size() >= kBufferBytes) flush_buffer();
  } catch (const OutputError&) {
    return false;  // flush_buffer kept the reason for commit()
  } catch (const std::bad_alloc&) {
    first_error_ = ENOMEM;
    first_error_what_ = "cannot write";
    return false;
  }
  return true;
}

void OutputFile::flush() {
  if (first_error_ != 0) fail(first_error_what_.c_str(), first_error_);
  try {
    flush_buffer();
  } catch (const OutputError&) {
    fail("cannot write", first_error_);
  }
}

void OutputFile::flush_buffer() {
  std::string_view rest = buffer_;
  while (!rest.empty()) {
    const ssize_t n = ::write(fd_, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      first_error_ = errno;
      first_error_what_ = "cannot write";
      buffer_.clear();
      throw OutputError(fmt::format("{}: cannot write: {}", target_.string(), std::strerror(first_error_)));
    }
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
  buffer_.clear();
}

void OutputFile::commit() {
  if (fd_ < 0) throw std::logic_error("OutputFile::commit called twice");
  flush();
  const bool synced = durability_ == Durability::synced;
  if (synced && ::fsync(fd_) != 0 && errno != EINVAL) fail("cannot write", errno);  // EINVAL: no fsync there
  const int closed = ::close(fd_);
  fd_ = -1;
  if (closed != 0) fail("cannot write", errno);
  if (::rename(temporary_.c_str(), target_.c_str()) != 0) fail("cannot replace it", errno);
  unregister_temporary(slot_);
  slot_ = -1;
  if (synced) sync_directory(directory_of(target_));
}

void OutputFile::fail(const char* what, int error) {
  const std::string message = fmt::format("{}: {}: {}", target_.string(), what, std::strerror(error));
  discard();
  throw OutputError(message);
}

void OutputFile::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (slot_ >= 0) {
    ::unlink(temporary_.c_str());
    unregister_temporary(slot_);
    slot_ = -1;
  }
}

void write_output_file(const fs::path& target, std::string_view content, Durability durability) {
  OutputFile out(target, durability);
  out.write(content);
  out.commit();
}

std::optional<Diagnostic> output_target_problem(const fs::path& target, std::string_view option) {
  const auto problem = [&](std::string message) { return Diagnostic{"", 0, 0, std::string(option), std::move(message)}; };
  std::error_code ec;
  if (target.empty()) return problem("expected a file to write, got \"\"");
  if (fs::is_directory(target, ec) || target.filename().empty()) {
    return problem(fmt::format("{} is a directory; expected a file to write", target.string()));
  }
  if (fs::exists(target, ec) && !fs::is_regular_file(target, ec)) {
    return problem(fmt::format("{} exists and is not a plain file; expected a file to write", target.string()));
  }
  const fs::path dir = nearest_existing_directory(target);
  if (!fs::is_directory(dir, ec)) {
    return problem(fmt::format("cannot create {}: {} is not a directory", target.string(), dir.string()));
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return problem(fmt::format("cannot create {}: {}: {}", target.string(), dir.string(), std::strerror(errno)));
  }
  return std::nullopt;
}

void check_output_target(const fs::path& target, std::string_view option) {
  if (auto problem = output_target_problem(target, option)) throw ConfigError({std::move(*problem)});
}

std::vector<Diagnostic> output_targets_problems(const std::vector<std::pair<std::string, fs::path>>& outputs) {
  std::vector<Diagnostic> problems;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& [option, path] = outputs[i];
    if (path.empty()) continue;
    if (auto problem = output_target_problem(path, option)) problems.push_back(std::move(*problem));
    for (std::size_t j = 0; j < i; ++j) {
      if (!outputs[j].second.empty() && same_file(outputs[j].second, path)) {
        problems.push_back(Diagnostic{"", 0, 0, option,
                                      fmt::format("{} is also the file of {}; give each output its own file",
                                                  path.string(), outputs[j].first)});
      }
    }
  }
  return problems;
}

std::vector<fs::path> leftovers_of_dead_processes(const fs::path& dir, std::string_view prefix, std::string_view suffix) {
  const auto process_is_gone = [](pid_t pid) { return pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH; };
  std::vector<fs::path> leftovers;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(prefix) || !name.ends_with(suffix)) continue;
    const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    if (process_is_gone(static_cast<pid_t>(std::stol(digits)))) leftovers.push_back(entry.path());
  }
  return leftovers;
}

}  // namespace edgetwin
