#include "validate/interleaved_calibration.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "calibrate/app/batch_statistics.hpp"
#include "calibrate/app/output_files.hpp"
#include "calibrate/app/profile_builder.hpp"
#include "calibrate/app/progress_line.hpp"
#include "calibrate/hardware/hardware_error.hpp"
#include "calibrate/import/contention_derivation.hpp"
#include "calibrate/training/training_runner.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/profile_loader.hpp"

namespace edgetwin::validate {

namespace {

using calibrate::Measurement;

// One pooled cost: the median over the rounds, and its spread over the rounds as a record.
double pooled_value(const std::string& name, const std::vector<double>& values, const std::string& unit,
                    std::vector<Measurement>& records) {
  records.push_back(calibrate::summarize(name, values, unit));
  return records.back().median;
}

std::vector<double> of_rounds(const std::vector<ProfileSpec>& rounds, double CostSpec::*field) {
  std::vector<double> values;
  for (const auto& r : rounds) values.push_back(r.costs.*field);
  return values;
}

// A term some rounds measure and others cannot (no balloon, a disturbed probe, a trace without
// workers) is the median over the rounds that measured it: those with its record, so that a
// measured 0 counts (the reclaim probe finds no reclaim on this VM), else those above 0. A
// round that could not measure it leaves 0, which is not a measurement.
void pool_if_measured(double& cost, const std::string& name, const std::vector<ProfileSpec>& rounds,
                      double CostSpec::*field, const std::string& unit, std::vector<Measurement>& records) {
  std::vector<double> values;
  for (const auto& r : rounds) {
    if (r.costs.*field > 0 || r.measurements.contains(name)) values.push_back(r.costs.*field);
  }
  if (!values.empty()) cost = pooled_value(name, values, unit, records);
}

// What calibrated a round, for the pooled provenance: the PyTorch runner's rounds are imports.
std::string calibration_kind(const ProfileSpec& round) {
  return round.command.find("--runner pytorch") != std::string::npos
             ? "validate/pytorch_train.py traces through edgetwin-calibrate import"
             : "edgetwin-calibrate's full plan";
}

ComputeCurve pooled_curve(const std::vector<ProfileSpec>& rounds, std::vector<Measurement>& records) {
  std::map<double, std::vector<double>> by_size;  // a size a slow round skipped is pooled over the others
  for (const auto& r : rounds) {
    for (std::size_t i = 0; i < r.costs.compute.batch_sizes.size(); ++i) {
      by_size[r.costs.compute.batch_sizes[i]].push_back(r.costs.compute.seconds[i]);
    }
  }
  ComputeCurve curve;
  for (const auto& [size, seconds] : by_size) {
    curve.batch_sizes.push_back(size);
    curve.seconds.push_back(pooled_value(fmt::format("compute_s_bs{}", size), seconds, "s/batch", records));
  }
  return curve;
}

// Each measured (threads, busy cores, batch size) point of the CPU step's scaling: the median
// factor over the rounds that measured it (a round of edgetwin-calibrate measures none).
std::vector<StepScalingPoint> pooled_step_scaling(const std::vector<ProfileSpec>& rounds,
                                                  std::vector<Measurement>& records) {
  std::map<std::tuple<int, int, double>, std::vector<double>> by_point;
  for (const auto& r : rounds) {
    for (const StepScalingPoint& s : r.costs.cpu_step_scaling) by_point[{s.threads, s.busy_cores, s.batch_size}].push_back(s.factor);
  }
  std::vector<StepScalingPoint> points;
  for (const auto& [key, factors] : by_point) {
    const auto& [threads, busy, size] = key;
    const std::string name = fmt::format("cpu_step_scaling_t{}_busy{}_bs{}", threads, busy, size);
    points.push_back({threads, busy, size, pooled_value(name, factors, "x", records)});
  }
  return points;
}

// Each measured (cores, workers, batch size) share of a core of the trainer's step: the median
// over the rounds that measured it (runs with one intra-op thread).
std::vector<StepSharePoint> pooled_step_share(const std::vector<ProfileSpec>& rounds, std::vector<Measurement>& records) {
  std::map<std::tuple<int, int, int>, std::vector<double>> by_point;
  for (const auto& r : rounds) {
    for (const StepSharePoint& s : r.costs.step_share) by_point[{s.cores, s.workers, s.batch_size}].push_back(s.share);
  }
  std::vector<StepSharePoint> points;
  for (const auto& [key, shares] : by_point) {
    const auto [cores, workers, size] = key;
    const std::string on = cores > 0 ? fmt::format("_on{}cores", cores) : "";
    const std::string name = fmt::format("step_share_w{}_bs{}{}", workers, size, on);
    points.push_back({workers, size, pooled_value(name, shares, "of a core", records), cores});
  }
  return points;
}

// Each measured (prefetch factor, workers) idle core a batch of the placement probe: the median
// over the rounds that measured it, recorded as placement_idle_s_w<workers> (at the default
// prefetch factor, as before there were others) or placement_idle_s_w<workers>_pf<factor>.
std::vector<PlacementIdlePoint> pooled_placement_idle(const std::vector<ProfileSpec>& rounds,
                                                      std::vector<Measurement>& records) {
  std::map<std::pair<int, int>, std::vector<double>> by_setting;
  for (const auto& r : rounds) {
    for (const PlacementIdlePoint& p : r.costs.placement_idle)
      by_setting[{p.prefetch_factor, p.workers}].push_back(p.idle_core_s_per_batch);
  }
  std::vector<PlacementIdlePoint> points;
  for (const auto& [setting, values] : by_setting) {
    const auto [prefetch, workers] = setting;
    const std::string at = prefetch == kPlacementProbePrefetch ? "" : fmt::format("_pf{}", prefetch);
    const std::string name = fmt::format("placement_idle_s_w{}{}", workers, at);
    points.push_back({workers, pooled_value(name, values, "s/batch", records), prefetch});
  }
  return points;
}

// Each measured key of a list of points (the loader's busy cores): the median of its value over
// the rounds that measured it.
template <class Point>
std::vector<Point> pooled_points(const std::vector<ProfileSpec>& rounds, std::vector<Point> CostSpec::*list,
                                 int Point::*key, double Point::*value, const std::string& name, const char* unit,
                                 std::vector<Measurement>& records) {
  std::map<int, std::vector<double>> by_key;
  for (const auto& r : rounds) {
    for (const Point& p : r.costs.*list) by_key[p.*key].push_back(p.*value);
  }
  std::vector<Point> points;
  for (const auto& [k, values] : by_key) {
    Point p;
    p.*key = k;
    p.*value = pooled_value(fmt::format("{}{}", name, k), values, unit, records);
    points.push_back(p);
  }
  return points;
}

}  // namespace

calibrate::ProfileDocument pool_profiles(const std::vector<ProfileSpec>& rounds, const std::string& command,
                                         const calibrate::ProfileProvenance& provenance) {
  if (rounds.empty()) throw std::invalid_argument("pool_profiles: no calibration rounds");
  calibrate::ProfileDocument doc;
  doc.provenance = provenance;
  ProfileSpec& p = doc.profile;
  p = rounds.front();
  p.source_file.clear();
  p.created = calibrate::iso_utc_now();
  p.command = command;
  auto& m = doc.measurements;
  CostSpec& c = p.costs;
  c.fetch_cpu_s_per_sample = pooled_value("fetch_s_per_sample", of_rounds(rounds, &CostSpec::fetch_cpu_s_per_sample), "s/sample", m);
  c.preprocess_cpu_s_per_sample =
      pooled_value("preprocess_s_per_sample", of_rounds(rounds, &CostSpec::preprocess_cpu_s_per_sample), "s/sample", m);
  c.collate_cpu_s_per_sample =
      pooled_value("collate_s_per_sample", of_rounds(rounds, &CostSpec::collate_cpu_s_per_sample), "s/sample", m);
  c.launch_cpu_s_per_batch = pooled_value("launch_s_per_batch", of_rounds(rounds, &CostSpec::launch_cpu_s_per_batch), "s/batch", m);
  c.worker_startup_cpu_s = pooled_value("worker_startup_s", of_rounds(rounds, &CostSpec::worker_startup_cpu_s), "s", m);
  // Derived by calibrate/import from the PyTorch runner's one-worker traces and step-scaling
  // measurements; 0 or none (not measured, nothing to pool) in edgetwin-calibrate's rounds.
  pool_if_measured(c.receive_cpu_s_per_batch, calibrate::kReceivePerBatchRecord, rounds, &CostSpec::receive_cpu_s_per_batch,
                   "s/batch", m);
  pool_if_measured(c.receive_cpu_s_per_byte, calibrate::kReceivePerByteRecord, rounds, &CostSpec::receive_cpu_s_per_byte,
                   "s/byte", m);
  pool_if_measured(c.send_cpu_s_per_batch, calibrate::kSendPerBatchRecord, rounds, &CostSpec::send_cpu_s_per_batch,
                   "s/batch", m);
  pool_if_measured(c.step_with_workers_s_per_batch, calibrate::kStepWithWorkersPerBatchRecord, rounds,
                   &CostSpec::step_with_workers_s_per_batch, "s/batch", m);
  pool_if_measured(c.step_with_workers_s_per_byte, calibrate::kStepWithWorkersPerByteRecord, rounds,
                   &CostSpec::step_with_workers_s_per_byte, "s/byte", m);
  pool_if_measured(c.background_cpu_s_per_batch, calibrate::kBackgroundCpuRecord, rounds,
                   &CostSpec::background_cpu_s_per_batch, "s/batch", m);
  // Measured by the reclaim probe (calibrate/hardware/reclaim_probe.hpp) in sessions with a balloon.
  pool_if_measured(c.reclaim_cpu_s_per_byte, "reclaim_s_per_byte", rounds, &CostSpec::reclaim_cpu_s_per_byte, "s/byte", m);
  // A miss's CPU: both calibrations' cold-then-warm reads of a file-per-sample dataset.
  pool_if_measured(c.miss_cpu_s_per_byte, "miss_cpu_s_per_byte", rounds, &CostSpec::miss_cpu_s_per_byte, "s/byte", m);
  // Its wall time, on the session's one medium.
  pool_if_measured(c.miss_s_per_byte, "miss_s_per_byte", rounds, &CostSpec::miss_s_per_byte, "s/byte", m);
  for (const auto& r : rounds) {
    if (!r.costs.miss_storage.empty()) c.miss_storage = r.costs.miss_storage;
  }
  c.compute = pooled_curve(rounds, m);
  c.cpu_step_scaling = pooled_step_scaling(rounds, m);
  c.loader_scaling = pooled_points(rounds, &CostSpec::loader_scaling, &LoaderScalingPoint::busy_cores,
                                   &LoaderScalingPoint::factor, "loader_scaling_busy", "x", m);
  c.placement_idle = pooled_placement_idle(rounds, m);
  c.step_share = pooled_step_share(rounds, m);
  c.provenance = Provenance{
      "measured", fmt::format("median over {} calibrations ({}) interleaved with the validation rounds on {}, {}; "
                              "first round: {}",
                              rounds.size(), calibration_kind(rounds.front()), provenance.host, p.created,
                              rounds.front().costs.provenance.source)};
  return doc;
}

namespace {

// A session's round R (from 0) in its calibration directory, as round-<R+1>.toml.
std::filesystem::path round_file_in(const std::filesystem::path& dir, int round) {
  return dir / fmt::format("round-{}.toml", round + 1);
}

// edgetwin-calibrate's full plan, in this process.
calibrate::ProfileDocument calibrate_in_process(const calibrate::CalibrationSetup& base, int round) {
  calibrate::ProgressLine quiet(false, std::cerr, false);
  calibrate::CalibrationSetup setup = base;
  setup.command += fmt::format(" (round {})", round + 1);
  // Another slice of the data each round: a slice read in the last round may still sit in
  // the host's cache below a VM's disk, and its cold pass would price misses too low
  // (calibrate/app/calibrator.cpp, measure_cache).
  setup.seed = base.seed + 7919 * static_cast<std::uint64_t>(round);
  calibrate::Calibrator calibrator(setup, quiet);
  calibrator.check();
  calibrate::ProfileDocument doc = calibrate::build_profile(calibrator.run());
  for (const auto& warning : doc.warnings) std::cerr << "edgetwin-validate: warning: " << warning << '\n';
  return doc;
}

}  // namespace

InterleavedCalibration::InterleavedCalibration(calibrate::CalibrationSetup setup, std::filesystem::path dir)
    : workload_(setup.target.workload.name),
      command_(setup.command),
      calibrate_round_([setup = std::move(setup)](int round) { return calibrate_in_process(setup, round); }),
      dir_(std::move(dir)) {}

InterleavedCalibration::InterleavedCalibration(std::string workload, std::string command, RoundCalibration calibrate_round,
                                               std::filesystem::path dir)
    : workload_(std::move(workload)), command_(std::move(command)), calibrate_round_(std::move(calibrate_round)),
      dir_(std::move(dir)) {}

std::filesystem::path InterleavedCalibration::round_file(int round) const { return round_file_in(dir_, round); }

bool InterleavedCalibration::done(int round) const {
  try {
    return std::filesystem::exists(round_file(round)) && load_profile(round_file(round)).workload == workload_;
  } catch (const std::exception&) {
    return false;  // cut short by a kill: calibrate that round again
  }
}

// Each record keeps its passes' spread; the profile's term is the median over the passes.
void add_reclaim(calibrate::ProfileDocument& profile, const calibrate::ReclaimMeasurement& m) {
  CostSpec& c = profile.profile.costs;
  c.reclaim_cpu_s_per_byte = calibrate::reclaim_cpu_s_per_byte(m);
  const double missed_fraction = calibrate::pressured_missed_fraction(m);
  double kswapd_s = 0, cpu_s = 0;
  for (const auto& pass : m.pressured) {
    kswapd_s += pass.kswapd_cpu_s;
    cpu_s += pass.cpu_s;
  }
  std::vector<double> reclaim_by_pass = calibrate::reclaim_cpu_s_per_byte_by_pass(m);
  if (reclaim_by_pass.empty()) reclaim_by_pass = {0.0};  // no pass missed: nothing to reclaim
  auto& records = profile.measurements;
  records.push_back(calibrate::summarize("reclaim_s_per_byte", reclaim_by_pass, "s/byte"));
  records.push_back(calibrate::summarize("read_miss_s_per_byte", {calibrate::miss_cpu_s_per_byte(m)}, "s/byte"));
  records.push_back(calibrate::summarize("read_hit_s_per_byte", {calibrate::hit_cpu_s_per_byte(m)}, "s/byte"));
  records.push_back(calibrate::summarize("read_under_pressure_s_per_byte", {calibrate::pressured_cpu_s_per_byte(m)}, "s/byte"));
  records.push_back(calibrate::summarize("read_under_pressure_missed_fraction", {missed_fraction}, "fraction"));
  c.provenance.source += fmt::format(
      "; reclaim_cpu_s_per_byte: the reclaim probe (calibrate/hardware/reclaim_probe.hpp) under a balloon of {} bytes "
      "leaving {} free, the median of {} {} of {} bytes, {:.0f} % missed, kswapd {:.2f} s of {:.2f} s CPU in all",
      m.balloon_bytes, m.room_bytes, m.pressured.size(), m.pressured.size() == 1 ? "pass" : "passes",
      m.pressured.empty() ? 0 : m.pressured.front().bytes,
      100.0 * missed_fraction, kswapd_s, cpu_s);
}

void InterleavedCalibration::run(int round) {
  calibrate::ProfileDocument profile = calibrate_round_(round);
  if (reclaim_probe_) {
    calibrate::ReclaimProbeSpec probe = *reclaim_probe_;
    probe.seed += static_cast<std::uint64_t>(round);
    try {
      add_reclaim(profile, calibrate::measure_reclaim(probe));
    } catch (const calibrate::HardwareError& e) {
      std::cerr << "edgetwin-validate: note: round " << round + 1 << ": no reclaim cost measured: " << e.what() << "\n";
    }
  }
  std::filesystem::create_directories(dir_);
  calibrate::write_checked_profile(round_file(round), profile);
}

// Calibration's own reductions of the same fields (Calibrator::run_sequential, step_field on
// a CPU-only host), so that a probe and a calibration measure the same thing.
DriftProbe measure_drift_probe(const calibrate::RunSpec& spec, const calibrate::Dataset& dataset) {
  constexpr std::size_t warmup_batches = 3;
  calibrate::read_ahead(spec, dataset);
  const auto batches = calibrate::timed_batches(calibrate::run_training(spec, dataset).batches, warmup_batches);
  return {calibrate::mean_of_field(batches, &calibrate::MeasuredBatch::train_s),
          calibrate::per_sample(batches, &calibrate::MeasuredBatch::fetch_s) +
              calibrate::per_sample(batches, &calibrate::MeasuredBatch::preprocess_s) +
              calibrate::per_sample(batches, &calibrate::MeasuredBatch::collate_s)};
}

void follow_drift(calibrate::ProfileDocument& pooled, const std::vector<DriftProbe>& probes, int batch_size) {
  CostSpec& c = pooled.profile.costs;
  const auto& sizes = c.compute.batch_sizes;
  const auto at = std::find(sizes.begin(), sizes.end(), static_cast<double>(batch_size));
  const double loading = c.fetch_cpu_s_per_sample + c.preprocess_cpu_s_per_sample + c.collate_cpu_s_per_sample;
  if (probes.empty() || c.reference_gpu_freq_hz > 0 || at == sizes.end() || loading <= 0) return;
  std::vector<double> steps, loads;
  for (const auto& p : probes) {
    steps.push_back(p.step_s);
    loads.push_back(p.load_s_per_sample);
  }
  auto& m = pooled.measurements;
  const double step_factor =
      pooled_value(fmt::format("drift_probe_step_s_bs{}", batch_size), steps, "s/batch", m) / c.compute.seconds[at - sizes.begin()];
  const double load_factor = pooled_value("drift_probe_load_s_per_sample", loads, "s/sample", m) / loading;
  m.push_back(calibrate::summarize("drift_step_factor", {step_factor}, "x"));
  m.push_back(calibrate::summarize("drift_load_factor", {load_factor}, "x"));
  for (double& seconds : c.compute.seconds) seconds *= step_factor;
  for (double* cost : {&c.fetch_cpu_s_per_sample, &c.preprocess_cpu_s_per_sample, &c.collate_cpu_s_per_sample}) {
    *cost *= load_factor;
  }
  c.provenance.source += fmt::format(
      "; compute scaled by {:.3f} and loader costs by {:.3f}: the medians of {} sequential probes of {} batches "
      "taken between the runs over the calibrations' (validate/interleaved_calibration.hpp, follow_drift)",
      step_factor, load_factor, probes.size(), batch_size);
}

void InterleavedCalibration::record_drift_probe(const DriftProbe& probe) const {
  std::filesystem::create_directories(dir_);
  const std::filesystem::path file = dir_ / "drift-probes.csv";
  const bool fresh = !std::filesystem::exists(file);
  std::ofstream out(file, std::ios::app);
  if (fresh) out << "step_s,load_s_per_sample\n";
  out << fmt::format("{:.9g},{:.9g}\n", probe.step_s, probe.load_s_per_sample);
  if (!out.flush()) throw std::runtime_error("cannot append to " + file.string());
}

void InterleavedCalibration::forget_drift_probes() const { std::filesystem::remove(dir_ / "drift-probes.csv"); }

// Lines a kill cut short are left out: the probes are a sample, not a journal.
std::vector<DriftProbe> read_drift_probes(const std::filesystem::path& dir) {
  std::vector<DriftProbe> probes;
  std::ifstream in(dir / "drift-probes.csv");
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    DriftProbe p;
    if (std::sscanf(line.c_str(), "%lf,%lf", &p.step_s, &p.load_s_per_sample) == 2 && p.step_s > 0 &&
        p.load_s_per_sample > 0) {
      probes.push_back(p);
    }
  }
  return probes;
}

