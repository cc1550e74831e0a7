// The one error type for bad user input: every problem found in a file, reported together.
//
// Contract: loaders collect Diagnostics while reading and throw ConfigError once at the end
// if any were found; main prints what() and exits with code 2. what() has one line per
// diagnostic: "file:line:column: dotted.key: message".
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace edgetwin {

struct Diagnostic {
  std::string file;  // "" when the problem is not in a file (command line)
  int line = 0;      // 0 when unknown
  int column = 0;
  std::string key;   // dotted key, or the command-line option ("--workers")
  std::string message;
  std::string to_string() const;
};

class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(std::vector<Diagnostic> diagnostics);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

// A problem with a command-line option, not in a file: a ConfigError of one Diagnostic.
ConfigError option_error(const std::string& option, const std::string& message);

}  // namespace edgetwin
