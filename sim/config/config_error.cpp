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

// Control characters (a newline in a mode name, an escape sequence) shown as escapes, so that
// one problem stays one line and a terminal shows what the file holds.
std::string printable(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (byte < 0x20 || byte == 0x7f) out += fmt::format("\\x{:02x}", byte);
    else out += c;
  }
  return out;
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
  std::string text = printable(location(*this));
  for (const std::string* part : {&key, &message}) {
    if (part->empty()) continue;
    if (!text.empty()) text += ": ";
    text += printable(*part);
  }
  return text;
}

ConfigError::ConfigError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(join_lines(diagnostics)), diagnostics_(std::move(diagnostics)) {}

ConfigError option_error(const std::string& option, const std::string& message) {
  return ConfigError({Diagnostic{"", 0, 0, option, message}});
}

}  // namespace edgetwin
