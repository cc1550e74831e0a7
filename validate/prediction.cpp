#include "validate/prediction.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/app/child_process.hpp"
#include "sim/config/run_validator.hpp"
#include "sim/model/simulation.hpp"
#include "sim/report/epoch_recorder.hpp"

namespace edgetwin::validate {

namespace {

// The child's side: the epochs, then the page cache the model gave the dataset.
std::string simulate_epochs(const PreparedRun& prepared) {
  Simulation simulation(prepared.device, prepared.workload, prepared.run);
  EpochRecorder recorder;
  simulation.add_observer(recorder);
  simulation.run();
  std::vector<PredictedEpoch> epochs;
  for (const EpochStats& e : recorder.epochs()) epochs.push_back({e.e2e_s, e.stall_s, e.compute_s, e.cache_hit_ratio});
  std::string bytes;
  append_records(bytes, epochs);
  append_records(bytes, std::vector<double>{simulation.page_cache_capacity_bytes()});
  return bytes;
}

RunRequest request_for(const RunRequest& base, const GridConfig& config) {
  RunRequest request = base;
  request.workers = config.loader.workers;
  request.batch_size = config.loader.batch_size;
  request.prefetch_factor = config.loader.prefetch_factor;
  request.cache = to_string(config.cache);
  if (config.cores > 0) request.cores = config.cores;
  return request;
}

}  // namespace

PreparedRun prepare_prediction(const RunRequest& base, const GridConfig& config, const PredictionAdjustments& adjust) {
  PreparedRun prepared = prepare_run(request_for(base, config));
  prepared.workload.dataset.samples = adjust.dataset.samples;
  prepared.workload.dataset.sample_bytes = adjust.dataset.mean_sample_bytes;
  prepared.device.memory.ram_bytes -= static_cast<double>(adjust.balloon_bytes);
  if (adjust.os_base_bytes) prepared.device.memory.os_base_bytes = *adjust.os_base_bytes;
  validate_run(prepared.run, prepared.device, prepared.workload);  // the batch must still fit the smaller dataset
  const Simulation check(prepared.device, prepared.workload, prepared.run);
  return prepared;
}

double measured_os_base_bytes(std::uint64_t mem_total_bytes, std::uint64_t mem_available_bytes,
                              std::uint64_t own_rss_bytes, bool runs_train_in_this_process) {
  const double used = static_cast<double>(mem_total_bytes) - static_cast<double>(mem_available_bytes);
  return std::max(0.0, used - (runs_train_in_this_process ? static_cast<double>(own_rss_bytes) : 0.0));
}

std::optional<std::string> clock_mismatch_note(double device_cpu_hz, double host_cpu_hz, const std::string& host_source) {
  constexpr double tolerance = 0.02;
  if (host_cpu_hz <= 0 || device_cpu_hz <= 0 || std::abs(host_cpu_hz / device_cpu_hz - 1) <= tolerance) return std::nullopt;
  return fmt::format("the device file's cpu.freq_hz ({:.4g} GHz) is not this host's clock ({:.4g} GHz, {}; {:+.1f} %): "
                     "the session's calibrations record the device's clock, so this host's seconds stand for the "
                     "device's; a profile edgetwin-calibrate run measured here records the host's clock, would be scaled "
                     "by {:.3f} in every prediction and is refused; predict this host with a device file of its own "
                     "(edgetwin-calibrate run --write-device)",
                     device_cpu_hz / 1e9, host_cpu_hz / 1e9, host_source, 100 * (host_cpu_hz / device_cpu_hz - 1),
                     host_cpu_hz / device_cpu_hz);
}

Prediction predict(const PreparedRun& prepared) {
  Prediction prediction;
  prediction.device_ram_bytes = prepared.device.memory.ram_bytes;
  try {
    const std::string bytes = run_in_child([&prepared] { return simulate_epochs(prepared); });
    ChildBytesReader reader(bytes);
    prediction.epochs = reader.records<PredictedEpoch>();
    prediction.page_cache_capacity_bytes = reader.records<double>().at(0);
  } catch (const ChildProcessError& e) {
    throw std::runtime_error(std::string("simulation failed: ") + e.what());
  }
  return prediction;
}

}  // namespace edgetwin::validate
