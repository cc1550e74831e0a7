// Runs pieces of work in forked child processes and hands their results back as bytes: the
// one fork mechanism of edgetwin (sweeps, validate's predictions, tests).
//
// Why: SimGrid allows one engine per process, so everything that simulates more than once
// simulates in children. Results travel through pipes; trivially copyable records go as raw
// bytes (same binary on both sides).
//
// Contract of run_in_children(count, jobs, task, on_result):
//   - forks one child per task index 0..count-1, at most `jobs` alive at once, in index order;
//     each child runs task(i) and sends what it returned, or its exception's whole message;
//   - the parent reads every child's pipe as data arrives (no child blocks on a full pipe) and
//     calls on_result(i, result) when child i has ended, in the order children end;
//   - a child that crashes or ends without answering gives an error saying how it ended;
//   - while children run, SIGINT or SIGTERM kills them all; once they are reaped
//     run_in_children throws Interrupted, and the program exits 128 + the signal
//     (sim/app/command_line.hpp); a child also dies when its parent does, even by SIGKILL;
//   - if on_result throws, the other children are killed and reaped before it propagates;
//   - no temporary files: nothing is left on disk whatever happens.
// Children leave through _exit, so they run no destructors the parent still owns (LibTorch,
// open files). Fork before starting threads: a child gets only the calling one. Pools may run
// in several threads at once (the Python bindings): each waits for its own children only, and
// a child dies when the thread that forked it ends (PR_SET_PDEATHSIG follows the thread).
#pragma once

#include <cstddef>
#include <cstring>
#include <functional>
#include <optional>
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

// SIGINT or SIGTERM arrived while children ran; they are gone when this is thrown.
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int signal);
  int signal() const { return signal_; }
  int exit_code() const { return 128 + signal_; }

 private:
  int signal_;
};

struct ChildResult {
  std::string bytes;                 // what the task returned (when no error)
  std::optional<std::string> error;  // the child's exception message, or how it ended
};

void run_in_children(std::size_t count, int jobs, const std::function<std::string(std::size_t)>& task,
                     const std::function<void(std::size_t, ChildResult)>& on_result);

// The same with task indices from next_task, asked only when a child may start: nothing
// means none is left. Chunks handed out at run time (sim/app/chunk_distribution.hpp) use it.
using TaskSource = std::function<std::optional<std::size_t>()>;
void run_in_children(const TaskSource& next_task, int jobs, const std::function<std::string(std::size_t)>& task,
                     const std::function<void(std::size_t, ChildResult)>& on_result);

// One task: returns its bytes, or throws ChildProcessError with the error.
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
// bytes that end too early, saying how many were wanted (the caller names where the bytes came
// from: a child, a shard file).
class ChildBytesReader {
 public:
  explicit ChildBytesReader(std::string_view bytes) : bytes_(bytes) {}

  template <typename T>
  std::vector<T> records() {
    static_assert(std::is_trivially_copyable_v<T>);
    const std::size_t count = take_size();
    if (count > bytes_.size() / (sizeof(T) > 0 ? sizeof(T) : 1)) throw cut_short(count, sizeof(T));
    std::vector<T> out(count);
    const std::string_view bytes = take(out.size() * sizeof(T));
    if (count > 0) std::memcpy(static_cast<void*>(out.data()), bytes.data(), bytes.size());  // no memcpy of null
    return out;
  }
  std::string text() { return std::string(take(take_size())); }
  std::size_t remaining() const { return bytes_.size(); }

 private:
  ChildProcessError cut_short(std::size_t count, std::size_t size) const;
  std::size_t take_size();
  std::string_view take(std::size_t n);
  std::string_view bytes_;
};

}  // namespace edgetwin
