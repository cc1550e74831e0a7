#include "sim/app/catalogue_sweep.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/app/catalogue.hpp"
#include "sim/app/output_file.hpp"
#include "sim/app/sweep_output.hpp"
#include "sim/app/sweep_plan.hpp"
#include "sim/config/config_error.hpp"

namespace edgetwin {
namespace {

std::vector<std::string> names_of(const std::string& list, const std::string& kind) {
  if (list == "all") return shipped_names(kind);
  return split_on_commas(list);
}

struct Pair {
  LoadedInputs inputs;
  SweepOptions options;  // --device and --workload set to the pair's
  std::vector<SweepResult> results;
  std::vector<std::size_t> valid;
  std::vector<TradeoffPoint> tradeoff;
  std::vector<bool> front;  // per result
};

std::vector<Pair> plan_pairs(const SweepOptions& o, std::vector<SweepGroup>& groups) {
  if (!o.plot.empty())
    throw ConfigError({Diagnostic{"", 0, 0, "--plot", "draws one device and workload; give --device and --workload"}});
  const auto devices = names_of(o.devices.empty() ? o.base.device : o.devices, "devices");
  const auto workloads = names_of(o.workloads.empty() ? o.base.workload : o.workloads, "workloads");
  std::vector<Pair> pairs;
  std::int64_t total = 0;
  for (const auto& d : devices)
    for (const auto& w : workloads) {
      Pair& p = pairs.emplace_back();
      p.options = o;
      p.options.base.device = d;
      p.options.base.workload = w;
      p.inputs = load_inputs(p.options.base);
      groups.push_back({nullptr, p.options.base, plan_sweep(p.options, p.inputs)});
      total += static_cast<std::int64_t>(groups.back().points.size());
    }
  if (total > o.max_configurations)
    throw ConfigError({Diagnostic{"", 0, 0, "--max-configurations",
                                  fmt::format("the sweep has {} configurations over {} devices and {} workloads, more "
                                              "than {}; raise --max-configurations to run it",
                                              total, devices.size(), workloads.size(), o.max_configurations)}});
  for (std::size_t i = 0; i < pairs.size(); ++i) groups[i].inputs = &pairs[i].inputs;
  return pairs;
}

void summarise_pair(Pair& p) {
  p.tradeoff = tradeoffs(p.results, p.valid);
  p.front = front_of_results(p.results.size(), p.valid, p.tradeoff);
}

std::string csv_of(const std::vector<Pair>& pairs) {
  std::string out;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto& p = pairs[i];
    const std::string text = csv_text(p.results, p.front, "device,workload,",
                                      p.inputs.device.name + "," + p.inputs.workload.name + ",");
    out += i == 0 ? text : text.substr(text.find('\n') + 1);  // one header
  }
  return out;
}

nlohmann::json json_of(const SweepOptions& o, const std::vector<Pair>& pairs) {
  nlohmann::json sweeps = nlohmann::json::array();
  const Constraints constraints{o.max_power_w, o.max_epoch_time_s, o.energy_budget_j};
  for (const auto& p : pairs) {
    const bool needs_power = constraints.max_power_w || constraints.energy_budget_j;
    const bool judged = constraints.any() && !p.tradeoff.empty() && (!needs_power || p.inputs.device.power);
    const auto choice = judged ? best_under(p.tradeoff, constraints) : std::nullopt;
    sweeps.push_back(json_doc(p.options, p.inputs, p.results, p.front, recommendation_json(p.results, p.valid, choice)));
  }
  return {{"window_batches", o.settings.window_batches}, {"epochs", o.base.epochs}, {"sweeps", sweeps}};
}

const EpochStats* fastest(const Pair& p, const SweepPoint** point) {
  const EpochStats* best = nullptr;
  for (const std::size_t i : p.valid)
    if (!best || p.results[i].stats.e2e_s < best->e2e_s) {
      best = &p.results[i].stats;
      *point = &p.results[i].point;
    }
  return best;
}

void print_pairs(const std::vector<Pair>& pairs) {
  std::size_t total = 0;
  for (const auto& p : pairs) total += p.results.size();
  fmt::print("edgetwin sweep: {} configurations over {} (device, workload) pairs\n\n", total, pairs.size());
  fmt::print("{:<18} {:<20} {:>8} {:>8} {:>6} {:>10}  fastest\n", "device", "workload", "configs", "can_run", "front",
             "e2e_s");
  for (const auto& p : pairs) {
    std::size_t on_front = 0;
    for (const bool f : p.front) on_front += f ? 1 : 0;
    const SweepPoint* point = nullptr;
    const EpochStats* best = fastest(p, &point);
    fmt::print("{:<18} {:<20} {:>8} {:>8} {:>6} {:>10}  {}\n", p.inputs.device.name, p.inputs.workload.name,
               p.results.size(), p.valid.size(), on_front, best ? fmt::format("{:.2f}", best->e2e_s) : "-",
               point ? label(*point) : "none can run");
  }
}

// Per workload, the best configuration on any device under the constraints; false when one
// workload has none that meets them.
bool print_best_per_workload(const std::vector<Pair>& pairs, const Constraints& constraints) {
  std::vector<std::string> workloads;
  for (const auto& p : pairs)
    if (std::find(workloads.begin(), workloads.end(), p.inputs.workload.name) == workloads.end())
      workloads.push_back(p.inputs.workload.name);
  bool all_feasible = true;
  for (const auto& w : workloads) {
    std::vector<TradeoffPoint> points;
    std::vector<std::pair<const Pair*, std::size_t>> where;
    for (const auto& p : pairs) {
      const bool needs_power = constraints.max_power_w || constraints.energy_budget_j;
      if (p.inputs.workload.name != w || (needs_power && !p.inputs.device.power)) continue;
      for (std::size_t k = 0; k < p.valid.size(); ++k) {
        points.push_back(p.tradeoff[k]);
        where.emplace_back(&p, p.valid[k]);
      }
    }
    const auto choice = points.empty() ? std::nullopt : best_under(points, constraints);
    if (!choice) {
      fmt::print("\n{}: no device can run it\n", w);
      all_feasible = false;
      continue;
    }
    const auto& [pair, index] = where[choice->index];
    fmt::print("\n{}: {} on {}: {}\n", w, choice->feasible ? "best under the constraints" : "none meets them; closest",
               pair->inputs.device.name, label(pair->results[index].point));
    for (const auto& m : choice->margins) fmt::print("  {}\n", m);
    all_feasible = all_feasible && choice->feasible;
  }
  return all_feasible;
}

}  // namespace

int run_catalogue_sweep(const SweepOptions& o, ScaleOut& scale_out) {
  std::vector<SweepGroup> groups;
  std::vector<Pair> pairs = plan_pairs(o, groups);
  SweepSettings settings = o.settings;
  settings.progress = !o.quiet && scale_out.writes_outputs();
  settings.chunks.distribution = scale_out.distribution();
  auto results = run_sweep_groups(groups, settings);
  if (!scale_out.writes_outputs()) return 0;  // an MPI rank but 0: the results are there
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    pairs[i].results = std::move(results[i]);
    summarise_pair(pairs[i]);
  }
  const Constraints constraints{o.max_power_w, o.max_epoch_time_s, o.energy_budget_j};
  if (!o.csv.empty()) write_output_file(o.csv, csv_of(pairs));
  if (!o.json.empty()) write_output_file(o.json, json_of(o, pairs).dump(1) + "\n");
  print_pairs(pairs);
  if (!constraints.any()) return 0;
  return print_best_per_workload(pairs, constraints) ? 0 : 2;
}

}  // namespace edgetwin
