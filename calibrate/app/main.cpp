// edgetwin-calibrate: measures real LibTorch training on the device at hand and writes the
// profile TOML (and host device TOML) that `edgetwin predict` loads. Parses the command line
// and hands over to one command; bad input exits with code 2 and a message on stderr.
#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "calibrate/app/census_command.hpp"
#include "calibrate/app/import_command.hpp"
#include "calibrate/app/make_dataset_command.hpp"
#include "calibrate/app/measure_command.hpp"
#include "calibrate/app/run_command.hpp"
#include "calibrate/app/watch_command.hpp"
#include "sim/app/command_line.hpp"
#include "sim/app/data_dir.hpp"
#include "calibrate/app/torch_side_errors.hpp"
#include "calibrate/training/process_memory.hpp"

namespace {

// The command line as typed, for the profile's [profile] command.
std::string command_line(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) {
    std::string arg = i == 0 ? std::filesystem::path(argv[0]).filename().string() : argv[i];
    if (arg.find_first_of(" \t\"'") != std::string::npos) arg = "'" + arg + "'";
    out += (i ? " " : "") + arg;
  }
  return out;
}

// Every subcommand's options, filled by the parser.
struct Commands {
  edgetwin::calibrate::RunOptions run;
  edgetwin::calibrate::MeasureOptions measure;
  edgetwin::calibrate::MakeDatasetOptions make;
  edgetwin::calibrate::ImportCommandOptions import;
  edgetwin::calibrate::CensusOptions census;
  edgetwin::calibrate::WatchOptions watch;
};

int dispatch(const CLI::App& app, Commands& c) {
  auto& [run, measure, make, import, census, watch] = c;
  const std::filesystem::path data_dir = edgetwin::data_dir();
  if (app.got_subcommand("run")) return edgetwin::calibrate::run_calibration(run, data_dir);
  if (app.got_subcommand("measure")) return edgetwin::calibrate::run_measure(measure, data_dir);
  if (app.got_subcommand("make-dataset")) return edgetwin::calibrate::run_make_dataset(make);
  if (app.got_subcommand("import")) return edgetwin::calibrate::run_import(import, data_dir);
  if (app.got_subcommand("census")) return edgetwin::calibrate::run_census(census, data_dir);
  if (app.got_subcommand("watch")) return edgetwin::calibrate::run_watch(watch);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  edgetwin::calibrate::use_repeatable_allocator();
  CLI::App app{
      "edgetwin-calibrate: measure real LibTorch training on this device and write the profile edgetwin loads"};
  app.set_version_flag("--version", std::string("edgetwin-calibrate ") + EDGETWIN_VERSION);
  app.require_subcommand(1);
  Commands c;
  edgetwin::calibrate::add_run_command(app, c.run);
  edgetwin::calibrate::add_measure_command(app, c.measure);
  edgetwin::calibrate::add_make_dataset_command(app, c.make);
  edgetwin::calibrate::add_import_command(app, c.import);
  edgetwin::calibrate::add_census_command(app, c.census);
  edgetwin::calibrate::add_watch_command(app, c.watch);
  std::vector<char*> arguments = edgetwin::calibrate::without_watch_separator(argc, argv);
  if (const auto exit_code = edgetwin::parse_command_line(app, static_cast<int>(arguments.size()), arguments.data()))
    return *exit_code;
  c.run.command = c.import.command = c.census.command = command_line(argc, argv);
  return edgetwin::run_command_reporting_errors(
      "edgetwin-calibrate", [&] { return dispatch(app, c); },
      edgetwin::calibrate::dataset_or_hardware_error);
}
