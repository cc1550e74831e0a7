#include "sim/app/catalogue.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/app/data_dir.hpp"
#include "sim/config/config_error.hpp"

namespace edgetwin {
namespace {

std::filesystem::path catalogue_dir(const std::string& kind) { return data_dir() / kind; }

}  // namespace

std::vector<std::string> shipped_names(const std::string& kind) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(catalogue_dir(kind), ec))
    if (entry.path().extension() == ".toml") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::filesystem::path resolve_catalogue_file(const std::string& kind, const std::string& value) {
  std::error_code ec;  // a name too long for a path is simply not a file
  if (std::filesystem::is_regular_file(value, ec)) return value;
  const auto shipped = catalogue_dir(kind) / (value + ".toml");
  if (std::filesystem::is_regular_file(shipped, ec)) return shipped;
  if (value.find('/') != std::string::npos || value.ends_with(".toml")) return value;  // let the loader say "cannot open"
  throw ConfigError({Diagnostic{"", 0, 0, "--" + kind.substr(0, kind.size() - 1),
                                fmt::format("no file and no shipped {} named \"{}\"; shipped: {}", kind.substr(0, kind.size() - 1), value,
                                            fmt::join(shipped_names(kind), ", "))}});
}

}  // namespace edgetwin
