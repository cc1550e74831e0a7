// Power modes, custom clocks and first-principles cost estimates on the shipped catalogue.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/app/catalogue.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/cost_estimator.hpp"
#include "sim/config/device_loader.hpp"
#include "sim/config/operating_point.hpp"
#include "sim/config/workload_loader.hpp"

namespace edgetwin {
namespace {

DeviceSpec device(const std::string& name) { return load_device(resolve_catalogue_file("devices", name)); }
WorkloadSpec workload(const std::string& name) { return load_workload(resolve_catalogue_file("workloads", name)); }

std::string error_of(const DeviceSpec& d, const OperatingPointRequest& r) {
  try {
    resolve_operating_point(d, r);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(PowerModes, AgxXavierCustomSpaceIsTheStudys29232Modes) {
  const auto agx = device("agx-xavier");
  // 8 core counts x 29 CPU x 14 GPU x 9 EMC steps.
  EXPECT_EQ(custom_mode_count(agx), 29232);
  const auto modes = enumerate_custom_modes(agx);
  ASSERT_EQ(modes.size(), 29232u);
  EXPECT_EQ(modes.front().cores, 1);
  EXPECT_DOUBLE_EQ(modes.front().cpu_hz, 115.2e6);
  EXPECT_EQ(modes.back().cores, 8);
  EXPECT_DOUBLE_EQ(modes.back().emc_hz, 2.133e9);
}

TEST(PowerModes, NamedModeRunsAtTheStepsItsCapsAllow) {
  const auto agx = device("agx-xavier");
  // MODE_30W_ALL caps: 8 cores, CPU 1200, GPU 900, EMC 1600 MHz. Each clock runs at the
  // highest step at or below its cap, as cpufreq/devfreq do: CPU 1190.4, GPU 828.75 MHz.
  const auto p = resolve_operating_point(agx, {.power_mode = "MODE_30W_ALL"});
  EXPECT_EQ(p.cores, 8);
  EXPECT_DOUBLE_EQ(p.cpu_hz, 1190.4e6);
  EXPECT_DOUBLE_EQ(p.gpu_hz, 828.75e6);
  EXPECT_DOUBLE_EQ(p.emc_hz, 1600e6);
  const auto by_id = resolve_operating_point(agx, {.power_mode = "3"});
  EXPECT_DOUBLE_EQ(by_id.cpu_hz, p.cpu_hz);
}

TEST(PowerModes, DefaultModeIsTheDevicesDefault) {
  const auto nx = device("xavier-nx");
  const auto p = resolve_operating_point(nx, {});
  const auto* mode = find_power_mode(nx, nx.default_power_mode);
  ASSERT_NE(mode, nullptr);
  EXPECT_EQ(p.cores, mode->cores);
}

TEST(PowerModes, ExplicitValuesOverrideTheMode) {
  const auto agx = device("agx-xavier");
  const auto p = resolve_operating_point(agx, {.power_mode = "MAXN", .cores = 2, .cpu_hz = 1497.6e6});
  EXPECT_EQ(p.cores, 2);
  EXPECT_DOUBLE_EQ(p.cpu_hz, 1497.6e6);
  EXPECT_DOUBLE_EQ(p.gpu_hz, 1377e6);
}

TEST(PowerModes, UnknownModeListsTheValidOnes) {
  const auto message = error_of(device("agx-xavier"), {.power_mode = "TURBO"});
  EXPECT_NE(message.find("--power-mode: unknown power mode \"TURBO\""), std::string::npos) << message;
  EXPECT_NE(message.find("MAXN (0)"), std::string::npos) << message;
  EXPECT_NE(message.find("MODE_30W_2CORE (6)"), std::string::npos) << message;
}

TEST(PowerModes, FrequencyNotAStepSuggestsTheNearest) {
  // 1000 MHz lies between the 905.25 and 1032.75 MHz steps; the three nearest are listed.
  const auto message = error_of(device("agx-xavier"), {.gpu_hz = 1000e6});
  EXPECT_NE(message.find("--gpu-freq: GPU clock 1 GHz is not one of the device's steps; nearest: "
                         "828.75 MHz, 905.25 MHz, 1.03275 GHz"),
            std::string::npos)
      << message;
}

TEST(PowerModes, TooManyCoresAndClocksADeviceLacksAreRejected) {
  const auto agx = device("agx-xavier");
  EXPECT_NE(error_of(agx, {.cores = 9}).find("--cores: expected 1 to 8 cores, got 9"), std::string::npos);
  const auto host = device("host-x86-2core");
  EXPECT_NE(error_of(host, {.gpu_hz = 1e9}).find("--gpu-freq: host-x86-2core has no GPU"), std::string::npos);
  EXPECT_NE(error_of(host, {.emc_hz = 1e9}).find("has no settable memory clock"), std::string::npos);
}

TEST(PowerModes, MemoryBandwidthScalesWithTheMemoryClock) {
  const auto agx = device("agx-xavier");
  const auto slow = apply_operating_point(agx, {8, 2265.6e6, 1377e6, 1065.6e6});
  EXPECT_NEAR(slow.memory.bandwidth_bytes_per_s, agx.memory.bandwidth_bytes_per_s * 1065.6 / 2133.0, 1.0);
  EXPECT_EQ(slow.cpu.cores, 8);
  EXPECT_DOUBLE_EQ(slow.gpu->freq_hz, 1377e6);
}

TEST(PowerModes, FrequenciesParseWithUnits) {
  EXPECT_DOUBLE_EQ(*parse_frequency_hz("1377MHz"), 1377e6);
  EXPECT_DOUBLE_EQ(*parse_frequency_hz("1.377 GHz"), 1.377e9);
  EXPECT_DOUBLE_EQ(*parse_frequency_hz("1377000000"), 1377e6);
  EXPECT_DOUBLE_EQ(*parse_frequency_hz("115200kHz"), 115.2e6);
  EXPECT_FALSE(parse_frequency_hz("fast"));
  EXPECT_FALSE(parse_frequency_hz("12 parsecs"));
  EXPECT_FALSE(parse_frequency_hz("-5MHz"));
}

// ---- first-principles estimates --------------------------------------------------------

TEST(CostEstimate, IsMarkedAsAnEstimateForTheTargetDevice) {
  const auto costs = estimate_costs(device("host-x86-2core"), workload("resnet18-cifar10"), device("agx-xavier"));
  EXPECT_EQ(costs.device, "agx-xavier");
  EXPECT_TRUE(costs.provenance.is_estimate());
  EXPECT_NE(costs.provenance.source.find("estimated, not calibrated"), std::string::npos);
  EXPECT_DOUBLE_EQ(costs.reference_gpu_freq_hz, 1377e6);
  EXPECT_DOUBLE_EQ(costs.reference_cpu_freq_hz, 2265.6e6);
}

TEST(CostEstimate, CpuWorkScalesWithClockAndPerCycleSpeed) {
  const auto host = device("host-x86-2core");
  const auto nano = device("jetson-nano");
  const auto w = workload("lenet-mnist");
  const auto costs = estimate_costs(host, w, nano);
  // Seconds on the target = seconds on the host x (host clock x host IPC) / (target clock x IPC).
  const double scale = (w.costs.reference_cpu_freq_hz * host.cpu.ipc_relative) / (nano.cpu.freq_hz * nano.cpu.ipc_relative);
  EXPECT_NEAR(costs.preprocess_cpu_s_per_sample, w.costs.preprocess_cpu_s_per_sample * scale, 1e-15);
  EXPECT_NEAR(costs.fetch_cpu_s_per_sample, w.costs.fetch_cpu_s_per_sample * scale, 1e-15);
}

TEST(CostEstimate, GpuStepIsARooflinePerClassOfOperation) {
  // Two classes on a GPU of 1 TFLOP/s and 100 GB/s. A convolution of 1 GFLOP and 10 MB a
  // sample is compute-bound (1 ms > 0.1 ms) and reaches half its roofline; a norm of 1 MFLOP
  // and 50 MB a sample is memory-bound (0.5 ms > 1 us) at a quarter. At batch 2 the step is
  // 2 x 1 ms / 0.5 + 2 x 0.5 ms / 0.25 = 8 ms, plus 3 kernels x 5 us.
  ModelSpec m;
  m.ops[OpClass::conv] = {1e9, 0, 10e6, 0, 1};
  m.ops[OpClass::norm] = {1e6, 0, 50e6, 0, 2};
  const Roofline roofline{1e12, 100e9, {{OpClass::conv, 0.5}, {OpClass::norm, 0.25}}, 5e-6};
  const RooflineStep step = roofline_step(m, roofline, 2);
  EXPECT_NEAR(step.seconds, 8e-3 + 15e-6, 1e-12);
  EXPECT_NEAR(step.memory_bound_s, 4e-3, 1e-12);
  EXPECT_NEAR(step.class_s.at(OpClass::conv), 4e-3, 1e-12);
  // A per-step term (the update) does not grow with the batch.
  m.ops[OpClass::optimizer] = {0, 1e6, 0, 100e6, 1};
  EXPECT_NEAR(roofline_step(m, {1e12, 100e9, {}, 0}, 1).class_s.at(OpClass::optimizer), 1e-3, 1e-12);
}

TEST(CostEstimate, GpuStepFollowsTheDevicesRoofline) {
  const auto agx = device("agx-xavier");
  const auto w = workload("resnet18-cifar10");
  const auto costs = estimate_costs(device("host-x86-2core"), w, agx);
  const auto roofline = device_roofline(agx, 1);
  ASSERT_TRUE(roofline.has_value());
  EXPECT_DOUBLE_EQ(roofline->peak_ops_per_s, agx.gpu->fp32_flops_per_cycle * agx.gpu->freq_hz);
  EXPECT_NEAR(costs.compute.at(64), roofline_step(w.model_spec, *roofline, 64).seconds, 1e-12);
  // Per-sample cost falls with the batch (the per-kernel floor is shared) then levels off.
  EXPECT_GT(costs.compute.at(1) / 1, costs.compute.at(16) / 16);
  EXPECT_NEAR(costs.compute.at(512) / 512, costs.compute.at(256) / 256, 0.05 * costs.compute.at(256) / 256);
}

TEST(CostEstimate, LeNetStepIsLaunchBound) {
  // LeNet's step is dozens of tiny kernels: the CPU work of launching them exceeds the GPU time.
  const auto costs = estimate_costs(device("host-x86-2core"), workload("lenet-mnist"), device("agx-xavier"));
  EXPECT_GT(costs.launch_cpu_s_per_batch, costs.compute.at(16));
}

}  // namespace
}  // namespace edgetwin
