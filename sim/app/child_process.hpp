// Runs a piece of work in a forked child process and hands its result back as bytes.
//
// Why: SimGrid allows one engine per process, so every program that simulates more than once
// (tests, edgetwin-validate's predictions) simulates in a child. The child's result travels
// through a pipe; trivially copyable records go as raw bytes (same binary on both sides).
//
// Contract: run_in_child forks, runs `produce` in the child and returns what it returned. An
// exception in the child comes back as ChildProcessError carrying its message; a child that
// crashes or exits without answering is a ChildProcessError too. The child leaves through
// _exit, so it runs no destructors the parent still owns (LibTorch, open files). Fork before
// starting threads: the child gets only the calling one.
#pragma once

#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace edgetwin {

class ChildProcessError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string run_in_child(const std::function<std::string()>& produce);

// Packing for the bytes: a count then the records, a length then the text.
template <typename T>
void append_records(std::string& out, const std::vector<T>& records) {
  static_assert(std::is_trivially_copyable_v<T>);
  const std::size_t count = records.size();
  out.append(reinterpret_cast<const char*>(&count), sizeof count);
  out.append(reinterpret_cast<const char*>(records.data()), count * sizeof(T));
}

inline void append_text(std::string& out, const std::string& text) {
  const std::size_t size = text.size();
  out.append(reinterpret_cast<const char*>(&size), sizeof size);
  out.append(text);
}

// Reads back what the append functions wrote, in the same order; throws ChildProcessError on
// bytes that end too early.
class ChildBytesReader {
 public:
  explicit ChildBytesReader(std::string_view bytes) : bytes_(bytes) {}

  template <typename T>
  std::vector<T> records() {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<T> out(take_size());
    std::memcpy(static_cast<void*>(out.data()), take(out.size() * sizeof(T)).data(), out.size() * sizeof(T));
    return out;
  }
  std::string text() { return std::string(take(take_size())); }

 private:
  std::size_t take_size();
  std::string_view take(std::size_t n);
  std::string_view bytes_;
};

}  // namespace edgetwin
