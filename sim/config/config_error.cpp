#include "sim/config/config_error.hpp"

#include <fmt/format.h>

namespace edgetwin {
namespace {

// "file:line:column", leaving out what is unknown, so a command-line problem reads "--workers: ...".
std::string location(const Diagnostic& diagnostic) {
  std::string text = diagnostic.file;
  if (diagnostic.line > 0) {
    text += fmt::format("{}{}", text.empty() ? "" : ":", diagnostic.line);
    if (diagnostic.column > 0) text += fmt::format(":{}", diagnostic.column);
  }
  return text;
}

std::string join_lines(const std::vector<Diagnostic>& diagnostics) {
  std::string text;
  for (const Diagnostic& diagnostic : diagnostics) {
    if (!text.empty()) text += '\n';
    text += diagnostic.to_string();
  }
  return text;
}

}  // namespace

std::string Diagnostic::to_string() const {
  std::string text = location(*this);
  for (const std::string* part : {&key, &message}) {
    if (part->empty()) continue;
    if (!text.empty()) text += ": ";
    text += *part;
  }
  return text;
}

ConfigError::ConfigError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(join_lines(diagnostics)), diagnostics_(std::move(diagnostics)) {}

}  // namespace edgetwin
