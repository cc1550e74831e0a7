// edgetwin: a digital twin of DNN training on edge devices. Parses the command line and
// hands over to one command; bad input exits with code 2 and a message on stderr.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "sim/app/catalogue_commands.hpp"
#include "sim/app/command_line.hpp"
#include "sim/app/estimate_command.hpp"
#include "sim/app/merge_command.hpp"
#include "sim/app/plan_round_command.hpp"
#include "sim/app/predict_command.hpp"
#include "sim/app/sweep_command.hpp"
#include "sim/config/config_error.hpp"

namespace {

struct Commands {
  CLI::App app{"edgetwin: predict stall, epoch time and energy of DNN training on edge devices"};
  edgetwin::PredictOptions predict;
  edgetwin::SweepOptions sweep;
  edgetwin::EstimateOptions estimate;
  edgetwin::PlanRoundOptions plan_round;
  edgetwin::CatalogueOptions catalogue;
  std::vector<std::string> shard_files;

  Commands() {
    app.set_version_flag("--version", std::string("edgetwin ") + EDGETWIN_VERSION);
    app.require_subcommand(1);
    edgetwin::add_predict_command(app, predict);
    edgetwin::add_sweep_command(app, sweep);
    edgetwin::add_estimate_command(app, estimate);
    edgetwin::add_plan_round_command(app, plan_round);
    edgetwin::add_catalogue_commands(app, catalogue);
    app.add_subcommand("merge", "Combine the shard files of a --shard K/N sweep or plan-round into the outputs of "
                                "one run: edgetwin merge SHARD... -- --csv out.csv ...")
        ->add_option("shards", shard_files, "Shard files (*.etshard)");
  }

  // The arguments after the command's name, for shard files (sim/app/scale_out.hpp).
  void keep_arguments(int argc, char** argv) {
    const std::vector<std::string> after(argv + std::min(argc, 2), argv + argc);
    sweep.scale_out.arguments = after;
    plan_round.scale_out.arguments = after;
  }

  int run() {
    if (app.got_subcommand("predict")) return edgetwin::run_predict(predict);
    if (app.got_subcommand("sweep")) return edgetwin::run_sweep_command(sweep);
    if (app.got_subcommand("estimate")) return edgetwin::run_estimate(estimate);
    if (app.got_subcommand("plan-round")) return edgetwin::run_plan_round(plan_round);
    edgetwin::run_catalogue_command(app, catalogue);
    return 0;
  }
};

std::vector<char*> argv_of(std::vector<std::string>& words) {
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  return argv;
}

// The shards' command line, run again inside merge: its errors are merge's.
int run_merged(std::vector<std::string> words) {
  Commands commands;
  auto argv = argv_of(words);
  const int argc = static_cast<int>(argv.size());
  try {
    commands.app.parse(argc, argv.data());
  } catch (const CLI::ParseError& e) {
    throw edgetwin::ConfigError({edgetwin::Diagnostic{"", 0, 0, "merge", std::string("the options after -- : ") + e.what()}});
  }
  commands.keep_arguments(argc, argv.data());
  return commands.run();
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> words(argv, argv + argc);
  const bool merge = words.size() > 2 && words[1] == "merge" && words[2] != "--help" && words[2] != "-h";
  if (merge) {
    return edgetwin::run_command_reporting_errors("edgetwin", [&] {
      return edgetwin::run_merge({words.begin() + 2, words.end()}, run_merged);
    });
  }
  Commands commands;
  if (const auto exit_code = edgetwin::parse_command_line(commands.app, argc, argv)) return *exit_code;
  if (commands.app.got_subcommand("merge"))
    return edgetwin::run_command_reporting_errors("edgetwin", [&] {
      return edgetwin::run_merge(commands.shard_files, run_merged);
    });
  commands.keep_arguments(argc, argv);
  return edgetwin::run_command_reporting_errors("edgetwin", [&] { return commands.run(); });
}
