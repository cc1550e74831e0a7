#include "sim/plan/fleet_instance.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "sim/app/catalogue.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/input_limits.hpp"
#include "sim/config/named_file.hpp"
#include "sim/config/operating_point.hpp"
#include "sim/config/option_checks.hpp"
#include "sim/config/run_validator.hpp"
#include "sim/config/seeded_random.hpp"
#include "sim/config/toml_reader.hpp"
#include "sim/plan/plan_bounds.hpp"

namespace edgetwin {
namespace {

// Bytes of the model a client downloads and uploads when the fleet does not say: FP32 weights.
constexpr double kBytesPerParameter = 4;
// The most samples a dataset may hold (sim/config/physical_range.cpp, "samples").
constexpr double kMaxSamples = 1e8;

// Runs `load`, and places whatever ConfigError it throws at the fleet key that named the input
// (sim/config/named_file.hpp): a problem inside another file keeps its own place; one about
// the name itself, or about a whole file (cannot open it, not a regular file, a device without
// a line in a trace: line 0), moves here. key_of gives the key for a problem's file.
template <typename F>
void located(const FleetSpec& fleet, const std::function<std::string(const Diagnostic&)>& key_of,
             std::vector<Diagnostic>& problems, F&& load) {
  try {
    load();
  } catch (const ConfigError& e) {
    for (const Diagnostic& d : e.diagnostics()) {
      const auto placed = placed_at(fleet.source, key_of(d), {d});
      problems.insert(problems.end(), placed.begin(), placed.end());
    }
  }
}

template <typename F>
void located(const FleetSpec& fleet, const std::string& key, std::vector<Diagnostic>& problems, F&& load) {
  located(fleet, [&](const Diagnostic&) { return key; }, problems, std::forward<F>(load));
}

std::vector<int> or_default(const std::vector<int>& values, int fallback) {
  return values.empty() ? std::vector<int>{fallback} : values;
}

void build_candidates(const FleetSpec& fleet, GroupInstance& g, std::vector<Diagnostic>& problems) {
  const DeviceGroupSpec& spec = *g.spec;
  const LoaderSpec& defaults = g.inputs.workload.loader;
  std::vector<std::pair<std::string, OperatingPoint>> modes;
  located(fleet, spec.key + ".power_modes", problems, [&] { modes = select_modes(g.inputs.device, spec.power_modes); });
  const auto batches = or_default(spec.batch_sizes, defaults.batch_size);
  const auto workers_list = or_default(spec.workers, defaults.workers);
  // Counted before any is built: "all" modes of an AGX Xavier times long lists would not fit in
  // memory.
  const double configurations =
      static_cast<double>(modes.size()) * static_cast<double>(batches.size()) * static_cast<double>(workers_list.size());
  if (configurations > static_cast<double>(limits::sweep_configurations)) {
    problems.push_back(fleet.source.at(
        spec.key + ".power_modes",
        fmt::format("{} configurations ({} power modes x {} batch sizes x {} worker counts), more than a sweep's "
                    "{}; narrow power_modes, workers or batch_size",
                    configurations, modes.size(), batches.size(), workers_list.size(), limits::sweep_configurations)));
    return;
  }
  for (const int batch : batches) {
    for (const int workers : workers_list) {
      LoaderSpec loader = defaults;
      loader.batch_size = batch;
      loader.workers = workers;
      for (const auto& problem : check_loader(loader, 0))
        problems.push_back(fleet.source.at(spec.key + (problem.field == "workers" ? ".workers" : ".batch_size"),
                                           problem.message));
      for (const auto& [name, point] : modes) g.candidates.push_back({name, point, workers, batch});
    }
  }
}

void resolve_storage(const FleetSpec& fleet, GroupInstance& g, std::vector<Diagnostic>& problems) {
  const DeviceSpec& device = g.inputs.device;
  g.storage = g.spec->storage.empty() ? device.default_storage : g.spec->storage;
  if (device.find_storage(g.storage) == nullptr)
    problems.push_back(fleet.source.at(g.spec->key + ".storage",
                                       unknown_choice_message("storage", g.storage, device.storage_names())));
}

// The trace's reader takes regular files only: a missing file, a directory or a FIFO is a
// problem at the key, with the path and the reason.
void load_trace(const FleetSpec& fleet, GroupInstance& g, std::vector<Diagnostic>& problems) {
  if (g.spec->availability.kind != AvailabilitySpec::Kind::trace) return;
  const auto file = std::filesystem::path(fleet.source_file).parent_path() / g.spec->availability.trace_file;
  located(fleet, g.spec->key + ".availability.trace", problems, [&] {
    g.trace = std::make_shared<AvailabilityTrace>(load_availability_trace(file, g.spec->count));
  });
}

// The file round.workload names, as load_inputs resolves it; "" when it names none.
std::string workload_file_of(const FleetSpec& fleet) {
  try {
    return resolve_catalogue_file("workloads", fleet.round.workload).string();
  } catch (const ConfigError&) {
    return "";
  }
}

GroupInstance instantiate_group(const FleetSpec& fleet, const DeviceGroupSpec& spec, std::vector<Diagnostic>& problems) {
  GroupInstance g;
  g.spec = &spec;
  RunRequest request;
  request.device = spec.device;
  request.workload = fleet.round.workload;
  request.profile = spec.profile;
  const std::size_t before = problems.size();
  // A profile's or the workload's own problems at the key that named that file.
  const auto key_of = [&](const Diagnostic& d) {
    if (!spec.profile.empty() && d.file == spec.profile) return spec.key + ".profile";
    if (d.file == workload_file_of(fleet)) return std::string("round.workload");
    return spec.key + ".device";
  };
  located(fleet, key_of, problems, [&] { g.inputs = load_inputs(request); });
  if (problems.size() > before) return g;
  g.network = fleet.networks.at(spec.network);
  resolve_storage(fleet, g, problems);
  build_candidates(fleet, g, problems);
  load_trace(fleet, g, problems);
  g.power = device_power(g.inputs.device, g.network, spec.idle);
  if (!g.inputs.device.power)
    problems.push_back(fleet.source.at(spec.key + ".device",
                                       fmt::format("{} has no [power] table: a round's energy cannot be planned",
                                                   g.inputs.device.name)));
  return g;
}

}  // namespace

std::vector<std::int64_t> draw_sample_counts(const SampleDistribution& d, int count, std::uint64_t seed) {
  std::vector<std::int64_t> out;
  for (int i = 0; i < count; ++i) {
    SeededRandom random(mixed_seed(seed, static_cast<std::uint64_t>(i) + 1));
    switch (d.kind) {
      case SampleDistribution::Kind::fixed: out.push_back(d.samples); break;
      case SampleDistribution::Kind::uniform:
        out.push_back(d.min + static_cast<std::int64_t>(random.below(static_cast<std::uint64_t>(d.max - d.min + 1))));
        break;
      case SampleDistribution::Kind::lognormal:
        // Clamped before rounding: exp() of a wide spread can pass what a dataset may hold.
        out.push_back(std::llround(std::clamp(d.median * std::exp(d.sigma * random.normal()), 1.0, kMaxSamples)));
        break;
    }
  }
  return out;
}

FleetInstance instantiate_fleet(FleetSpec spec) {
  FleetInstance fleet;
  fleet.spec = std::move(spec);
  std::vector<Diagnostic> problems;
  for (const DeviceGroupSpec& g : fleet.spec.groups) fleet.groups.push_back(instantiate_group(fleet.spec, g, problems));
  double pairs = 0;
  for (const GroupInstance& g : fleet.groups)
    pairs += static_cast<double>(g.spec->count) * static_cast<double>(g.candidates.size());
  if (problems.empty() && pairs > static_cast<double>(limits::plan_pairs))
    problems.push_back(fleet.spec.source.at(
        "group", fmt::format("{} device-configuration pairs (devices x the configurations of their group), more than "
                             "{}; narrow power_modes, workers or batch_size of the larger groups",
                             pairs, limits::plan_pairs)));
  if (!problems.empty()) throw ConfigError(std::move(problems));
  fleet.parameters = fleet.groups.front().inputs.workload.model_spec.parameters;
  const double model_bytes = static_cast<double>(fleet.parameters) * kBytesPerParameter;
  fleet.download_bytes = fleet.spec.round.download_bytes.value_or(model_bytes);
  fleet.upload_bytes = fleet.spec.round.upload_bytes.value_or(model_bytes);
  for (std::size_t g = 0; g < fleet.groups.size(); ++g) {
    const DeviceGroupSpec& group = *fleet.groups[g].spec;
    const auto sizes = draw_sample_counts(group.samples, group.count, mixed_seed(fleet.spec.seed, g + 1));
    for (int i = 0; i < group.count; ++i)
      fleet.devices.push_back({g, i, sizes[static_cast<std::size_t>(i)], fmt::format("{}/{}", group.name, i)});
  }
  throw_if_any(plan_batches_problems(fleet));  // before anything is simulated
  return fleet;
}

MemberRun candidate_run(const FleetInstance& fleet, const FleetDevice& device, const Candidate& c) {
  const GroupInstance& g = fleet.groups[device.group];
  MemberRun m{apply_operating_point(g.inputs.device, c.point), g.inputs.workload, {}};
  m.workload.dataset.samples = device.samples;
  m.run.loader = g.inputs.workload.loader;
  m.run.loader.workers = c.workers;
  m.run.loader.batch_size = c.batch_size;
  m.run.storage = g.storage;
  m.run.cache = CacheStart::cold;
  m.run.seed = fleet.spec.seed;
  m.run.epochs = std::max(1, fleet.spec.round.local_epochs);
  m.run.steps = fleet.spec.round.local_steps;
  m.run.pstate_per_step = false;
  return m;
}

}  // namespace edgetwin
