#include "calibrate/import/machine_terms.hpp"

#include <algorithm>
#include <array>
#include <sstream>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "calibrate/profile/profile_writer.hpp"
#include "calibrate/profile/toml_text.hpp"
#include "sim/config/worker_process_tables.hpp"

namespace edgetwin::calibrate {

namespace {

void take(std::string_view name, DerivedCosts& out) {
  out.from_device.emplace_back(name);
  std::erase(out.kept, std::string(name));
}

// The device's per-batch handoff terms hold at its batches' tensor count; a workload whose batches
// hold another count hands each over with that many more (or fewer) tensors' worth. Only the terms
// taken from the device are moved: a term the logs measured already holds at their count.
void move_to_the_workloads_tensors(const HandoffPerTensor& machine, double to_costs_clock, DerivedCosts& out) {
  const bool took_receive = listed(out.from_device, "receive_cpu_s_per_batch");
  const bool took_send = listed(out.from_device, "send_cpu_s_per_batch");
  if (!machine.measured() || (!took_receive && !took_send)) return;
  if (out.batch_tensors == 0) {
    out.notes.push_back(fmt::format("the traces do not log batch_tensors: the device's handoff terms are taken as they "
                                    "hold, for batches of {} tensors", machine.tensors_per_batch));
    return;
  }
  const int extra = out.batch_tensors - machine.tensors_per_batch;
  if (extra == 0) return;
  std::vector<std::string> moved;
  const auto move = [&](double CostSpec::*field, double per_tensor, const char* name) {
    const double before = out.costs.*field;
    out.costs.*field = std::max(0.0, before + extra * per_tensor * to_costs_clock);
    moved.push_back(fmt::format("{} {:.4g} -> {:.4g} s", name, before, out.costs.*field));
  };
  if (took_receive)
    move(&CostSpec::receive_cpu_s_per_batch, machine.receive_cpu_s_per_tensor, "receive_cpu_s_per_batch");
  if (took_send) move(&CostSpec::send_cpu_s_per_batch, machine.send_cpu_s_per_tensor, "send_cpu_s_per_batch");
  out.notes.push_back(fmt::format("the device's handoff terms hold for batches of {} tensors and these hold {}: {} "
                                  "(the device's per-tensor terms)", machine.tensors_per_batch, out.batch_tensors,
                                  fmt::join(moved, ", ")));
}

bool is_worker_processes_header(const std::string& line) {
  return line.starts_with("[worker_processes") || line.starts_with("[[worker_processes") ||
         line.starts_with("[provenance.worker_processes]");
}

}  // namespace

std::optional<WorkerProcessTerms> measured_worker_terms(const DerivedCosts& derived) {
  WorkerProcessTerms terms;
  terms.reference_cpu_freq_hz = derived.costs.reference_cpu_freq_hz;
  for (const WorkerProcessScalar& t : kWorkerProcessScalars) {
    if (!listed(derived.derived, t.name)) continue;
    terms.*t.machine = derived.costs.*t.costs;
    terms.measured.emplace_back(t.name);
  }
  if (listed(derived.derived, "step_share")) {
    terms.step_share = derived.costs.step_share;
    terms.measured.emplace_back("step_share");
  }
  if (listed(derived.derived, "placement_idle")) {
    terms.placement_idle = derived.costs.placement_idle;
    terms.measured.emplace_back("placement_idle");
  }
  if (derived.per_tensor.measured()) {
    terms.per_tensor = derived.per_tensor;
    terms.measured.insert(terms.measured.end(), kPerTensorTerms.begin(), kPerTensorTerms.end());
  }
  if (terms.measured.empty()) return std::nullopt;
  return terms;
}

void take_machine_terms(const WorkerProcessTerms& machine, DerivedCosts& out) {
  // Every scalar term is seconds the simulator turns into cycles at the costs' clock
  // (sim/model/work_model.cpp), so every one is rescaled with it.
  const double to_costs_clock = machine.reference_cpu_freq_hz / out.costs.reference_cpu_freq_hz;
  for (const WorkerProcessScalar& t : kWorkerProcessScalars) {
    if (!listed(machine.measured, t.name) || listed(out.derived, t.name)) continue;
    out.costs.*t.costs = machine.*t.machine * to_costs_clock;
    take(t.name, out);
  }
  if (listed(machine.measured, "step_share") && !listed(out.derived, "step_share")) {
    out.costs.step_share = machine.step_share;
    take("step_share", out);
  }
  if (listed(machine.measured, "placement_idle") && !listed(out.derived, "placement_idle")) {
    out.costs.placement_idle = machine.placement_idle;
    take("placement_idle", out);
  }
  move_to_the_workloads_tensors(machine.per_tensor, to_costs_clock, out);
  if (to_costs_clock != 1.0 && !out.from_device.empty()) {
    out.notes.push_back(fmt::format("the device's worker-process terms were measured at {} Hz and are rescaled to "
                                    "{} Hz (x {:.4g})",
                                    machine.reference_cpu_freq_hz, out.costs.reference_cpu_freq_hz, to_costs_clock));
  }
}

WorkerProcessTerms merged_with_device(const WorkerProcessTerms& measured,
                                      const std::optional<WorkerProcessTerms>& device) {
  if (!device) return measured;
  WorkerProcessTerms out = measured;
  std::vector<std::string> kept;
  const double to_measured_clock = device->reference_cpu_freq_hz / measured.reference_cpu_freq_hz;
  for (const WorkerProcessScalar& t : kWorkerProcessScalars) {
    if (!listed(device->measured, t.name) || listed(measured.measured, t.name)) continue;
    out.*t.machine = (*device).*t.machine * to_measured_clock;
    kept.emplace_back(t.name);
  }
  if (listed(device->measured, "step_share") && !listed(measured.measured, "step_share")) {
    out.step_share = device->step_share;
    kept.emplace_back("step_share");
  }
  if (listed(device->measured, "placement_idle") && !listed(measured.measured, "placement_idle")) {
    out.placement_idle = device->placement_idle;
    kept.emplace_back("placement_idle");
  }
  if (device->per_tensor.measured() && !measured.per_tensor.measured()) {
    out.per_tensor = device->per_tensor;
    out.per_tensor.receive_cpu_s_per_tensor *= to_measured_clock;
    out.per_tensor.send_cpu_s_per_tensor *= to_measured_clock;
    kept.insert(kept.end(), kPerTensorTerms.begin(), kPerTensorTerms.end());
  }
  if (kept.empty()) return out;
  out.measured.insert(out.measured.end(), kept.begin(), kept.end());
  const std::string rescaled =
      to_measured_clock == 1.0 ? ""
                               : fmt::format(", its CPU seconds rescaled from {} Hz (x {:.4g})",
                                             device->reference_cpu_freq_hz, to_measured_clock);
  out.provenance.source = fmt::format("{}: {}, and kept from the device's table before{} ({}: {}): {}",
                                      fmt::join(measured.measured, ", "), measured.provenance.source, rescaled,
                                      device->provenance.kind, device->provenance.source, fmt::join(kept, ", "));
  if (device->provenance.is_estimate()) out.provenance.kind = "estimate";
  return out;
}

std::string with_worker_processes(const std::string& device_text, const WorkerProcessTerms& terms) {
  // The device's text up to its own [worker_processes] tables (which this file wrote before and
  // which are left out) and everything else as it was, comments included.
  std::istringstream in(device_text);
  std::string out, line;
  bool skipping = false;
  while (std::getline(in, line)) {
    const std::string trimmed = line.substr(std::min(line.size(), line.find_first_not_of(" \t")));
    if (trimmed.starts_with("[")) skipping = is_worker_processes_header(trimmed);
    if (!skipping) out += line + '\n';
  }
  while (out.ends_with("\n\n")) out.pop_back();
  out += "\n[worker_processes]\n# What a DataLoader worker process costs on this machine, whatever the workload\n"
         "# (docs/explanation/import.md, *What belongs to the machine*); see [provenance.worker_processes].\n";
  out += fmt::format("reference_cpu_freq_hz = {}\n", toml_float(terms.reference_cpu_freq_hz));
  for (const WorkerProcessScalar& t : kWorkerProcessScalars) {
    if (listed(terms.measured, t.name)) out += fmt::format("{} = {}\n", t.name, toml_float(terms.*t.machine));
  }
  if (!terms.placement_idle.empty()) out += "placement_idle = " + placement_idle_array(terms.placement_idle) + "\n";
  if (!terms.step_share.empty()) out += "step_share = " + step_share_array(terms.step_share) + "\n";
  if (terms.per_tensor.measured()) {
    out += fmt::format("# The per-batch handoff terms hold for batches of tensors_per_batch tensors; "
                       "each more adds these.\n"
                       "tensors_per_batch = {}\nreceive_cpu_s_per_tensor = {}\nsend_cpu_s_per_tensor = {}\n",
                       terms.per_tensor.tensors_per_batch, toml_float(terms.per_tensor.receive_cpu_s_per_tensor),
                       toml_float(terms.per_tensor.send_cpu_s_per_tensor));
  }
  out += fmt::format("\n[provenance.worker_processes]\nkind = {}\nsource = {}\n", toml_string(terms.provenance.kind),
                     toml_string(terms.provenance.source));
  return out;
}

}  // namespace edgetwin::calibrate
