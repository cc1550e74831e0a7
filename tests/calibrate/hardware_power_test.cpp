// Power sensors on fake sysfs trees (JetPack 4 iio, JetPack 5 hwmon, RAPL with wraparound),
// energy integration against closed forms, and "no power sensor" without inventing numbers.
#include <thread>

#include <gtest/gtest.h>

#include "calibrate/hardware/power_discovery.hpp"
#include "calibrate/hardware/power_sampler.hpp"
#include "calibrate/hardware/rapl_sensor.hpp"
#include "tests/calibrate/io_test_support.hpp"

namespace edgetwin::calibrate {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::TempDir;
using testing::write_text;

const char* const kIioDir = "sys/bus/i2c/drivers/ina3221x/1-0040/iio:device0";

void make_iio(const fs::path& root) {
  const fs::path dir = root / kIioDir;
  write_text(dir / "rail_name_0", "GPU\n");
  write_text(dir / "in_power0_input", "5000\n");  // mW
  write_text(dir / "rail_name_1", "CPU\n");
  write_text(dir / "in_power1_input", "1500\n");
  write_text(dir / "rail_name_2", "SOC\n");
  write_text(dir / "in_power2_input", "750\n");
}

TEST(PowerSensors, JetPack4IioRailsInWatts) {
  TempDir root;
  make_iio(root.path());
  auto sensors = discover_power_sensors(root.path());
  ASSERT_EQ(sensors.size(), 1u);
  EXPECT_EQ(sensors[0]->kind(), "ina3221-iio");
  EXPECT_EQ(sensors[0]->rails(), (std::vector<std::string>{"GPU", "CPU", "SOC"}));
  EXPECT_EQ(sensors[0]->read_watts(PowerClock::now()), (std::vector<double>{5.0, 1.5, 0.75}));
}

TEST(PowerSensors, JetPack5HwmonPowerIsVoltsTimesAmps) {
  TempDir root;
  const fs::path dir = root / "sys/class/hwmon/hwmon1";
  write_text(dir / "name", "ina3221\n");
  write_text(dir / "in1_label", "VDD_IN\n");
  write_text(dir / "in1_input", "5080\n");   // mV
  write_text(dir / "curr1_input", "1240\n");  // mA
  write_text(dir / "in2_label", "VDD_CPU_GPU_CV\n");
  write_text(dir / "in2_input", "5072\n");
  write_text(dir / "curr2_input", "400\n");
  write_text(root / "sys/class/hwmon/hwmon0/name", "thermal\n");  // not a power monitor
  auto sensors = discover_power_sensors(root.path());
  ASSERT_EQ(sensors.size(), 1u);
  EXPECT_EQ(sensors[0]->kind(), "ina3221-hwmon");
  EXPECT_EQ(sensors[0]->rails(), (std::vector<std::string>{"VDD_IN", "VDD_CPU_GPU_CV"}));
  const auto watts = sensors[0]->read_watts(PowerClock::now());
  EXPECT_DOUBLE_EQ(watts[0], 5.080 * 1.240);
  EXPECT_DOUBLE_EQ(watts[1], 5.072 * 0.400);
}

TEST(PowerSensors, RaplDeltaWrapsAtTheRange) {
  EXPECT_EQ(rapl_delta_uj(100, 350, 1000), 250u);
  EXPECT_EQ(rapl_delta_uj(900, 100, 1000), 200u);  // 900 -> 1000 wraps to 0 -> 100
}

TEST(PowerSensors, RaplMeanPowerOverTheIntervalAcrossAWrap) {
  TempDir root;
  const fs::path zone = root / "sys/class/powercap/intel-rapl:0";
  write_text(zone / "name", "package-0\n");
  write_text(zone / "max_energy_range_uj", "1000000\n");
  write_text(zone / "energy_uj", "900000\n");
  auto sensors = discover_power_sensors(root.path());
  ASSERT_EQ(sensors.size(), 1u);
  EXPECT_EQ(sensors[0]->rails(), std::vector<std::string>{"package-0"});
  const auto t0 = PowerClock::now();
  sensors[0]->begin(t0);
  write_text(zone / "energy_uj", "100000\n");  // 200000 uJ later, after a wrap
  const auto watts = sensors[0]->read_watts(t0 + 2s);
  EXPECT_DOUBLE_EQ(watts[0], 0.2 / 2.0);  // 0.2 J over 2 s
}

TEST(PowerSensors, NoSensorIsReportedAndNothingInvented) {
  TempDir root;
  EXPECT_TRUE(discover_power_sensors(root.path()).empty());
  PowerSampler sampler(discover_power_sensors(root.path()), 10ms);
  EXPECT_FALSE(sampler.available());
  EXPECT_EQ(sampler.status(), "no power sensor");
  sampler.start();
  sampler.stop();
  EXPECT_TRUE(sampler.samples().empty());
  EXPECT_FALSE(sampler.energy_j().has_value());
}

// Constant power p over samples at t_1..t_n: E = p * t_n.
TEST(EnergyIntegration, ConstantPowerGivesPowerTimesDuration) {
  std::vector<PowerSample> samples;
  for (int i = 1; i <= 10; ++i) samples.push_back({0.5 * i, {2.0, 3.0}});
  const auto e = integrate_energy_j(samples, 2);
  EXPECT_DOUBLE_EQ(e[0], 2.0 * 5.0);
  EXPECT_DOUBLE_EQ(e[1], 3.0 * 5.0);
}

// p_i = t_i with t_i = i * dt: E = sum_i (i dt) dt = dt^2 n (n + 1) / 2, the study's
// left-open rectangle sum (not the trapezoid's dt^2 n^2 / 2).
double expected_ramp_energy_j(int n, double dt) { return dt * dt * n * (n + 1) / 2.0; }

TEST(EnergyIntegration, RampMatchesTheRectangleSum) {
  std::vector<PowerSample> samples;
  const double dt = 0.25;
  for (int i = 1; i <= 40; ++i) samples.push_back({i * dt, {i * dt}});
  EXPECT_NEAR(integrate_energy_j(samples, 1)[0], expected_ramp_energy_j(40, dt), 1e-12);
}

TEST(PowerSampler, SamplesOnItsPeriodAndIntegratesToTheLastSample) {
  TempDir root;
  make_iio(root.path());
  PowerSampler sampler(discover_power_sensors(root.path()), 10ms);
  ASSERT_TRUE(sampler.available());
  EXPECT_EQ(sampler.status(), "ina3221-iio: GPU, CPU, SOC");
  sampler.start();
  std::this_thread::sleep_for(120ms);
  sampler.stop();
  const auto samples = sampler.samples();
  ASSERT_GE(samples.size(), 5u);
  for (std::size_t i = 1; i < samples.size(); ++i) EXPECT_GT(samples[i].t_s, samples[i - 1].t_s);
  const auto energy = *sampler.energy_j();
  // Constant rails: E = p * t_last (the final sample is taken at stop()).
  EXPECT_NEAR(energy[0], 5.0 * samples.back().t_s, 1e-9);
  EXPECT_NEAR(energy[2], 0.75 * samples.back().t_s, 1e-9);
  EXPECT_GE(samples.back().t_s, 0.12);
}

}  // namespace
}  // namespace edgetwin::calibrate
