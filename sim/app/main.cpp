// edgetwin: a digital twin of DNN training on edge devices. Parses the command line and
// hands over to one command; bad input exits with code 2 and a message on stderr.
#include <CLI/CLI.hpp>

#include "sim/app/catalogue_commands.hpp"
#include "sim/app/estimate_command.hpp"
#include "sim/app/plan_round_command.hpp"
#include "sim/app/predict_command.hpp"
#include "sim/app/sweep_command.hpp"
#include "sim/app/command_line.hpp"

int main(int argc, char** argv) {
  CLI::App app{"edgetwin: predict stall, epoch time and energy of DNN training on edge devices"};
  app.require_subcommand(1);
  edgetwin::PredictOptions predict;
  edgetwin::add_predict_command(app, predict);
  edgetwin::SweepOptions sweep;
  edgetwin::add_sweep_command(app, sweep);
  edgetwin::EstimateOptions estimate;
  edgetwin::add_estimate_command(app, estimate);
  edgetwin::PlanRoundOptions plan_round;
  edgetwin::add_plan_round_command(app, plan_round);
  edgetwin::CatalogueOptions catalogue;
  edgetwin::add_catalogue_commands(app, catalogue);
  if (const auto exit_code = edgetwin::parse_command_line(app, argc, argv)) return *exit_code;
  return edgetwin::run_command_reporting_errors("edgetwin", [&] {
    if (app.got_subcommand("predict")) return edgetwin::run_predict(predict);
    if (app.got_subcommand("sweep")) return edgetwin::run_sweep_command(sweep);
    if (app.got_subcommand("estimate")) return edgetwin::run_estimate(estimate);
    if (app.got_subcommand("plan-round")) return edgetwin::run_plan_round(plan_round);
    edgetwin::run_catalogue_command(app, catalogue);
    return 0;
  });
}
