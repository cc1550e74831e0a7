// `edgetwin predict`: options, loading and validation, one simulation, the report.
//
// Contract: everything the user gave is loaded and validated before the simulation starts;
// a ConfigError leaves no output file behind and main turns it into exit code 2.
#pragma once

#include <string>

#include "sim/app/run_setup.hpp"
#include "sim/report/report_writer.hpp"

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
// The simulation and its report, without writing it: what run_predict prints and what the
// Python bindings return (python/edgetwin/). `trace`, when not empty, is the --trace file.
RunReport predict_report(const RunRequest& request, const std::string& trace = "");

}  // namespace edgetwin
