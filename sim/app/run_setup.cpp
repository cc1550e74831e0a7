#include "sim/app/run_setup.hpp"

#include <fmt/format.h>

#include "sim/app/catalogue.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/cost_estimator.hpp"
#include "sim/config/device_loader.hpp"
#include "sim/config/named_file.hpp"
#include "sim/config/profile_loader.hpp"
#include "sim/config/run_validator.hpp"
#include "sim/config/workload_loader.hpp"
#include "sim/model/simulation.hpp"

namespace edgetwin {

RunConfig run_config(const RunRequest& o, const WorkloadSpec& workload) {
  RunConfig run;
  run.storage = o.storage;
  run.loader = workload.loader;
  if (o.workers) run.loader.workers = *o.workers;
  if (o.prefetch_factor) run.loader.prefetch_factor = *o.prefetch_factor;
  if (o.batch_size) run.loader.batch_size = *o.batch_size;
  if (o.persistent_workers) run.loader.persistent_workers = *o.persistent_workers;
  if (o.drop_last) run.loader.drop_last = *o.drop_last;
  run.epochs = o.epochs;
  run.cache = o.cache == "warm" ? CacheStart::warm : CacheStart::cold;
  run.seed = o.seed;
  run.dvfs = o.dvfs;
  run.accelerators = o.accelerators;
  return run;
}

namespace {


std::optional<double> frequency_option(std::vector<Diagnostic>& problems, const std::string& option,
                                       const std::string& text) {
  if (text.empty()) return std::nullopt;
  const auto hz = parse_frequency_hz(text);
  if (!hz) problems.push_back({"", 0, 0, option, fmt::format("expected a frequency such as 1377MHz, got \"{}\"", text)});
  return hz;
}

OperatingPointRequest operating_point_request(const RunRequest& o) {
  std::vector<Diagnostic> problems;
  OperatingPointRequest request;
  request.power_mode = o.power_mode;
  request.cores = o.cores;
  request.cpu_hz = frequency_option(problems, "--cpu-freq", o.cpu_freq);
  request.gpu_hz = frequency_option(problems, "--gpu-freq", o.gpu_freq);
  request.emc_hz = frequency_option(problems, "--emc-freq", o.emc_freq);
  if (!problems.empty()) throw ConfigError(std::move(problems));
  return request;
}

// The workload's costs were taken on another device: estimate them for this one from there.
CostSpec estimate_for(const WorkloadSpec& workload, const DeviceSpec& device) {
  return estimate_costs(load_costs_device(workload), workload, device);
}

}  // namespace

DeviceSpec load_costs_device(const WorkloadSpec& workload) {
  return load_named(workload.source, "costs.device",
                    [&] { return load_device(resolve_catalogue_file("devices", workload.costs.device)); });
}

LoadedInputs load_inputs(const RunRequest& o) {
  LoadedInputs in{load_device(resolve_catalogue_file("devices", o.device)),
                  load_workload(resolve_catalogue_file("workloads", o.workload))};
  if (!o.profile.empty())
    in.workload = apply_profile(in.workload, load_profile(o.profile), in.device);
  else if (in.workload.costs.device != in.device.name)
    in.workload.costs = estimate_for(in.workload, in.device);
  return in;
}

PreparedRun prepare_run(const RunRequest& o) {
  LoadedInputs in = load_inputs(o);
  const DeviceSpec& device = in.device;
  const OperatingPointRequest request = operating_point_request(o);
  const OperatingPoint point = resolve_operating_point(device, request);
  PreparedRun prepared{apply_operating_point(device, point), std::move(in.workload), {}, {}, point};
  const bool explicit_clocks = request.cores || request.cpu_hz || request.gpu_hz || request.emc_hz;
  if (!explicit_clocks) prepared.power_mode = o.power_mode.empty() ? device.default_power_mode : o.power_mode;
  prepared.run = run_config(o, prepared.workload);
  validate_run(prepared.run, prepared.device, prepared.workload);
  return prepared;
}

void check_run(const RunRequest& request) {
  PreparedRun prepared = prepare_run(request);
  Simulation simulation;  // an engine starts only in run()
  simulation.add_member(std::move(prepared.device), std::move(prepared.workload), std::move(prepared.run));
}

}  // namespace edgetwin