std::vector<DriftProbe> InterleavedCalibration::drift_probes() const { return read_drift_probes(dir_); }

calibrate::ProfileDocument InterleavedCalibration::pooled(int rounds, const calibrate::ProfileProvenance& provenance) const {
  std::vector<ProfileSpec> specs;
  for (int r = 0; r < rounds; ++r) specs.push_back(load_profile(round_file(r)));
  return pool_profiles(specs, command_ + fmt::format(": median of {} rounds", rounds), provenance);
}

calibrate::ProfileDocument pool_sessions(const std::vector<std::filesystem::path>& calibration_dirs, int batch_size,
                                         const std::string& command, const calibrate::ProfileProvenance& provenance) {
  std::vector<ProfileSpec> rounds;
  std::vector<DriftProbe> probes;
  for (const auto& dir : calibration_dirs) {
    const std::size_t before = rounds.size();
    for (int r = 0; std::filesystem::exists(round_file_in(dir, r)); ++r) rounds.push_back(load_profile(round_file_in(dir, r)));
    if (rounds.size() == before) {
      throw ConfigError({Diagnostic{round_file_in(dir, 0).string(), 0, 0, "pool-profiles",
                                    "no calibration rounds: expected a session's OUT/calibration of --calibrate-each-round"}});
    }
    const auto session_probes = read_drift_probes(dir);
    probes.insert(probes.end(), session_probes.begin(), session_probes.end());
  }
  calibrate::ProfileDocument pooled = pool_profiles(
      rounds, fmt::format("{}: median of {} rounds of {} sessions", command, rounds.size(), calibration_dirs.size()), provenance);
  follow_drift(pooled, probes, batch_size);
  return pooled;
}

}  // namespace edgetwin::validate
