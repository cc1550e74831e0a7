#include "calibrate/import/predictable_profile.hpp"

#include "calibrate/profile/checked_output.hpp"
#include "calibrate/profile/profile_writer.hpp"
#include "sim/app/catalogue.hpp"
#include "sim/app/run_setup.hpp"
#include "sim/config/device_loader.hpp"

namespace edgetwin::calibrate {

ImportDevice import_device(const std::string& option, const WorkloadSpec& workload) {
  if (option.empty()) {
    const std::filesystem::path file = resolve_catalogue_file("devices", workload.costs.device);
    const DeviceSpec device = load_costs_device(workload);
    return {device.name, file, device.worker_processes};
  }
  const std::filesystem::path file = resolve_catalogue_file("devices", option);  // lists the shipped names
  const DeviceSpec device = load_device(file);
  return {device.name, file, device.worker_processes};
}

void write_predictable_profile(const std::filesystem::path& file, const ProfileDocument& document,
                               const ImportDevice& device, const std::filesystem::path& workload_file) {
  write_loaded_back(file, render_profile(document), [&](const std::filesystem::path& written) {
    RunRequest request;
    request.device = device.file.string();
    request.workload = workload_file.string();
    request.profile = written.string();
    check_run(request);
  });
}

}  // namespace edgetwin::calibrate
