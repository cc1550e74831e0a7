// Fuzz target: a workload file (docs/reference/schema.md, "Workload"). A workload the loader accepts
// holds the schema's ranges, its compute curve gives positive times at any batch size, and it
// trains on a CPU-only and a GPU device (costs estimated where they were taken elsewhere)
// without anything degenerate reaching the engine.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_support.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/cost_estimator.hpp"
#include "sim/config/workload_loader.hpp"

namespace {

using namespace edgetwin;

void check_on(const std::string& device_name, WorkloadSpec workload) {
  const DeviceSpec& device = fuzz::shipped_device(device_name);
  if (workload.costs.device != device.name) {
    try {
      workload.costs = estimate_costs(fuzz::shipped_device("host-x86-2core"), workload, device);
    } catch (const ConfigError& e) {
      fuzz::check_diagnostics(e, {}, "");
      return;
    }
    // An estimate may leave the plausible ranges (a 10 GHz reference, a 1 MHz target); it
    // must still be a number of seconds, and the engine's gate judges the rest.
    const CostSpec& c = workload.costs;
    for (const double s : {c.fetch_cpu_s_per_sample, c.preprocess_cpu_s_per_sample, c.collate_cpu_s_per_sample,
                           c.launch_cpu_s_per_batch, c.worker_startup_cpu_s}) {
      FUZZ_CHECK(std::isfinite(s) && s >= 0, "an estimated cost that is no number of seconds");
    }
    for (const double s : c.compute.seconds) FUZZ_CHECK(std::isfinite(s) && s > 0, "an estimated step of no time");
  }
  fuzz::check_default_run(device, workload);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = fuzz::write_input("workload.toml", data, size);
  WorkloadSpec workload;
  try {
    workload = load_workload(file);
  } catch (const ConfigError& e) {
    fuzz::check_diagnostics(e, {file}, fuzz::text_of(data, size));
    return 0;
  }
  fuzz::check_workload(workload);
  check_on("host-x86-2core", workload);
  check_on("agx-xavier", workload);
  return 0;
}
