// What belongs to the machine, not the workload: the costs of DataLoader worker processes
// (sim/config/specs.hpp, WorkerProcessTerms). An import with worker traces measures them once
// per machine and writes them to the device file's [worker_processes] (import --device-out); an
// import whose traces have no workers (a study's num_workers = 0 logs) then takes them from
// the device instead of keeping the workload's guesses. docs/explanation/import.md, *What
// belongs to the machine*.
#pragma once

#include <optional>
#include <string>

#include "calibrate/import/cost_derivation.hpp"
#include "sim/config/specs.hpp"

namespace edgetwin::calibrate {

// The worker-process terms the logs measured (DerivedCosts::derived), at the costs' clock;
// nullopt when they measured none. The caller writes the provenance.
std::optional<WorkerProcessTerms> measured_worker_terms(const DerivedCosts& derived);

// Every worker-process term the device holds and the logs did not measure is taken from the
// device: its CPU seconds rescaled from the device's reference clock to the costs' (s x f_device
// / f_costs, as the simulator turns seconds into cycles), shares and idle core time as they are.
// Each term taken is listed in out.from_device. A receive and a send taken hold for the device's
// tensors a batch; where the traces log another count (out.batch_tensors), they move by the
// difference times the device's per-tensor terms, with a note (HandoffPerTensor).
void take_machine_terms(const WorkerProcessTerms& machine, DerivedCosts& out);

// What import --device-out writes: the terms this import measured, and every term the device
// held that it did not measure, kept (its CPU seconds rescaled to the measured terms' clock). The
// provenance names which terms came from which import; a kept estimate makes the whole an estimate.
WorkerProcessTerms merged_with_device(const WorkerProcessTerms& measured,
                                      const std::optional<WorkerProcessTerms>& device);

// A device file's text with `terms` as its [worker_processes] table (and
// [provenance.worker_processes]) in place of any it had: what import --device-out writes.
std::string with_worker_processes(const std::string& device_text, const WorkerProcessTerms& terms);

}  // namespace edgetwin::calibrate
