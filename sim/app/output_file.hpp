// Writes one output file whole or not at all: every file edgetwin, edgetwin-calibrate and
// edgetwin-validate write goes through here (sweep CSV/JSON/figures, traces, profiles,
// reports).
//
// Contract:
//   - OutputFile(target) creates a temporary file beside target, named
//     ".<target's name>.edgetwin-<pid>.tmp" (same directory, so the final rename is atomic),
//     registers it for removal on SIGINT/SIGTERM/SIGHUP (sim/app/termination.hpp), and first
//     removes such files that a killed run (SIGKILL, a power cut) left beside target.
//   - write() buffers and checks every write; append() does the same without throwing and
//     keeps the first error, for callers that must not throw (a simulation's observer).
//   - commit() writes out the rest, fsyncs (unless unsynced), checks close(), renames over
//     target and fsyncs the directory; only then is anything under target's name.
//   - Any failure throws OutputError naming target and the operating system's reason
//     ("out/front.csv: cannot write: No space left on device") and removes the temporary
//     file; an OutputFile destroyed without commit() removes it as well. target is untouched
//     unless commit() returned.
// output_target_problem() says before a long run whether target can be written at all: not a
// directory, its directory exists and is writable, not the same file as another output.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/config_error.hpp"

namespace edgetwin {

class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// synced: commit() fsyncs the file and its directory, so that a power cut keeps the old or the
// new file. unsynced: atomic against kills only, for thousands of dataset files at a time.
enum class Durability { synced, unsynced };

class OutputFile {
 public:
  explicit OutputFile(std::filesystem::path target, Durability durability = Durability::synced);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(std::string_view bytes);
  bool append(std::string_view bytes) noexcept;
  // Writes out what is buffered, so that the temporary file can be read back before commit().
  void flush();
  void commit();

  const std::filesystem::path& target() const { return target_; }
  // Where the bytes are until commit(), for a program that writes the file itself (gnuplot).
  const std::filesystem::path& temporary() const { return temporary_; }

 private:
  void flush_buffer();
  [[noreturn]] void fail(const char* what, int error);
  void discard() noexcept;

  std::filesystem::path target_;
  Durability durability_;
  std::filesystem::path temporary_;
  int fd_ = -1;
  int slot_ = -1;
  std::string buffer_;
  int first_error_ = 0;
  std::string first_error_what_;
};

void write_output_file(const std::filesystem::path& target, std::string_view content,
                       Durability durability = Durability::synced);

// A problem with writing target, for the option that names it; nothing when it can be written
// (missing directories on the way are created when it is written).
std::optional<Diagnostic> output_target_problem(const std::filesystem::path& target, std::string_view option);
// The same, thrown as a ConfigError.
void check_output_target(const std::filesystem::path& target, std::string_view option);

// Problems with a set of outputs of one command: each output_target_problem, and two options
// naming the same file. Pairs are (option, path); empty paths are skipped.
std::vector<Diagnostic> output_targets_problems(
    const std::vector<std::pair<std::string, std::filesystem::path>>& outputs);

// The entries of `dir` named prefix + PID + suffix whose process no longer exists: what a run
// killed before it could clean up (SIGKILL, a power cut) left of its temporary outputs.
std::vector<std::filesystem::path> leftovers_of_dead_processes(const std::filesystem::path& dir, std::string_view prefix,
                                                               std::string_view suffix);

}  // namespace edgetwin
