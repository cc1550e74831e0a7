#include "calibrate/profile/toml_text.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace edgetwin::calibrate {

std::string toml_float(double value) {
  if (!std::isfinite(value)) throw std::invalid_argument(fmt::format("cannot write {} to TOML: not a finite number", value));
  // fmt's "{}" is the shortest text that reads back to the same double.
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";  // else TOML reads an integer
  return text;
}

std::string toml_string(std::string_view text) {
  std::string out = "\"";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += fmt::format("\\u{:04X}", c);
        } else {
          out += ch;  // UTF-8 bytes pass through
        }
    }
  }
  return out + "\"";
}

std::string toml_key(std::string_view key) {
  const bool bare = !key.empty() && key.find_first_not_of(
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") == std::string_view::npos;
  return bare ? std::string(key) : toml_string(key);
}

std::string toml_float_array(const std::vector<double>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + toml_float(values[i]);
  return out + "]";
}

std::string toml_number_array(const std::vector<double>& values) {
  for (const double v : values) {
    if (!std::isfinite(v) || v != std::floor(v) || std::fabs(v) > 9.0e15) return toml_float_array(values);
  }
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += fmt::format("{}{}", i ? ", " : "", static_cast<long long>(values[i]));
  return out + "]";
}

}  // namespace edgetwin::calibrate
