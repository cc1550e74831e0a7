#include "calibrate/app/output_files.hpp"

#include <functional>
#include <unistd.h>

#include <fmt/format.h>

#include "sim/config/config_error.hpp"
#include "sim/config/device_loader.hpp"
#include "sim/config/profile_loader.hpp"
#include "sim/config/workload_loader.hpp"
#include "calibrate/profile/atomic_file.hpp"
#include "calibrate/profile/host_device_writer.hpp"
#include "calibrate/profile/profile_writer.hpp"

namespace edgetwin::calibrate {

namespace {

void write_checked(const std::filesystem::path& file, const std::string& text,
                   const std::function<void(const std::filesystem::path&)>& load) {
  // Same directory as the target, so the final rename cannot cross file systems; .toml so the
  // loader treats it like the real file.
  const auto temp = file.parent_path() / fmt::format(".{}.check-{}.toml", file.filename().string(), ::getpid());
  try {
    if (!file.parent_path().empty()) std::filesystem::create_directories(file.parent_path());
    write_file_atomically(temp, text);
    load(temp);
    std::filesystem::rename(temp, file);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(temp, ec);
    throw;
  }
}

}  // namespace

void check_output_target(const std::filesystem::path& file, const std::string& option) {
  if (std::filesystem::is_directory(file)) {
    throw ConfigError({Diagnostic{file.string(), 0, 0, option, "is a directory; expected a file path"}});
  }
  std::filesystem::path dir = std::filesystem::absolute(file).parent_path();
  while (!std::filesystem::exists(dir) && dir.has_parent_path() && dir != dir.parent_path()) dir = dir.parent_path();
  if (!std::filesystem::is_directory(dir) || ::access(dir.c_str(), W_OK) != 0) {
    throw ConfigError({Diagnostic{file.string(), 0, 0, option,
                                  fmt::format("cannot create it: {} is not a writable directory", dir.string())}});
  }
}

void write_checked_profile(const std::filesystem::path& file, const ProfileDocument& document) {
  write_checked(file, render_profile(document), [](const std::filesystem::path& p) { (void)load_profile(p); });
}

void write_checked_device(const std::filesystem::path& file, const DeviceSpec& device) {
  write_checked(file, render_host_device(device), [](const std::filesystem::path& p) { (void)load_device(p); });
}

void write_checked_workload(const std::filesystem::path& file, const std::string& text) {
  write_checked(file, text, [](const std::filesystem::path& p) { (void)load_workload(p); });
}

}  // namespace edgetwin::calibrate
