// Calibration inside the validation session (--calibrate-each-round), interleaved with the real
// runs of the same session: on this shared VM the whole machine runs up
// to 1.8x slower for minutes at a time, so a profile calibrated once before the session
// inherits whatever that moment was, and every prediction carries it. Instead, each round
// runs edgetwin-calibrate's full plan once, at a random place among the configurations, and
// the profile the predictions use pools the rounds: the median of each cost over the rounds.
//
// Contract: run(round) calibrates now (in-process, the same Calibrator edgetwin-calibrate
// runs; with the PyTorch runner, validate/pytorch_calibration.hpp's Python traces through
// calibrate/import) and writes <dir>/round-<R>.toml atomically through the simulator's validator, so a
// resumed session finds the rounds it already calibrated (done()). pooled() loads every
// round's file back and returns the pooled profile: each scalar cost and each compute-curve
// point is the median over the rounds, footprint and reference clocks are the first round's,
// and [measurements] records every pooled figure's median/p10/p90 over rounds, i.e. the
// calibration's own drift. Calibration is disjoint from the grid for the same reason as a
// calibration run before the session (calibration_overlap.hpp).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/app/calibrator.hpp"
#include "calibrate/datasets/dataset.hpp"
#include "calibrate/hardware/reclaim_probe.hpp"
#include "calibrate/profile/profile_document.hpp"
#include "calibrate/training/run_spec.hpp"

namespace edgetwin::validate {

// One probe between runs: a sequential run's mean step (the trainer's whole per-batch work on a
// CPU-only host, as calibration's compute) and its loading per sample (fetch + preprocess +
// collate, as calibration's loader costs), warm cache, at the workload's batch size.
struct DriftProbe {
  double step_s = 0;
  double load_s_per_sample = 0;
};

// Times one probe: `spec` run once, its samples read ahead, its first batches dropped.
DriftProbe measure_drift_probe(const calibrate::RunSpec& spec, const calibrate::Dataset& dataset);

// Scales a pooled CPU-only profile to the probes: its compute curve by the probes' median step
// over the curve's point at `batch_size`, its loader costs by their median loading over the
// profile's. Records both medians and both factors. No probes, or a GPU profile: unchanged.
void follow_drift(calibrate::ProfileDocument& pooled, const std::vector<DriftProbe>& probes, int batch_size);

class InterleavedCalibration {
 public:
  // One round's profile, measured now (round counts from 0).
  using RoundCalibration = std::function<calibrate::ProfileDocument(int round)>;

  InterleavedCalibration(calibrate::CalibrationSetup setup, std::filesystem::path dir);
  InterleavedCalibration(std::string workload, std::string command, RoundCalibration calibrate_round,
                         std::filesystem::path dir);

  // Each round also measures the CPU of reclaiming the page cache under this pressure (the
  // grid's balloon) into costs.reclaim_cpu_s_per_byte; a probe the machine disturbed (the
  // balloon gave memory back) or that could not run leaves the round without it, with a note.
  void measure_reclaim_each_round(calibrate::ReclaimProbeSpec probe) { reclaim_probe_ = std::move(probe); }

  // Between the runs of the rounds (validation_session.cpp), a short sequential run times the
  // step and the loading at that moment: the calibrations sample the machine for a minute a
  // round, the runs for the rest of it, and on a shared VM the two drift apart by 20-50 % in
  // either direction (docs/explanation/validation.md).
  // Each probe is appended to <dir>/drift-probes.csv as it is taken; follow_drift scales the
  // pooled compute curve and loader costs to their median.
  void record_drift_probe(const DriftProbe& probe) const;
  void forget_drift_probes() const;  // a session that resumes nothing starts without any
  std::vector<DriftProbe> drift_probes() const;

  bool done(int round) const;
  void run(int round);
  calibrate::ProfileDocument pooled(int rounds, const calibrate::ProfileProvenance& provenance) const;
  std::filesystem::path round_file(int round) const;

 private:
  std::string workload_;
  std::string command_;
  RoundCalibration calibrate_round_;
  std::filesystem::path dir_;
  std::optional<calibrate::ReclaimProbeSpec> reclaim_probe_;
};

// The probe's figures into a round's profile: the cost, and the per-byte CPU of a miss with RAM
// to spare, of a hit and of a miss under pressure as measurement records.
void add_reclaim(calibrate::ProfileDocument& profile, const calibrate::ReclaimMeasurement& m);

// The probes a session recorded in `dir` (InterleavedCalibration::record_drift_probe); none
// when it took none.
std::vector<DriftProbe> read_drift_probes(const std::filesystem::path& dir);

// Several sessions' calibrations as one profile (edgetwin-validate pool-profiles, for
// --rescore of the same sessions' runs): every round file of each session's calibration
// directory pooled as one session's rounds are, then scaled to all their drift probes
// together at `batch_size`. A directory without round-1.toml is a ConfigError naming it.
calibrate::ProfileDocument pool_sessions(const std::vector<std::filesystem::path>& calibration_dirs, int batch_size,
                                         const std::string& command, const calibrate::ProfileProvenance& provenance);

// The pooling alone, for tests: medians over the given round profiles (at least one).
calibrate::ProfileDocument pool_profiles(const std::vector<ProfileSpec>& rounds, const std::string& command,
                                         const calibrate::ProfileProvenance& provenance);

}  // namespace edgetwin::validate
