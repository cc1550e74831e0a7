// Fuzz target: a device file (docs/reference/schema.md, "Device"), beside the shipped media. A file the
// loader accepts must hold every range and rule of the schema, and each of its operating
// points must train the shipped LeNet-MNIST without anything degenerate reaching the engine.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_support.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/device_loader.hpp"
#include "sim/config/operating_point.hpp"

namespace {

using namespace edgetwin;

void check_operating_points(const DeviceSpec& device) {
  std::vector<OperatingPoint> points{max_operating_point(device)};
  for (const PowerModeSpec& mode : device.power_modes) points.push_back(mode_operating_point(device, mode));
  FUZZ_CHECK(custom_mode_count(device) >= 1, "no custom mode");
  const WorkloadSpec& workload = fuzz::shipped_workload("lenet-mnist");
  for (const OperatingPoint& point : points) fuzz::check_default_run(apply_operating_point(device, point), workload);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = fuzz::write_input("device.toml", data, size);
  DeviceSpec device;
  try {
    device = load_device(file);
  } catch (const ConfigError& e) {
    fuzz::check_diagnostics(e, {file}, fuzz::text_of(data, size));
    return 0;
  }
  fuzz::check_device(device);
  check_operating_points(device);
  return 0;
}
