// `edgetwin predict`: options, loading and validation, one simulation, the report.
//
// Contract: everything the user gave is loaded and validated before the simulation starts;
// a ConfigError leaves no output file behind and main turns it into exit code 2.
#pragma once

#include <string>

#include "config/specs.hpp"

namespace CLI {
class App;
}

namespace edgetwin {

struct PredictOptions {
  std::string device = "host-x86-2core";
  std::string workload = "lenet-mnist";
  std::string profile;
  std::string trace;
  bool json = false;
  bool csv = false;
  std::string cache = "cold";
  // Loader settings left unset on the command line keep the workload's values.
  std::string storage;
  std::optional<int> workers;
  std::optional<int> prefetch_factor;
  std::optional<int> batch_size;
  std::optional<bool> persistent_workers;
  std::optional<bool> drop_last;
  int epochs = 1;
  std::uint64_t seed = 1;
};

void add_predict_command(CLI::App& app, PredictOptions& options);
int run_predict(const PredictOptions& options);

}  // namespace edgetwin
