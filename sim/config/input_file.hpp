// Reads a whole input file for a parser: every reader of user files (TOML, CSV, JSON) goes
// through here, so none can hang on a FIFO, read /dev/zero forever or take a file of gigabytes.
//
// Contract: read_input_file returns the file's bytes, or throws InputFileError with a reason a
// person can act on and no file name (the caller places it): the operating system's reason
// ("cannot open file: No such file or directory"), "not a regular file (a directory)" for
// anything but a regular file (checked on the opened descriptor, so a FIFO never blocks), or
// "larger than 1 MiB, the limit for ..." when it has more than max_bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace edgetwin {

// what() is "<action> file: <reason>"; callers with a wording of their own use the parts.
class InputFileError : public std::runtime_error {
 public:
  InputFileError(std::string action, std::string reason);
  const std::string& action() const { return action_; }  // "cannot open", "cannot read"
  const std::string& reason() const { return reason_; }  // "No such file or directory"

 private:
  std::string action_;
  std::string reason_;
};

// Whether a file's bytes enter inputs_digest(): the inputs of a run do; what edgetwin wrote
// itself and reads back (shard files, checkpoints) does not, so that a merge's digest is that
// of the inputs it shares with the shards.
enum class InputDigest { input, not_an_input };

// `what` names the kind of file in the size message ("a device, workload or profile file").
std::string read_input_file(const std::filesystem::path& file, std::size_t max_bytes, std::string_view what,
                            InputDigest digest = InputDigest::input);

// A digest of every input file this process has read so far (their bytes, in read order):
// equal digests, equal inputs wherever the files lie. Shard files carry it (sim/app/shard_files.hpp).
std::uint64_t inputs_digest();

// FNV-1a, 64 bits: stable across builds and machines, for fingerprints.
std::uint64_t fnv1a(std::string_view bytes, std::uint64_t hash = 0xcbf29ce484222325ULL);

// "1 MiB", "64 MiB", "4096 bytes".
std::string byte_size_text(std::size_t bytes);

}  // namespace edgetwin
