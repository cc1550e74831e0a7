#include "calibrate/app/placement_measurement.hpp"

#include "calibrate/app/profile_builder.hpp"
#include "calibrate/hardware/cpu_affinity.hpp"
#include "calibrate/hardware/placement_probe.hpp"

namespace edgetwin::calibrate {

void measure_process_placement(CostSpec& costs, int batch_size, double input_bytes_per_sample,
                               const CalibrationPlan& plan) {
  const double batch = batch_size;
  const double bytes = input_bytes_per_sample * batch;
  const double load_s = (costs.fetch_cpu_s_per_sample + costs.preprocess_cpu_s_per_sample +
                         costs.collate_cpu_s_per_sample) * batch + costs.send_cpu_s_per_batch;
  const double step_s = costs.compute.at(batch) + costs.receive_cpu_s_per_batch + costs.receive_cpu_s_per_byte * bytes +
                        costs.step_with_workers_s_per_batch + costs.step_with_workers_s_per_byte * bytes;
  const int cores = online_core_count();
  costs.placement_idle = placement_idle_points(measure_placement_idle(
      cores, plan.placement_prefetch_factors, load_s, step_s, plan.placement_run_s, plan.placement_repeats,
      WorkerKind::processes));
  costs.provenance.source += placement_idle_source(costs.placement_idle, "processes", load_s, step_s, cores,
                                                   static_cast<std::size_t>(plan.placement_repeats));
}

}  // namespace edgetwin::calibrate
