// `edgetwin-calibrate census`: a model's per-layer operations, parameters, working set and
// saved activations from one traced training step; the memory of real steps at other batch
// sizes beside the census's model; the largest batch that fits on each catalogue device; the
// step estimated on device rooflines; and the [model] and [footprint] tables of a workload.
//
// Contract: every input (model, input shape, optimizer, workload, devices, output paths) is
// checked before anything is traced; bad input is a ConfigError naming the option (exit 2)
// and nothing is written. --write-workload rewrites the workload's [model] and [footprint]
// (calibrate/census/workload_tables.hpp) into a temp file, loads it back with the simulator's
// load_workload, and only then renames it over the target (--out, else the workload file).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace edgetwin::calibrate {

struct CensusOptions {
  std::string model;
  std::string input;  // one sample: "1x28x28"
  std::optional<int> batch_size;
  int classes = 0;
  std::string optimizer = "sgd-momentum";
  std::string torch_device = "cpu";
  std::uint64_t seed = 1;
  bool json = false;
  bool csv = false;
  bool lecture = false;
  std::filesystem::path plot;
  std::vector<int> measure_memory;
  std::string workload;
  std::optional<int> workers;
  bool write_workload = false;
  std::filesystem::path out;
  std::vector<std::string> estimate_on;
  std::string command;  // the command line, for the tables' provenance
};

CLI::App* add_census_command(CLI::App& app, CensusOptions& options);
int run_census(const CensusOptions& options, const std::filesystem::path& data_dir);

}  // namespace edgetwin::calibrate
