// One validation session: check all input, predict every grid configuration, run each
// configuration `repeats` times in interleaved rounds, compare, write the report.
//
// Order, and why:
//   1. everything the user gave is loaded and checked (grid, workload, profile against device
//      and workload, dataset, calibration overlap, balloon sizes, one training step of the
//      model on the data) before anything is measured: bad input means ConfigError (or
//      DatasetError / HardwareError), exit code 2 and no report;
//   2. all predictions first, each simulation in a forked child, while the process has no
//      LibTorch threads yet (fork copies only the calling thread);
//   3. measurements in rounds: each round runs every configuration once, in an order drawn
//      afresh each round (seeded), so that drift of a shared machine, and whatever one run
//      leaves behind for the next, hits all configurations alike; before each round the
//      session waits for a quiet machine when asked (--max-load);
//   4. the report is written only when everything has succeeded.
// Every finished run is journaled (run_journal.hpp), so a killed session started again with the
// same input resumes. With --rescore, step 3 reads an earlier report's runs instead.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "validate/validation_report.hpp"

namespace edgetwin::validate {

// The real runs' trainers (--runner): calibrate's LibTorch runner, or PyTorch in Python
// (validate/pytorch_runner.hpp).
inline const std::vector<std::string>& runner_names() {
  static const std::vector<std::string> names{"libtorch", "pytorch"};
  return names;
}

struct ValidateOptions {
  std::optional<std::string> runner;  // one of runner_names(); unset: libtorch, or a re-scored report's
  std::filesystem::path python;       // --python: the interpreter of the PyTorch runner ("" = the build's)
  std::string device;
  std::string workload;
  std::string profile;
  std::filesystem::path grid;      // "" = <data dir>/validate/grids/<workload name>.toml
  std::filesystem::path out = "validation";
  std::optional<int> repeats;      // overrides grid.repeats
  std::filesystem::path dataset;   // the dataset directory, in the workload's on-disk format
  std::optional<std::string> model;   // built-in name or TorchScript file (as edgetwin-calibrate's --model)
  std::optional<std::string> format;  // dataset format (default: from the workload)
  std::optional<int> crop_size;       // jpeg-folder crop side (default: from input_bytes_per_sample)
  int intra_op_threads = 1;           // as edgetwin-calibrate's default
  bool allow_overlap = false;
  bool measured_os_base = true;       // predict with the machine's memory use at the start (prediction.hpp)
  int probe_every = 4;                // mincore probe of every Nth sample index
  LoadWaitPolicy load_wait;
  // Take the measurements from these earlier report.json files instead of measuring (several:
  // their sessions' runs pooled, report_reader.hpp).
  std::vector<std::filesystem::path> rescore;
  bool calibrate_each_round = false;  // instead of --profile (interleaved_calibration.hpp)
  bool host_watch = true;             // time fixed work on each CPU during the runs (host_speed_monitor.hpp)
  int host_retries = 2;               // measure a run the host slowed down again, at most this many times
  double host_wait_s = 30;            // before each run and calibration, wait at most this long for fast CPUs
  bool quiet = false;
};

// Runs the session and writes the report; returns the report it wrote.
ValidationReport run_validation(const ValidateOptions& options, const std::filesystem::path& data_dir);

}  // namespace edgetwin::validate
