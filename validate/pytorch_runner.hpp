// The PyTorch runner (--runner pytorch): one real run is validate/pytorch_train.py in the
// system's Python with torch and torchvision, as a child process; everything around the run
// (balloon, page cache, load wait, interleaving, journal, report) stays in validate/real_run.cpp.
//
// Contract:
//   - pytorch_command_line() is the exact argv the script gets for a RunSpec (model, dataset,
//     loader, epochs, samples, seed, threads, crop) plus the probe interval and output files;
//   - run_pytorch() starts it pinned to spec.cpus (sim/app/external_program.hpp) and returns
//     its JSON summary. The script's exit code says whose fault a failure is:
//     2 (bad input: dataset, model) is a ConfigError on --runner, 3 or 127 (no torch in that
//     interpreter, cannot execute it) a ConfigError on --python, anything else a
//     std::runtime_error; each carries the script's output;
//   - read_pytorch_summary() checks the summary: a missing file, bad JSON, a missing or
//     negative field, or another epoch count than asked is a std::runtime_error naming the file
//     and the field (epochs[1].stall_s) - it is the tool's output, not the user's.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "calibrate/training/run_spec.hpp"
#include "validate/real_run.hpp"

namespace edgetwin::validate {

struct PythonRunner {
  std::filesystem::path interpreter;  // absolute path of a python3 with torch and torchvision
  std::filesystem::path script;       // validate/pytorch_train.py
};

// What the build found: /usr/bin/python3 first (python3 on PATH may be a pyenv shim without
// torch), the script in this source tree. An empty override keeps the build's interpreter.
PythonRunner python_runner(const std::filesystem::path& interpreter_override);

// The interpreter and script exist and are what they claim: ConfigError on --python otherwise.
void check_python_runner(const PythonRunner& runner);

struct PytorchRun {
  calibrate::RunSpec spec;
  int probe_every = 0;  // mincore every Nth sample's file; 0 = no probe (in-RAM formats)
  std::filesystem::path trace_csv;
  std::filesystem::path summary_json;
  std::filesystem::path step_scaling_csv;  // also time the step beside busy cores (calibration); "" = no
  std::filesystem::path loader_scaling_csv;  // also time loading beside loading cores (calibration); "" = no
};

std::vector<std::string> pytorch_command_line(const PythonRunner& runner, const PytorchRun& run);

struct PytorchSummary {
  std::vector<MeasuredEpoch> epochs;
  std::string torch_version;
  std::string torchvision_version;
};

PytorchSummary read_pytorch_summary(const std::filesystem::path& file, int epochs);

// Runs the script on the run's CPUs and reads its summary. Before the run, and after one that
// failed, removes what a killed run of the same files left (`<file>.partial`, `<file>.tmp-PID`).
PytorchSummary run_pytorch(const PythonRunner& runner, const PytorchRun& run);

}  // namespace edgetwin::validate
