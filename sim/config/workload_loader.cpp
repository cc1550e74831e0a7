#include "sim/config/workload_loader.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "sim/config/run_validator.hpp"
#include "sim/config/toml_reader.hpp"
#include "sim/config/worker_process_tables.hpp"

namespace edgetwin {
namespace {

constexpr std::array<std::string_view, 2> kLayouts{"in_ram", "file_per_sample"};

void read_identity(TomlReader& reader, WorkloadSpec& workload) {
  reader.read_name("workload.name", workload.name, Presence::required);
  reader.read_string("workload.description", workload.description, Presence::required);
  if (reader.contains("workload.model")) {  // the schema before the [model] table
    std::string old_model;
    reader.read_string("workload.model", old_model, Presence::optional);
    reader.add_error("workload.model", "no longer read: the model is the [model] table now (name, parameters, "
                                       "forward_flops_per_sample, training_flops_per_sample, "
                                       "memory_bytes_per_sample, kernels_per_step; docs/reference/schema.md)");
  }
}

struct OpClassField {
  std::string_view key;
  double OpClassCost::*member;
  std::string_view unit;
};

constexpr std::array<OpClassField, 5> kOpClassFields{{
    {"ops_per_sample", &OpClassCost::ops_per_sample, "operations/sample"},
    {"ops_per_step", &OpClassCost::ops_per_step, "operations/step"},
    {"bytes_per_sample", &OpClassCost::bytes_per_sample, "bytes/sample"},
    {"bytes_per_step", &OpClassCost::bytes_per_step, "bytes/step"},
    {"kernels_per_step", &OpClassCost::kernels_per_step, "kernels/step"},
}};

// [model.ops.<class>]: the census's per-class breakdown; every key of a class table is required.
void read_model_ops(TomlReader& reader, ModelSpec& model) {
  for (const std::string& name : reader.table_names("model.ops", Presence::optional)) {
    const std::string table = "model.ops." + name;
    const auto op_class = op_class_from_name(name);
    if (!op_class) {
      // Its keys are read (and dropped) so that the unknown class is the one problem reported.
      OpClassCost ignored;
      for (const OpClassField& field : kOpClassFields)
        reader.read_number(table + "." + std::string(field.key), ignored.*field.member, Presence::optional,
                           Bound::any, field.unit);
      reader.add_error(table, unknown_choice_message("class of operation", name, op_class_names()));
      continue;
    }
    OpClassCost cost;
    for (const OpClassField& field : kOpClassFields) {
      reader.read_number(table + "." + std::string(field.key), cost.*field.member, Presence::required,
                         Bound::non_negative, field.unit);
    }
    model.ops[*op_class] = cost;
  }
}

// [model]: what the network costs per sample, the basis of estimates for uncalibrated devices.
void read_model(TomlReader& reader, ModelSpec& model) {
  if (!reader.has("model")) {
    reader.add_error("model", "missing required table; expected [model] with name, parameters, "
                              "forward_flops_per_sample, training_flops_per_sample, memory_bytes_per_sample, "
                              "kernels_per_step");
  } else {
    reader.read_name("model.name", model.name, Presence::required);
    reader.read_count("model.parameters", model.parameters, Presence::required, Bound::positive, "parameters");
    bool forward_ok = reader.read_number("model.forward_flops_per_sample", model.forward_flops_per_sample,
                                         Presence::required, Bound::positive, "FLOP/sample");
    bool training_ok = reader.read_number("model.training_flops_per_sample", model.training_flops_per_sample,
                                          Presence::required, Bound::positive, "FLOP/sample");
    // A training step runs the forward pass and more.
    if (forward_ok && training_ok && model.training_flops_per_sample < model.forward_flops_per_sample) {
      reader.add_error("model.training_flops_per_sample",
                       fmt::format("expected at least model.forward_flops_per_sample ({} FLOP/sample), got {}",
                                   model.forward_flops_per_sample, model.training_flops_per_sample));
    }
    reader.read_number("model.memory_bytes_per_sample", model.memory_bytes_per_sample, Presence::required,
                       Bound::non_negative, "bytes/sample");
    reader.read_count("model.kernels_per_step", model.kernels_per_step, Presence::required, Bound::positive,
                      "kernels/step");
    read_model_ops(reader, model);
  }
  read_provenance(reader, "provenance.model", model.provenance);
}

void read_dataset(TomlReader& reader, DatasetSpec& dataset) {
  reader.read_name("dataset.name", dataset.name, Presence::required);
  reader.read_count("dataset.samples", dataset.samples, Presence::required, Bound::positive, "samples");
  reader.read_number("dataset.sample_bytes", dataset.sample_bytes, Presence::required, Bound::positive, "bytes");
  std::string layout;
  if (reader.read_choice("dataset.layout", layout, Presence::required, kLayouts)) {
    dataset.layout = layout == "in_ram" ? DatasetLayout::in_ram : DatasetLayout::file_per_sample;
  }
  reader.read_number("dataset.input_bytes_per_sample", dataset.input_bytes_per_sample, Presence::required,
                     Bound::positive, "bytes");
  read_provenance(reader, "provenance.dataset", dataset.provenance);
}

// Bounds are left to check_loader, so file and command line share one wording.
void read_loader(TomlReader& reader, LoaderSpec& loader, std::int64_t dataset_samples) {
  reader.read_count("loader.batch_size", loader.batch_size, Presence::optional, Bound::any, "samples");
  reader.read_count("loader.workers", loader.workers, Presence::optional, Bound::any, "worker processes");
  reader.read_count("loader.prefetch_factor", loader.prefetch_factor, Presence::optional, Bound::any,
                    "batches per worker");
  reader.read_bool("loader.persistent_workers", loader.persistent_workers, Presence::optional);
  reader.read_bool("loader.drop_last", loader.drop_last, Presence::optional);
  reader.read_bool("loader.shuffle", loader.shuffle, Presence::optional);
  for (const LoaderProblem& problem : check_loader(loader, dataset_samples)) {
    reader.add_error("loader." + problem.field, problem.message);
  }
}

// Returns whether the points make a curve: at least one, as many seconds as batch sizes,
// batch sizes strictly increasing (ComputeCurve::at relies on all three).
bool check_compute_points(TomlReader& reader, const std::vector<std::int64_t>& batch_sizes,
                          const std::vector<double>& seconds) {
  if (batch_sizes.empty()) {
    reader.add_error("costs.compute.batch_size", "expected at least one batch size (samples), got []");
    return false;
  }
  bool ok = true;
  if (seconds.size() != batch_sizes.size()) {
    reader.add_error("costs.compute.seconds", fmt::format("expected {} values (one per batch size), got {}",
                                                          batch_sizes.size(), seconds.size()));
    ok = false;
  }
  for (std::size_t i = 1; i < batch_sizes.size(); ++i) {
    if (batch_sizes[i] <= batch_sizes[i - 1]) {
      reader.add_error("costs.compute.batch_size",
                       fmt::format("expected strictly increasing batch sizes (samples), got {} after {}",
                                   batch_sizes[i], batch_sizes[i - 1]));
      return false;
    }
  }
  return ok;
}

// compute = { batch_size = [...], seconds = [...] }: seconds per batch at measured batch sizes.
void read_compute_curve(TomlReader& reader, ComputeCurve& curve) {
  std::vector<std::int64_t> batch_sizes;
  std::vector<double> seconds;
  bool sizes_ok = reader.read_counts("costs.compute.batch_size", batch_sizes, Presence::required, Bound::positive,
                                     "samples");
  bool seconds_ok = reader.read_numbers("costs.compute.seconds", seconds, Presence::required, Bound::positive,
                                        "s per batch");
  if (!sizes_ok || !seconds_ok || !check_compute_points(reader, batch_sizes, seconds)) return;
  curve.batch_sizes.assign(batch_sizes.begin(), batch_sizes.end());
  curve.seconds = seconds;
}

struct CostField {
  std::string_view key;
  double CostSpec::*member;
  std::string_view unit;
};

constexpr std::array<CostField, 5> kCpuCosts{{
    {"costs.fetch_cpu_s_per_sample", &CostSpec::fetch_cpu_s_per_sample, "s/sample"},
    {"costs.preprocess_cpu_s_per_sample", &CostSpec::preprocess_cpu_s_per_sample, "s/sample"},
    {"costs.collate_cpu_s_per_sample", &CostSpec::collate_cpu_s_per_sample, "s/sample"},
    {"costs.launch_cpu_s_per_batch", &CostSpec::launch_cpu_s_per_batch, "s/batch"},
    {"costs.worker_startup_cpu_s", &CostSpec::worker_startup_cpu_s, "s"},
}};

struct FootprintField {
  std::string_view key;
  double FootprintSpec::*member;
  std::string_view unit;
};

constexpr std::array<FootprintField, 5> kFootprintFields{{
    {"footprint.process_bytes", &FootprintSpec::process_bytes, "bytes"},
    {"footprint.model_bytes", &FootprintSpec::model_bytes, "bytes"},
    {"footprint.optimizer_bytes", &FootprintSpec::optimizer_bytes, "bytes"},
    {"footprint.activation_bytes_per_sample", &FootprintSpec::activation_bytes_per_sample, "bytes/sample"},
    {"footprint.worker_bytes", &FootprintSpec::worker_bytes, "bytes"},
}};

}  // namespace

// [[costs.cpu_step_scaling]]: one point per (threads, busy cores, batch size); a second point
// for the same three would make the lookup (sim/model/cpu_step_scaling.hpp) ambiguous.
void read_step_scaling(TomlReader& reader, std::vector<StepScalingPoint>& points) {
  for (const std::string& table : reader.table_array("costs.cpu_step_scaling", Presence::optional)) {
    StepScalingPoint p;
    std::int64_t batch_size = 0;
    bool ok = reader.read_count(table + ".threads", p.threads, Presence::required, Bound::positive,
                                "threads (0: every core)");
    ok &= reader.read_count(table + ".busy_cores", p.busy_cores, Presence::required, Bound::non_negative, "cores");
    ok &= reader.read_count(table + ".batch_size", batch_size, Presence::required, Bound::positive, "samples");
    ok &= reader.read_number(table + ".factor", p.factor, Presence::required, Bound::positive,
                             "times the compute curve's step");
    if (!ok) continue;
    p.batch_size = static_cast<double>(batch_size);
    const bool repeated = std::any_of(points.begin(), points.end(), [&](const StepScalingPoint& q) {
      return q.threads == p.threads && q.busy_cores == p.busy_cores && q.batch_size == p.batch_size;
    });
    if (repeated) {
      reader.add_error(table, fmt::format("a second point for {} thread(s), {} busy core(s), batch size {}; "
                                          "expected one", p.threads, p.busy_cores, batch_size));
      continue;
    }
    points.push_back(p);
  }
}

// [[costs.loader_scaling]]: one point per count of busy cores, kept in ascending order for
// the lookup (sim/model/loader_scaling.hpp).
void read_loader_scaling(TomlReader& reader, std::vector<LoaderScalingPoint>& points) {
  for (const std::string& table : reader.table_array("costs.loader_scaling", Presence::optional)) {
    LoaderScalingPoint p;
    bool ok = reader.read_count(table + ".busy_cores", p.busy_cores, Presence::required, Bound::positive, "cores");
    ok &= reader.read_number(table + ".factor", p.factor, Presence::required, Bound::positive,
                             "times the loader's time with the other cores idle");
    if (!ok) continue;
    const bool repeated = std::any_of(points.begin(), points.end(),
                                      [&](const LoaderScalingPoint& q) { return q.busy_cores == p.busy_cores; });
    if (repeated) {
      reader.add_error(table, fmt::format("a second point for {} busy core(s); expected one", p.busy_cores));
      continue;
    }
    points.push_back(p);
  }
  std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.busy_cores < b.busy_cores; });
}

