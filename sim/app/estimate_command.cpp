#include "sim/app/estimate_command.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/app/child_process.hpp"
#include "sim/app/measured_run_reader.hpp"
#include "sim/app/run_options.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/profile_loader.hpp"
#include "sim/model/simulation.hpp"
#include "sim/report/epoch_recorder.hpp"

namespace edgetwin {

void add_estimate_command(CLI::App& app, EstimateOptions& o) {
  auto* cmd = app.add_subcommand(
      "estimate", "Whole-training time and energy for N epochs or S steps, epoch 0 apart, with its uncertainty");
  add_run_request_options(*cmd, o.request);
  cmd->add_option("--epochs", o.epochs, "Epochs of the whole training");
  cmd->add_option("--steps", o.steps, "Steps (mini-batches) of the whole training, instead of --epochs");
  cmd->add_option("--measured", o.measured,
                  "A short real run to extrapolate (edgetwin-calibrate measure --json) instead of simulating");
  cmd->add_flag("--json", o.json, "Write JSON instead of text");
}

namespace {

// The profile measurements behind each per-sample and per-batch cost (calibrate/app/profile_builder.cpp).
struct SpreadSource {
  const char* measurement;
  double CostSpec::*cost;
};

constexpr std::array<SpreadSource, 5> kSpreadSources{{
    {"fetch_s_per_sample", &CostSpec::fetch_cpu_s_per_sample},
    {"preprocess_s_per_sample", &CostSpec::preprocess_cpu_s_per_sample},
    {"collate_s_per_sample", &CostSpec::collate_cpu_s_per_sample},
    {"issue_s_per_batch", &CostSpec::launch_cpu_s_per_batch},
    {"worker_startup_s", &CostSpec::worker_startup_cpu_s},
}};

// The end of a measurement's spread relative to its median (1 when it has none).
double spread_ratio(const std::map<std::string, MeasurementSpec>& measurements, const std::string& name, bool high,
                    bool& found) {
  const auto m = measurements.find(name);
  if (m == measurements.end() || m->second.median <= 0) return 1.0;
  found = true;
  return (high ? m->second.p90 : m->second.p10) / m->second.median;
}

constexpr int kMostSimulatedEpochs = 4;

void check_length(const EstimateOptions& o) {
  std::vector<Diagnostic> problems;
  if ((o.epochs > 0) == (o.steps > 0))
    problems.push_back({"", 0, 0, "--epochs", "give the training's length: --epochs N or --steps S (one of them)"});
  if (o.epochs < 0) problems.push_back({"", 0, 0, "--epochs", fmt::format("expected 1 or more, got {}", o.epochs)});
  if (o.steps < 0) problems.push_back({"", 0, 0, "--steps", fmt::format("expected 1 or more, got {}", o.steps)});
  if (!problems.empty()) throw ConfigError(std::move(problems));
}

std::int64_t batches_per_epoch(const PreparedRun& p) {
  const std::int64_t samples = p.workload.dataset.samples;
  const std::int64_t size = p.run.loader.batch_size;
  return p.run.loader.drop_last ? samples / size : (samples + size - 1) / size;
}

int simulated_epochs(const EstimateOptions& o, const PreparedRun& p) {
  const std::int64_t wanted = o.epochs > 0 ? o.epochs : (o.steps + batches_per_epoch(p) - 1) / batches_per_epoch(p);
  return static_cast<int>(std::clamp<std::int64_t>(wanted, 1, kMostSimulatedEpochs));
}

std::string simulate(const PreparedRun& p) {
  Simulation simulation(p.device, p.workload, p.run);
  EpochRecorder recorder;
  simulation.add_observer(recorder);
  simulation.run();
  std::string out;
  append_records(out, recorder.epochs());
  return out;
}

std::vector<EpochSample> samples_of(const std::vector<EpochStats>& stats) {
  std::vector<EpochSample> out;
  for (const auto& e : stats)
    out.push_back({e.e2e_s, static_cast<std::int64_t>(e.batches), e.has_energy, e.energy_j});
  return out;
}

// The central run and, when the profile has a spread, the runs at its ends (in children: SimGrid
// allows one engine per process).
std::vector<std::vector<EpochSample>> simulate_runs(const std::vector<PreparedRun>& runs) {
  std::vector<std::vector<EpochSample>> out(runs.size());
  std::vector<std::string> errors;
  run_in_children(runs.size(), 2, [&](std::size_t i) { return simulate(runs[i]); },
                  [&](std::size_t i, ChildResult r) {
                    if (r.error) {
                      errors.push_back(*r.error);
                      return;
                    }
                    ChildBytesReader reader(r.bytes);
                    out[i] = samples_of(reader.records<EpochStats>());
                  });
  if (!errors.empty()) throw std::runtime_error(errors.front());
  return out;
}

TrainingEstimate estimate_by_simulation(const EstimateOptions& o, std::string& basis) {
  PreparedRun mid = prepare_run(o.request);
  mid.run.epochs = simulated_epochs(o, mid);
  std::vector<PreparedRun> runs{mid};
  if (!o.request.profile.empty()) {
    const ProfileSpec profile = load_profile(o.request.profile);
    bool spread = false;
    for (const bool high : {false, true}) {
      PreparedRun end = mid;
      end.workload.costs = costs_at_spread_end(mid.workload.costs, profile.measurements, high, spread);
      if (spread) runs.push_back(end);
    }
  }
  basis = fmt::format("{} on {}, {} simulated epoch(s); costs: {}", mid.workload.name, mid.device.name,
                      mid.run.epochs, mid.workload.costs.provenance.kind);
  const auto results = simulate_runs(runs);
  const std::vector<EpochSample> none;
  return estimate_from_simulated(results[0], results.size() > 2 ? results[1] : none,
                                 results.size() > 2 ? results[2] : none, {o.epochs, o.steps});
}

std::string interval(const Uncertain& u, const char* unit, int precision) {
  if (!u.has_spread) return fmt::format("{:.{}f} {}", u.value, precision, unit);
  return fmt::format("{:.{}f} {} [{:.{}f}, {:.{}f}]", u.value, precision, unit, u.low, precision, u.high, precision);
}

std::string length_text(TrainingLength l) {
  return l.epochs > 0 ? fmt::format("{} epochs", l.epochs) : fmt::format("{} steps", l.steps);
}

void write_text(std::ostream& out, const TrainingEstimate& e, const std::string& basis) {
  out << fmt::format("edgetwin estimate: {}, from {}\n\n", length_text(e.length), basis);
  out << fmt::format("{:<38} {:<34} {}\n", "", "time", e.has_energy ? "energy" : "");
  auto row = [&](const std::string& what, const Uncertain& t, const Uncertain& j) {
    out << fmt::format("{:<38} {:<34} {}\n", what, interval(t, "s", 3), e.has_energy ? interval(j, "J", 1) : "");
  };
  row("epoch 0 (cold cache, worker start-up)", e.epoch0_s, e.epoch0_j);
  row("steady epoch (1+)", e.steady_epoch_s, e.steady_epoch_j);
  row("whole training, " + length_text(e.length), e.total_s, e.total_j);
  out << fmt::format("\n= {:.2f} h; interval: {}\n", e.total_s.value / 3600, e.spread_basis);
  if (!e.has_energy) out << "no energy: the run has no energy figures (a device without [power], or no power sensor)\n";
}

nlohmann::json uncertain_json(const Uncertain& u) {
  return {{"value", u.value}, {"low", u.low}, {"high", u.high}, {"has_spread", u.has_spread}};
}

void write_json(std::ostream& out, const TrainingEstimate& e, const std::string& basis) {
  nlohmann::json j{{"basis", basis},
                   {"epochs", e.length.epochs},
                   {"steps", e.length.steps},
                   {"epoch0_s", uncertain_json(e.epoch0_s)},
                   {"steady_epoch_s", uncertain_json(e.steady_epoch_s)},
                   {"total_s", uncertain_json(e.total_s)},
                   {"spread_basis", e.spread_basis},
                   {"has_energy", e.has_energy}};
  if (e.has_energy) {
    j["epoch0_j"] = uncertain_json(e.epoch0_j);
    j["steady_epoch_j"] = uncertain_json(e.steady_epoch_j);
    j["total_j"] = uncertain_json(e.total_j);
  }
  out << j.dump(2) << "\n";
}

}  // namespace

CostSpec costs_at_spread_end(const CostSpec& costs, const std::map<std::string, MeasurementSpec>& measurements,
                             bool high, bool& spread) {
  CostSpec out = costs;
  for (const auto& source : kSpreadSources) out.*source.cost *= spread_ratio(measurements, source.measurement, high, spread);
  for (std::size_t i = 0; i < out.compute.batch_sizes.size(); ++i) {
    const auto name = fmt::format("compute_s_bs{}", static_cast<long long>(out.compute.batch_sizes[i]));
    out.compute.seconds[i] *= spread_ratio(measurements, name, high, spread);
  }
  return out;
}

int run_estimate(const EstimateOptions& o) {
  check_length(o);
  std::string basis;
  TrainingEstimate e;
  if (!o.measured.empty()) {
    const auto epochs = read_measured_epochs(o.measured);
    e = estimate_from_measured(epochs, {o.epochs, o.steps});
    basis = fmt::format("the measured run {} ({} epoch(s))", o.measured, epochs.size());
  } else {
    e = estimate_by_simulation(o, basis);
  }
  if (o.json)
    write_json(std::cout, e, basis);
  else
    write_text(std::cout, e, basis);
  return 0;
}

}  // namespace edgetwin
