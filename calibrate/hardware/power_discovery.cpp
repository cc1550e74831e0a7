#include "calibrate/hardware/power_discovery.hpp"

#include <algorithm>

#include "calibrate/hardware/ina3221_hwmon_sensor.hpp"
#include "calibrate/hardware/ina3221_iio_sensor.hpp"
#include "calibrate/hardware/rapl_sensor.hpp"
#include "calibrate/hardware/sysfs_file.hpp"

namespace edgetwin::calibrate {

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> sorted_children(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

bool starts_with(const fs::path& p, std::string_view prefix) { return p.filename().string().rfind(prefix, 0) == 0; }

void add_iio(const fs::path& root, std::vector<std::unique_ptr<PowerSensor>>& out) {
  for (const auto& chip : sorted_children(root / "sys/bus/i2c/drivers/ina3221x")) {
    for (const auto& dev : sorted_children(chip)) {
      if (!starts_with(dev, "iio:device")) continue;
      auto sensor = std::make_unique<Ina3221IioSensor>(dev);
      if (!sensor->rails().empty()) out.push_back(std::move(sensor));
    }
  }
}

void add_hwmon(const fs::path& root, std::vector<std::unique_ptr<PowerSensor>>& out) {
  for (const auto& dir : sorted_children(root / "sys/class/hwmon")) {
    if (try_read_sysfs(dir / "name").value_or("") != "ina3221") continue;
    auto sensor = std::make_unique<Ina3221HwmonSensor>(dir);
    if (!sensor->rails().empty()) out.push_back(std::move(sensor));
  }
}

// energy_uj is root-only on current kernels; an unreadable zone counts as absent.
void add_rapl(const fs::path& root, std::vector<std::unique_ptr<PowerSensor>>& out) {
  std::vector<fs::path> zones;
  for (const auto& dir : sorted_children(root / "sys/class/powercap")) {
    if (!starts_with(dir, "intel-rapl:")) continue;
    if (try_read_sysfs(dir / "energy_uj") && try_read_sysfs(dir / "max_energy_range_uj")) zones.push_back(dir);
  }
  if (!zones.empty()) out.push_back(std::make_unique<RaplSensor>(zones));
}

}  // namespace

std::vector<std::unique_ptr<PowerSensor>> discover_power_sensors(const std::filesystem::path& root) {
  std::vector<std::unique_ptr<PowerSensor>> out;
  add_iio(root, out);
  add_hwmon(root, out);
  add_rapl(root, out);
  return out;
}

}  // namespace edgetwin::calibrate
