#include "sim/app/output_set.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "sim/app/output_file.hpp"

namespace edgetwin {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kStagingSuffix = ".tmpdir";

// dir without a trailing separator, so that its name is its last component.
fs::path normalised(const fs::path& dir) {
  fs::path d = dir.lexically_normal();
  if (!d.has_filename() && d.has_parent_path()) d = d.parent_path();
  return d;
}

fs::path parent_of(const fs::path& dir) { return dir.has_parent_path() ? dir.parent_path() : fs::path("."); }

std::string staging_prefix(const fs::path& dir) {
  std::string prefix = ".";  // built by appends: "." + s trips a false -Wrestrict in g++ 12
  prefix += dir.filename().string();
  prefix += ".edgetwin-";
  return prefix;
}

void remove_stale_staging(const fs::path& dir) {
  std::error_code ec;
  for (const fs::path& staging : leftovers_of_dead_processes(parent_of(dir), staging_prefix(dir), kStagingSuffix)) {
    fs::remove_all(staging, ec);
  }
}

[[noreturn]] void fail(const fs::path& path, const char* what, const std::error_code& ec) {
  throw OutputError(fmt::format("{}: {}: {}", path.string(), what, ec.message()));
}

void move_into_place(const fs::path& staging, const fs::path& dir, const std::map<std::string, std::string>& files) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    fs::rename(staging, dir, ec);
    if (ec) fail(dir, "cannot move the files into place", ec);
    return;
  }
  if (!fs::is_directory(dir, ec)) fail(dir, "cannot write the files here", std::make_error_code(std::errc::not_a_directory));
  for (const auto& [name, text] : files) {
    fs::rename(staging / name, dir / name, ec);
    if (ec) fail(dir / name, "cannot move into place", ec);
  }
  fs::remove(staging, ec);
}

}  // namespace

fs::path staging_directory_of(const fs::path& dir) {
  const fs::path d = normalised(dir);
  return parent_of(d) / (staging_prefix(d) + std::to_string(::getpid()) + std::string(kStagingSuffix));
}

void write_output_set(const fs::path& target, const std::map<std::string, std::string>& files) {
  const fs::path dir = normalised(target);
  // A name with a directory in it could be staged but not moved into place.
  for (const auto& [name, text] : files)
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
      throw OutputError(fmt::format("{}: cannot write \"{}\" there: not a plain file name", dir.string(), name));
  const HeldTerminationSignals held;
  std::error_code ec;
  fs::create_directories(parent_of(dir), ec);
  if (ec) fail(parent_of(dir), "cannot create the directory", ec);
  remove_stale_staging(dir);
  const fs::path staging = staging_directory_of(dir);
  fs::remove_all(staging, ec);
  fs::create_directory(staging, ec);
  if (ec) fail(staging, "cannot create the directory", ec);
  try {
    for (const auto& [name, text] : files) write_output_file(staging / name, text);
    move_into_place(staging, dir, files);
  } catch (...) {
    fs::remove_all(staging, ec);
    throw;
  }
}

}  // namespace edgetwin
