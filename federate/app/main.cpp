// edgetwin-federate: federated training with real learning on edgetwin's clock. Plans a
// fleet's rounds as `edgetwin plan-round` does, trains each round's counted updates for real
// with LibTorch and reports the simulated time and energy to the target accuracy
// (docs/explanation/federated.md, "Learning"). Bad input exits 2 with a located message.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "calibrate/datasets/dataset_error.hpp"
#include "federate/app/federate_command.hpp"
#include "sim/app/command_line.hpp"

namespace {

std::optional<std::string> dataset_error() {
  try {
    throw;
  } catch (const edgetwin::calibrate::DatasetError& e) {
    return std::string("dataset: ") + e.what();
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"edgetwin-federate: federated training with real learning on edgetwin's clock; the time and the "
               "energy to a target accuracy"};
  app.set_version_flag("--version", std::string("edgetwin-federate ") + EDGETWIN_VERSION);
  edgetwin::federate::FederateOptions options;
  edgetwin::federate::add_federate_options(app, options);
  if (const auto exit_code = edgetwin::parse_command_line(app, argc, argv)) return *exit_code;
  options.arguments.assign(argv + 1, argv + argc);
  return edgetwin::run_command_reporting_errors(
      "edgetwin-federate", [&] { return edgetwin::federate::run_federate(options); }, dataset_error);
}
