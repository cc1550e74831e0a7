#include "sim/model/engine_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "sim/config/input_limits.hpp"
#include "sim/model/power_model.hpp"
#include "sim/model/work_model.hpp"

namespace edgetwin {
namespace {

bool usable_speed(double speed) { return std::isfinite(speed) && speed > 0; }

class Checker {
 public:
  Checker(const DeviceSpec& device, const StorageSpec& storage, const WorkloadSpec& workload, const RunConfig& run)
      : device_(device), storage_(storage), workload_(workload), run_(run) {}

  std::vector<Diagnostic> problems() {
    check_speeds();
    if (!problems_.empty()) return problems_;  // the work below divides by them
    check_batches();
    if (device_.power) check_power();
    check_simulated_batches();
    return problems_;
  }

 private:
  void check_speed(const char* key, double speed) {
    if (usable_speed(speed)) return;
    problems_.push_back(device_.source.at(key, fmt::format("the simulation needs a finite positive speed here, got {}", speed)));
  }

  void check_speeds() {
    check_speed("cpu.freq_hz", device_.cpu.freq_hz);
    if (device_.gpu) check_speed("gpu.freq_hz", device_.gpu->freq_hz);
    check_speed("memory.bandwidth_bytes_per_s", device_.memory.bandwidth_bytes_per_s);
    const std::string storage_key = fmt::format("storage.{}.read_bw_bytes_per_s", storage_.name);
    check_speed(storage_key.c_str(), storage_.read_bw_bytes_per_s);
  }

  // One activity: `amount` of work at `speed`, for the message `what` of a batch of `samples`.
  void check_activity(double amount, double speed, const std::string& what, std::int64_t samples) {
    const double seconds = amount / speed;
    if (std::isfinite(seconds) && seconds >= 0 && seconds <= max_activity_s) return;
    problems_.push_back(workload_.source.at(
        "costs", fmt::format("one batch of {} samples needs {} s of {} on {} (from these costs, the dataset and the "
                             "device's clocks); the simulation takes activities of 0 to {:g} s (a year)",
                             samples, seconds, what, device_.name, max_activity_s)));
  }

  void check_batch(const WorkModel& work, std::int64_t samples) {
    const BatchWork w = work.batch(static_cast<int>(samples));
    const double cpu = device_.cpu.freq_hz;
    const double n = static_cast<double>(samples);
    check_activity(w.loader_cpu_cycles(), cpu, "loader CPU work", samples);
    check_activity(w.receive_cpu_cycles + w.launch_cpu_cycles + w.step_with_workers_cycles, cpu, "trainer CPU work",
                   samples);
    check_activity(w.cpu_compute_cycles_per_thread * largest_step_factor() + w.step_with_workers_cycles, cpu,
                   "CPU training step", samples);
    check_activity(w.h2d_s, 1.0, "host-to-device copy", samples);
    if (device_.gpu) check_activity(w.gpu_cycles, device_.gpu->freq_hz, "GPU training step", samples);
    check_activity(work.storage_work_per_miss() * n, storage_.read_bw_bytes_per_s, "storage reads", samples);
    check_activity(work.memory_bytes_per_hit() * n, device_.memory.bandwidth_bytes_per_s, "page-cache reads", samples);
  }

  // The most a measured contention factor stretches a CPU step (cpu_step_scaling; 1 without).
  double largest_step_factor() const {
    double largest = 1;
    for (const auto& p : workload_.costs.cpu_step_scaling) largest = std::max(largest, p.factor);
    return largest;
  }

  void check_batches() {
    const WorkModel work(device_, workload_, storage_);
    const std::int64_t size = run_.loader.batch_size;
    const std::int64_t samples = workload_.dataset.samples;
    check_batch(work, size);
    if (const std::int64_t last = samples % size; last > 0 && !run_.loader.drop_last) check_batch(work, last);
    check_activity(work.worker_startup_cycles(), device_.cpu.freq_hz, "worker start-up", size);
  }

  // "1:1:3.2, 0.5:0.5:2" (sim/model/power_model.hpp): every figure finite and non-negative.
  void check_watts(const HostPower& host, const char* part) {
    const char* text = host.wattage.c_str();
    for (char* end = nullptr;; text = end + 1) {
      const double watts = std::strtod(text, &end);
      if (end == text) break;
      if (!std::isfinite(watts) || watts < 0) {
        problems_.push_back(device_.source.at("power", fmt::format("the {} would draw {} W at this operating point; "
                                                                   "expected a finite non-negative power", part, watts)));
        return;
      }
      if (*end == '\0') break;
    }
    for (const double speed : host.speeds)
      if (!usable_speed(speed)) check_speed("power", speed);
  }

  void check_power() {
    const PowerModel power(device_, storage_, run_.pstate_per_step);
    check_watts(power.cpu(), "CPU");
    if (device_.gpu) check_watts(power.gpu(), "GPU");
    check_watts(power.memory(), "memory and board");
    check_watts(power.storage(), "storage");
  }

  // Epochs x their batches (or their windows), or the steps; `runs` times over.
  void check_simulated_batches() {
    const std::int64_t size = run_.loader.batch_size;
    const std::int64_t samples = workload_.dataset.samples;
    const std::int64_t per_epoch = run_.loader.drop_last ? samples / size : (samples + size - 1) / size;
    const std::int64_t simulated = run_.window_batches > 0 ? std::min(per_epoch, run_.window_batches + std::max(1, run_.loader.workers))
                                                          : per_epoch;
    const double one_run = run_.steps > 0 ? static_cast<double>(run_.steps) : static_cast<double>(simulated) * run_.epochs;
    const double total = one_run * std::max(1, run_.runs);
    if (total <= static_cast<double>(limits::simulated_batches)) return;
    const std::string parts = run_.steps > 0 ? fmt::format("{} steps", run_.steps)
                                             : fmt::format("{} epochs x {} batches", run_.epochs, simulated);
    problems_.push_back(Diagnostic{"", 0, 0, run_.steps > 0 ? "steps" : "--epochs",
                                   fmt::format("the run would simulate {:.0f} batches ({}{}), more than {} (hours of "
                                               "simulation; sim/config/input_limits.hpp); use fewer epochs or steps or "
                                               "a larger batch size",
                                               total, parts, run_.runs > 1 ? fmt::format(", {} times", run_.runs) : "",
                                               limits::simulated_batches)});
  }

  const DeviceSpec& device_;
  const StorageSpec& storage_;
  const WorkloadSpec& workload_;
  const RunConfig& run_;
  std::vector<Diagnostic> problems_;
};

}  // namespace

std::vector<Diagnostic> engine_input_problems(const DeviceSpec& device, const StorageSpec& storage,
                                              const WorkloadSpec& workload, const RunConfig& run) {
  return Checker(device, storage, workload, run).problems();
}

}  // namespace edgetwin
