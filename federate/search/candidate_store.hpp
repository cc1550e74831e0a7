// A search's finished candidates on disk (`--search-dir DIR`): one sealed file per candidate
// (sim/app/sealed_file.hpp, kind "edgetwin-federate search candidate"), named after its plan
// (DIR/deadline=30,selection=oort.etsearch), holding what its learning run computed, so that a
// rerun skips it as `--shard` skips a finished shard.
//
// Contract: the identity is the candidate run's (build, inputs, data, options, plan), checked
// whole: a file of another run, damaged, cut or of another kind is a ConfigError (exit 2)
// naming the file, never read as a result. keep() writes the file whole or not at all
// (sim/app/output_file.hpp), so a search killed at any point leaves finished candidates only.
// Without a directory nothing is read or kept.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace edgetwin::federate {

class CandidateStore {
 public:
  explicit CandidateStore(std::filesystem::path dir) : dir_(std::move(dir)) {}
  bool enabled() const { return !dir_.empty(); }
  std::filesystem::path file_of(const std::string& label) const;
  // The result bytes of the candidate when a file of this run holds them.
  std::optional<std::string> finished(const std::string& label, const std::string& identity) const;
  void keep(const std::string& label, const std::string& identity, const std::string& result) const;

 private:
  std::filesystem::path dir_;
};

}  // namespace edgetwin::federate
