#include "calibrate/profile/profile_writer.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/app/output_file.hpp"
#include "calibrate/profile/toml_text.hpp"

namespace edgetwin::calibrate {

namespace {

std::string key_value(std::string_view key, const std::string& value) { return fmt::format("{} = {}\n", key, value); }

std::string provenance_inline(const Provenance& p) {
  return fmt::format("{{ kind = {}, source = {} }}", toml_string(p.kind), toml_string(p.source));
}

void check(const ProfileDocument& doc) {
  const ProfileSpec& p = doc.profile;
  // The loader refuses empty required strings; refuse them here, before anything is written.
  const std::pair<const char*, const std::string*> required[] = {
      {"profile.device", &p.device},   {"profile.workload", &p.workload},
      {"profile.created", &p.created}, {"profile.command", &p.command},
      {"costs.device", &p.costs.device}, {"provenance.costs.source", &p.costs.provenance.source}};
  for (const auto& [key, value] : required) {
    if (value->empty()) throw std::invalid_argument(fmt::format("profile: {} must not be empty", key));
  }
  if (p.costs.miss_s_per_byte != 0 && p.costs.miss_storage.empty())
    throw std::invalid_argument("profile: costs.miss_s_per_byte needs costs.miss_storage, the medium it was measured on");
  const ComputeCurve& c = p.costs.compute;
  if (c.batch_sizes.empty() || c.batch_sizes.size() != c.seconds.size()) {
    throw std::invalid_argument(fmt::format("profile: compute curve needs equal, non-zero lengths, got {} batch sizes and {} seconds",
                                            c.batch_sizes.size(), c.seconds.size()));
  }
  if (toml_number_array(c.batch_sizes).find('.') != std::string::npos) {
    throw std::invalid_argument("profile: compute batch sizes must be whole numbers");
  }
  for (const Measurement& m : doc.measurements) {
    // The loader takes measurement names as plain TOML keys only.
    if (m.name.empty() || toml_key(m.name) != m.name) {
      throw std::invalid_argument(fmt::format("profile: measurement name \"{}\" must be letters, digits, '-' and '_' only", m.name));
    }
  }
  if (p.costs.provenance.kind.empty()) throw std::invalid_argument("profile: costs provenance kind is empty");
  if (p.footprint && p.footprint->provenance.kind.empty()) {
    throw std::invalid_argument("profile: footprint provenance kind is empty");
  }
}

std::string profile_section(const ProfileSpec& p) {
  return std::string("[profile]\n") + key_value("device", toml_string(p.device)) + key_value("workload", toml_string(p.workload)) +
         key_value("created", toml_string(p.created)) + key_value("command", toml_string(p.command));
}

// Memory-clock terms are written only when measured (non-zero): 0 is their default in
// specs.hpp, and loaders that predate them then still read the file.
std::string memory_clock_keys(const CostSpec& c) {
  std::string out;
  if (c.reference_emc_freq_hz != 0) out += key_value("reference_emc_freq_hz", toml_float(c.reference_emc_freq_hz));
  if (c.compute_memory_fraction != 0) out += key_value("compute_memory_fraction", toml_float(c.compute_memory_fraction));
  return out;
}

// The optional measured terms (sim/config/specs.hpp): written only when measured, so that a
// profile without them reads back to the model that predates them.
std::string measured_terms(const CostSpec& c) {
  std::string out;
  if (c.receive_cpu_s_per_byte != 0) out += key_value("receive_cpu_s_per_byte", toml_float(c.receive_cpu_s_per_byte));
  if (c.send_cpu_s_per_batch != 0) out += key_value("send_cpu_s_per_batch", toml_float(c.send_cpu_s_per_batch));
  if (c.reclaim_cpu_s_per_byte != 0) out += key_value("reclaim_cpu_s_per_byte", toml_float(c.reclaim_cpu_s_per_byte));
  if (c.miss_cpu_s_per_byte != 0) out += key_value("miss_cpu_s_per_byte", toml_float(c.miss_cpu_s_per_byte));
  if (c.miss_s_per_byte != 0) {
    out += key_value("miss_s_per_byte", toml_float(c.miss_s_per_byte));
    out += key_value("miss_storage", toml_string(c.miss_storage));
  }
  if (c.background_cpu_s_per_batch != 0)
    out += key_value("background_cpu_s_per_batch", toml_float(c.background_cpu_s_per_batch));
  if (c.step_with_workers_s_per_batch != 0)
    out += key_value("step_with_workers_s_per_batch", toml_float(c.step_with_workers_s_per_batch));
  if (c.step_with_workers_s_per_byte != 0)
    out += key_value("step_with_workers_s_per_byte", toml_float(c.step_with_workers_s_per_byte));
  if (!c.cpu_step_scaling.empty()) {
    std::vector<std::string> points;
    for (const StepScalingPoint& p : c.cpu_step_scaling) {
      points.push_back(fmt::format("{{ threads = {}, busy_cores = {}, batch_size = {}, factor = {} }}", p.threads,
                                   p.busy_cores, static_cast<std::int64_t>(p.batch_size), toml_float(p.factor)));
    }
    out += key_value("cpu_step_scaling", fmt::format("[{}]", fmt::join(points, ", ")));
  }
  if (!c.loader_scaling.empty()) {
    std::vector<std::string> points;
    for (const LoaderScalingPoint& p : c.loader_scaling)
      points.push_back(fmt::format("{{ busy_cores = {}, factor = {} }}", p.busy_cores, toml_float(p.factor)));
    out += key_value("loader_scaling", fmt::format("[{}]", fmt::join(points, ", ")));
  }
  if (!c.placement_idle.empty()) out += key_value("placement_idle", placement_idle_array(c.placement_idle));
  if (!c.step_share.empty()) out += key_value("step_share", step_share_array(c.step_share));
  return out;
}

std::string costs_section(const CostSpec& c) {
  return std::string("\n[costs]\n") + key_value("device", toml_string(c.device)) +
         key_value("reference_cpu_freq_hz", toml_float(c.reference_cpu_freq_hz)) +
         key_value("reference_gpu_freq_hz", toml_float(c.reference_gpu_freq_hz)) + memory_clock_keys(c) +
         key_value("fetch_cpu_s_per_sample", toml_float(c.fetch_cpu_s_per_sample)) +
         key_value("preprocess_cpu_s_per_sample", toml_float(c.preprocess_cpu_s_per_sample)) +
         key_value("collate_cpu_s_per_sample", toml_float(c.collate_cpu_s_per_sample)) +
         key_value("launch_cpu_s_per_batch", toml_float(c.launch_cpu_s_per_batch)) +
         (c.receive_cpu_s_per_batch != 0 ? key_value("receive_cpu_s_per_batch", toml_float(c.receive_cpu_s_per_batch))
                                         : std::string()) +
         (c.compute_threads != 0 ? key_value("compute_threads", std::to_string(c.compute_threads)) : std::string()) +
         key_value("worker_startup_cpu_s", toml_float(c.worker_startup_cpu_s)) +
         key_value("compute", fmt::format("{{ batch_size = {}, seconds = {} }}", toml_number_array(c.compute.batch_sizes),
                                          toml_float_array(c.compute.seconds))) +
         measured_terms(c);
}

std::string footprint_section(const FootprintSpec& f) {
  return std::string("\n[footprint]\n") + key_value("process_bytes", toml_float(f.process_bytes)) +
         key_value("model_bytes", toml_float(f.model_bytes)) + key_value("optimizer_bytes", toml_float(f.optimizer_bytes)) +
         key_value("activation_bytes_per_sample", toml_float(f.activation_bytes_per_sample)) +
         (f.workspace_bytes_per_sample != 0
              ? key_value("workspace_bytes_per_sample", toml_float(f.workspace_bytes_per_sample))
              : std::string()) +
         (f.workspace_bytes != 0 ? key_value("workspace_bytes", toml_float(f.workspace_bytes)) : std::string()) +
         key_value("worker_bytes", toml_float(f.worker_bytes));
}

std::string provenance_section(const ProfileDocument& doc) {
  std::string out = std::string("\n[provenance]\n") + key_value("costs", provenance_inline(doc.profile.costs.provenance));
  if (doc.profile.footprint) out += key_value("footprint", provenance_inline(doc.profile.footprint->provenance));
  const ProfileProvenance& p = doc.provenance;
  if (!p.host.empty()) out += key_value("host", toml_string(p.host));
  if (!p.cpu_model.empty()) out += key_value("cpu_model", toml_string(p.cpu_model));
  if (p.cores > 0) out += key_value("cores", fmt::format("{}", p.cores));
  if (!p.libtorch_version.empty()) out += key_value("libtorch_version", toml_string(p.libtorch_version));
  // Power is not part of the profile schema the simulator validates; a comment keeps the
  // "no power sensor" statement visible without inventing a key.
  if (!p.power.empty()) out += fmt::format("# power: {}\n", p.power);
  return out;
}

std::string measurement_section(const Measurement& m) {
  return fmt::format("\n[measurements.{}]\n", m.name) + key_value("median", toml_float(m.median)) +
         key_value("p10", toml_float(m.p10)) + key_value("p90", toml_float(m.p90)) +
         key_value("repetitions", fmt::format("{}", m.repetitions)) + key_value("unit", toml_string(m.unit));
}

}  // namespace

std::string placement_idle_array(const std::vector<PlacementIdlePoint>& points) {
  std::vector<std::string> items;
  for (const PlacementIdlePoint& p : points)
    items.push_back(fmt::format("{{ workers = {}, idle_core_s_per_batch = {}, prefetch_factor = {} }}", p.workers,
                                toml_float(p.idle_core_s_per_batch), p.prefetch_factor));
  return fmt::format("[{}]", fmt::join(items, ", "));
}

std::string step_share_array(const std::vector<StepSharePoint>& points) {
  std::vector<std::string> items;
  for (const StepSharePoint& p : points) {
    const std::string cores = p.cores > 0 ? fmt::format(", cores = {}", p.cores) : "";
    items.push_back(fmt::format("{{ workers = {}, batch_size = {}, share = {}{} }}", p.workers, p.batch_size,
                                toml_float(p.share), cores));
  }
  return fmt::format("[{}]", fmt::join(items, ", "));
}

std::string render_profile(const ProfileDocument& document) {
  check(document);
  std::string out = "# Written by edgetwin-calibrate; `edgetwin predict --profile` loads it.\n";
  out += profile_section(document.profile);
  out += costs_section(document.profile.costs);
  if (document.profile.footprint) out += footprint_section(*document.profile.footprint);
  out += provenance_section(document);
  for (const Measurement& m : document.measurements) out += measurement_section(m);
  return out;
}

void write_profile(const std::filesystem::path& path, const ProfileDocument& document) {
  write_output_file(path, render_profile(document));  // render first: a bad document writes nothing
}

std::filesystem::path default_profile_path(const std::filesystem::path& base, const ProfileSpec& profile) {
  return base / "profiles" / profile.device / (profile.workload + ".toml");
}

}  // namespace edgetwin::calibrate
