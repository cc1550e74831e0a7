// `edgetwin predict`: options, loading and validation, one simulation, the report.
//
// Contract: everything the user gave is loaded and validated before the simulation starts;
// a ConfigError leaves no output file behind and main turns it into exit code 2.
#pragma once

#include <string>

#include "sim/app/run_setup.hpp"

namespace CLI {
class App;
}

namespace edgetwin {

struct PredictOptions {
  RunRequest request;
  std::string trace;
  bool json = false;
  bool csv = false;
};

void add_predict_command(CLI::App& app, PredictOptions& options);
int run_predict(const PredictOptions& options);

}  // namespace edgetwin
