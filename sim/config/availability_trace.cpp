#include "sim/config/availability_trace.hpp"

#include <algorithm>
#include <limits>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "sim/config/config_error.hpp"
#include "sim/config/input_file.hpp"
#include "sim/config/input_limits.hpp"

namespace edgetwin {
namespace {

struct Token {
  std::string text;
  int column = 0;
};

std::vector<Token> tokens_of(const std::string& line) {
  std::vector<Token> out;
  const std::string content = line.substr(0, line.find('#'));
  for (std::size_t i = 0; i < content.size();) {
    if (std::isspace(static_cast<unsigned char>(content[i])) || content[i] == ',') {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < content.size() && !std::isspace(static_cast<unsigned char>(content[i])) && content[i] != ',') ++i;
    out.push_back({content.substr(start, i - start), static_cast<int>(start) + 1});
  }
  return out;
}

// A token as a message shows it: at most 40 bytes, so one bad line stays one readable line.
std::string shown(const std::string& token) { return token.size() <= 40 ? token : token.substr(0, 40) + "..."; }

bool parse_number(const std::string& text, double& out) {
  char* end = nullptr;
  errno = 0;
  out = std::strtod(text.c_str(), &end);
  return end != text.c_str() && *end == '\0' && errno == 0 && std::isfinite(out);
}

// How many of the device's times are at or before t: odd means active.
std::size_t switches_until(const std::vector<double>& times, double t_s) {
  return static_cast<std::size_t>(std::upper_bound(times.begin(), times.end(), t_s) - times.begin());
}

}  // namespace

bool AvailabilityTrace::active_at(std::int64_t device, double t_s) const {
  return switches_until(times_.at(static_cast<std::size_t>(device)), t_s) % 2 == 1;
}

AvailabilityTrace::Window AvailabilityTrace::window_at(std::int64_t device, double t_s) const {
  const auto& times = times_.at(static_cast<std::size_t>(device));
  const std::size_t k = switches_until(times, t_s);
  const double infinity = std::numeric_limits<double>::infinity();
  return {k > 0 ? times[k - 1] : -infinity, k < times.size() ? times[k] : infinity, k % 2 == 1};
}

bool AvailabilityTrace::active_throughout(std::int64_t device, double from_s, double to_s) const {
  const auto& times = times_.at(static_cast<std::size_t>(device));
  const std::size_t at_start = switches_until(times, from_s);
  return at_start % 2 == 1 && switches_until(times, to_s) == at_start;
}

std::optional<double> AvailabilityTrace::next_active_after(std::int64_t device, double t_s) const {
  const auto& times = times_.at(static_cast<std::size_t>(device));
  std::size_t next = switches_until(times, t_s);
  if (next % 2 == 1) ++next;  // the next switch is an inactive one: the active one after it
  if (next >= times.size()) return std::nullopt;
  return times[next];
}

AvailabilityTrace load_availability_trace(const std::filesystem::path& file, std::int64_t devices) {
  const std::string name = file.string();
  std::string content;
  try {
    content = read_input_file(file, limits::trace_file_bytes, "an availability trace");
  } catch (const InputFileError& error) {
    throw ConfigError({Diagnostic{name, 0, 0, "", error.what()}});
  }
  std::istringstream in(content);
  std::vector<Diagnostic> problems;
  std::size_t not_shown = 0;
  auto problem = [&](int line, int column, std::string message) {
    if (problems.size() < limits::diagnostics_per_file) problems.push_back(Diagnostic{name, line, column, "", std::move(message)});
    else ++not_shown;
  };
  std::vector<std::vector<double>> times(static_cast<std::size_t>(std::max<std::int64_t>(devices, 0)));
  std::vector<int> line_of(times.size(), 0);
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    const auto tokens = tokens_of(text);
    if (tokens.empty()) continue;
    double index = 0;
    if (!parse_number(tokens[0].text, index) || index < 0 || index != std::floor(index)) {
      problem(line, tokens[0].column, fmt::format("expected a device index (0, 1, ...), got \"{}\"", shown(tokens[0].text)));
      continue;
    }
    if (index >= static_cast<double>(devices)) {
      problem(line, tokens[0].column, fmt::format("device {} is outside the group's 0..{}", index, devices - 1));
      continue;
    }
    const auto device = static_cast<std::size_t>(index);
    if (line_of[device] != 0) {
      problem(line, tokens[0].column, fmt::format("device {} already has a line ({})", device, line_of[device]));
      continue;
    }
    line_of[device] = line;
    for (std::size_t k = 1; k < tokens.size(); ++k) {
      double t = 0;
      if (!parse_number(tokens[k].text, t) || t < 0) {
        problem(line, tokens[k].column, fmt::format("expected a time in seconds (>= 0), got \"{}\"", shown(tokens[k].text)));
        break;
      }
      if (!times[device].empty() && t <= times[device].back()) {
        problem(line, tokens[k].column,
                fmt::format("device {}: times must increase, got {} after {}", device, t, times[device].back()));
        break;
      }
      times[device].push_back(t);
    }
  }
  for (std::size_t d = 0; d < times.size(); ++d)
    if (line_of[d] == 0) problem(0, 0, fmt::format("device {} of the group has no line", d));
  if (not_shown > 0)
    problems.push_back(Diagnostic{name, 0, 0, "", fmt::format("and {} more problems (the first {} are listed)", not_shown,
                                                             limits::diagnostics_per_file)});
  if (!problems.empty()) throw ConfigError(std::move(problems));
  return AvailabilityTrace(std::move(times));
}

}  // namespace edgetwin