// A miss's measured time belongs to the medium it was read from: without the medium's name
// it could not be kept off the others.
void read_miss_time(TomlReader& reader, CostSpec& costs) {
  reader.read_number("costs.miss_s_per_byte", costs.miss_s_per_byte, Presence::optional, Bound::non_negative,
                     "s/byte");
  reader.read_name("costs.miss_storage", costs.miss_storage, Presence::optional);
  if (costs.miss_s_per_byte > 0 && costs.miss_storage.empty()) {
    reader.add_error("costs.miss_storage", "missing; expected the name of the storage medium costs.miss_s_per_byte "
                                           "was measured on, as the device file's [storage.<name>] says it");
  }
}

void read_costs(TomlReader& reader, CostSpec& costs) {
  reader.read_name("costs.device", costs.device, Presence::required);
  reader.read_number("costs.reference_cpu_freq_hz", costs.reference_cpu_freq_hz, Presence::required,
                     Bound::positive, "Hz");
  reader.read_number("costs.reference_gpu_freq_hz", costs.reference_gpu_freq_hz, Presence::required,
                     Bound::non_negative, "Hz");
  reader.read_number("costs.reference_emc_freq_hz", costs.reference_emc_freq_hz, Presence::optional,
                     Bound::non_negative, "Hz");
  reader.read_number("costs.compute_memory_fraction", costs.compute_memory_fraction, Presence::optional,
                     Bound::fraction, "share of the compute step that scales with the memory clock");
  for (const CostField& field : kCpuCosts) {
    reader.read_number(field.key, costs.*field.member, Presence::required, Bound::non_negative, field.unit);
  }
  reader.read_number("costs.receive_cpu_s_per_batch", costs.receive_cpu_s_per_batch, Presence::optional,
                     Bound::non_negative, "s/batch");
  reader.read_number("costs.receive_cpu_s_per_byte", costs.receive_cpu_s_per_byte, Presence::optional,
                     Bound::non_negative, "s/byte");
  reader.read_number("costs.send_cpu_s_per_batch", costs.send_cpu_s_per_batch, Presence::optional,
                     Bound::non_negative, "s/batch");
  reader.read_number("costs.step_with_workers_s_per_batch", costs.step_with_workers_s_per_batch,
                     Presence::optional, Bound::non_negative, "s/batch");
  reader.read_number("costs.step_with_workers_s_per_byte", costs.step_with_workers_s_per_byte,
                     Presence::optional, Bound::non_negative, "s/byte");
  reader.read_number("costs.reclaim_cpu_s_per_byte", costs.reclaim_cpu_s_per_byte, Presence::optional,
                     Bound::non_negative, "s/byte");
  reader.read_number("costs.miss_cpu_s_per_byte", costs.miss_cpu_s_per_byte, Presence::optional,
                     Bound::non_negative, "s/byte");
  reader.read_number("costs.background_cpu_s_per_batch", costs.background_cpu_s_per_batch, Presence::optional,
                     Bound::non_negative, "s/batch");
  read_miss_time(reader, costs);
  reader.read_count("costs.compute_threads", costs.compute_threads, Presence::optional, Bound::non_negative,
                    "threads (0: every core)");
  read_compute_curve(reader, costs.compute);
  read_step_scaling(reader, costs.cpu_step_scaling);
  read_loader_scaling(reader, costs.loader_scaling);
  read_placement_idle(reader, "costs", costs.placement_idle);
  read_step_share(reader, "costs", costs.step_share);
  read_provenance(reader, "provenance.costs", costs.provenance);
}

void read_footprint(TomlReader& reader, FootprintSpec& footprint) {
  for (const FootprintField& field : kFootprintFields) {
    reader.read_number(field.key, footprint.*field.member, Presence::required, Bound::non_negative, field.unit);
  }
  reader.read_number("footprint.workspace_bytes_per_sample", footprint.workspace_bytes_per_sample, Presence::optional,
                     Bound::non_negative, "bytes/sample");
  reader.read_number("footprint.workspace_bytes", footprint.workspace_bytes, Presence::optional, Bound::non_negative,
                     "bytes");
  read_provenance(reader, "provenance.footprint", footprint.provenance);
}

WorkloadSpec load_workload(const std::filesystem::path& file) {
  TomlReader reader(file);
  WorkloadSpec workload;
  workload.source_file = file.string();
  workload.source = reader.source_map();
  read_identity(reader, workload);
  read_model(reader, workload.model_spec);
  workload.model = workload.model_spec.name;
  read_dataset(reader, workload.dataset);
  read_loader(reader, workload.loader, workload.dataset.samples);
  read_costs(reader, workload.costs);
  read_footprint(reader, workload.footprint);
  reader.finish();
  return workload;
}

}  // namespace edgetwin
