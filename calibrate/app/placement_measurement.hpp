// costs.placement_idle for a pipeline of worker processes, as the DataLoader's, measured on
// this machine at the costs' own times at one batch size (calibrate/hardware/placement_probe.hpp;
// docs/explanation/model.md, *Cores the kernel leaves idle*): a worker spins the loading (fetch, preprocess,
// collate) and the send, the trainer the receive, the step and its extra beside workers.
//
// Contract: measure_process_placement sets costs.placement_idle to each setting's median over
// the plan's placement_repeats runs of about placement_run_s at each of its
// placement_prefetch_factors, on the online cores, and appends what ran to the costs'
// provenance. For `edgetwin-calibrate import --measure-placement` and the PyTorch runner's
// calibration (validate/pytorch_calibration.hpp), whose costs come from Python traces.
#pragma once

#include "calibrate/app/calibration_plan.hpp"
#include "sim/config/specs.hpp"

namespace edgetwin::calibrate {

// input_bytes_per_sample prices the terms that grow with the batch's bytes (the receive's and
// the step's lengthening).
void measure_process_placement(CostSpec& costs, int batch_size, double input_bytes_per_sample,
                               const CalibrationPlan& plan);

}  // namespace edgetwin::calibrate
