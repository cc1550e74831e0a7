// The window extension against whole epochs: random configurations of several shipped devices
// and workloads, swept as `edgetwin sweep` does (a window of 200 batches per epoch, extended)
// and simulated in full, within the bounds docs/explanation/performance.md states (E2E 0.05 %, energy
// 0.25 %; E2E 0.5 % under page-cache pressure).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include <fmt/format.h>

#include "sim/app/sweep_runner.hpp"
#include "sim/config/operating_point.hpp"

namespace edgetwin::test {
namespace {

constexpr double kE2eBound = 0.05e-2;
constexpr double kEnergyBound = 0.25e-2;
// Peak power (the highest ~1 s average) is not extended: the window's own, or its steady span's
// average where the window is shorter than a second (sim/report/epoch_metrics.hpp). Checked on
// in-RAM datasets only: with files, the window's last ~1 s average can be far from any of the
// whole epoch's (docs/explanation/performance.md, the known limit of windowed peak power).
constexpr double kPeakPowerBound = 1e-2;  // measured: 0.85 % (Nano, LeNet-MNIST, 1 core)
// Where the dataset does not fit the page cache, the hits of an epoch follow the cache's
// evolution through it rather than a periodic steady state, which the window's rate misses:
// MobileNetV3 on the Nano with 0 workers, batch 32, from the SD card, over all 720 modes, is
// within 0.28 % (docs/explanation/performance.md).
constexpr double kE2eBoundUnderCachePressure = 0.5e-2;

struct Group {
  std::string device;
  std::string workload;
  int points;
  int epochs;
};

// A configuration drawn from the device's whole space: any mode (custom where the device lists
// clock steps), workers, batch size and storage.
std::vector<SweepPoint> random_points(const LoadedInputs& in, int count, std::mt19937_64& rng) {
  auto pick = [&rng](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  std::vector<std::pair<std::string, OperatingPoint>> modes;
  for (const auto& p : enumerate_custom_modes(in.device)) modes.emplace_back("custom", p);
  for (const auto& m : in.device.power_modes) modes.emplace_back(m.name, mode_operating_point(in.device, m));
  if (modes.empty()) modes.emplace_back("max", max_operating_point(in.device));
  const std::vector<int> workers{0, 1, 2, 4, 8};
  const std::vector<int> batches{16, 32, 64};
  std::vector<SweepPoint> points;
  for (int i = 0; i < count; ++i) {
    const auto& [name, point] = modes[pick(modes.size())];
    points.push_back({name, point, workers[pick(workers.size())], batches[pick(batches.size())],
                      in.device.storage[pick(in.device.storage.size())].name});
  }
  return points;
}

double relative(double approx, double exact) { return std::abs(approx - exact) / std::abs(exact); }

TEST(WindowExtension, RandomConfigurationsStayWithinTheDocumentedBounds) {
  const std::vector<Group> groups{{"agx-xavier", "resnet18-cifar10", 14, 1},
                                  {"jetson-nano", "lenet-mnist", 10, 1},
                                  {"xavier-nx", "mobilenetv3-gld23k", 10, 1},
                                  {"agx-orin", "lenet-jpeg-folder", 10, 1},
                                  {"jetson-nano", "resnet18-cifar10", 8, 3},
                                  {"agx-xavier", "mobilenetv3-gld23k", 8, 1},
                                  {"jetson-nano", "mobilenetv3-gld23k", 6, 2}};
  std::mt19937_64 rng(20261201);
  int compared = 0;
  double worst_e2e = 0;
  double worst_energy = 0;
  double worst_peak = 0;
  for (const Group& g : groups) {
    RunRequest request;
    request.device = g.device;
    request.workload = g.workload;
    request.epochs = g.epochs;
    const LoadedInputs in = load_inputs(request);
    const auto points = random_points(in, g.points, rng);
    SweepSettings windowed;
    windowed.progress = false;
    SweepSettings whole = windowed;
    whole.window_batches = 0;
    const auto approx = run_sweep(in, request, points, windowed);
    const auto exact = run_sweep(in, request, points, whole);
    for (std::size_t i = 0; i < points.size(); ++i) {
      const auto& p = points[i];
      const std::string where = fmt::format("{} {} {} {} cores, CPU {:.1f}, GPU {:.1f}, EMC {:.1f} MHz, w={} b={} {}",
                                            g.device, g.workload, p.mode, p.point.cores, p.point.cpu_hz / 1e6,
                                            p.point.gpu_hz / 1e6, p.point.emc_hz / 1e6, p.workers, p.batch_size,
                                            p.storage);
      ASSERT_EQ(approx[i].error, exact[i].error) << where;
      if (!exact[i].error.empty()) continue;
      const double e2e = relative(approx[i].stats.e2e_s, exact[i].stats.e2e_s);
      const double energy = relative(approx[i].stats.energy_j, exact[i].stats.energy_j);
      const double peak = relative(approx[i].stats.peak_power_w, exact[i].stats.peak_power_w);
      const double hit = exact[i].stats.cache_hit_ratio;
      EXPECT_LE(e2e, hit > 0 && hit < 1 ? kE2eBoundUnderCachePressure : kE2eBound) << where << ", hit ratio " << hit;
      EXPECT_LE(energy, kEnergyBound) << where << ", hit ratio " << hit;
      if (in.workload.dataset.layout == DatasetLayout::in_ram) {
        EXPECT_LE(peak, kPeakPowerBound) << where;
        worst_peak = std::max(worst_peak, peak);
      }
      worst_e2e = std::max(worst_e2e, e2e);
      worst_energy = std::max(worst_energy, energy);
      ++compared;
    }
  }
  EXPECT_GE(compared, 50);
  std::printf("compared %d configurations: worst E2E error %.4f %%, worst energy error %.4f %%, worst peak power "
              "error (in-RAM datasets) %.4f %%\n",
              compared, 100 * worst_e2e, 100 * worst_energy, 100 * worst_peak);
}

}  // namespace
}  // namespace edgetwin::test
