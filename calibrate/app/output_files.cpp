#include "calibrate/app/output_files.hpp"

#include <functional>

#include <fmt/format.h>

#include "sim/config/config_error.hpp"
#include "sim/config/device_loader.hpp"
#include "sim/config/profile_loader.hpp"
#include "sim/config/workload_loader.hpp"
#include "sim/app/output_file.hpp"
#include "calibrate/profile/host_device_writer.hpp"
#include "calibrate/profile/profile_writer.hpp"

namespace edgetwin::calibrate {

namespace {

// The loader's problems name the file as it would be written: the temporary file beside it is
// gone by the time anyone reads the message.
ConfigError relabelled(const ConfigError& error, const std::filesystem::path& temporary,
                       const std::filesystem::path& file) {
  std::vector<Diagnostic> problems = error.diagnostics();
  for (Diagnostic& d : problems)
    if (d.file == temporary.string()) d.file = file.string() + " (not written)";
  return ConfigError(std::move(problems));
}

void write_checked(const std::filesystem::path& file, const std::string& text,
                   const std::function<void(const std::filesystem::path&)>& load) {
  OutputFile out(file);
  out.write(text);
  out.flush();
  try {
    load(out.temporary());
  } catch (const ConfigError& error) {
    throw relabelled(error, out.temporary(), file);
  }
  out.commit();
}

}  // namespace

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
