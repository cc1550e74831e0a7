#include "calibrate/app/output_files.hpp"

#include <fmt/format.h>

#include "sim/config/config_error.hpp"
#include "sim/config/device_loader.hpp"
#include "sim/config/profile_loader.hpp"
#include "sim/config/workload_loader.hpp"
#include "sim/app/output_file.hpp"
#include "calibrate/profile/checked_output.hpp"
#include "calibrate/profile/host_device_writer.hpp"
#include "calibrate/profile/profile_writer.hpp"

namespace edgetwin::calibrate {

void write_checked_profile(const std::filesystem::path& file, const ProfileDocument& document) {
  write_loaded_back(file, render_profile(document), [](const std::filesystem::path& p) { (void)load_profile(p); });
}

void write_checked_device(const std::filesystem::path& file, const DeviceSpec& device) {
  write_loaded_back(file, render_host_device(device), [](const std::filesystem::path& p) { (void)load_device(p); });
}

void write_checked_workload(const std::filesystem::path& file, const std::string& text) {
  write_loaded_back(file, text, [](const std::filesystem::path& p) { (void)load_workload(p); });
}

}  // namespace edgetwin::calibrate
