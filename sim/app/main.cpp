// edgetwin: a digital twin of DNN training on edge devices. Parses the command line and
// hands over to one command; bad input exits with code 2 and a message on stderr.
#include <iostream>

#include <CLI/CLI.hpp>

#include "app/catalogue_commands.hpp"
#include "app/predict_command.hpp"
#include "app/sweep_command.hpp"
#include "config/config_error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"edgetwin: predict stall, epoch time and energy of DNN training on edge devices"};
  app.require_subcommand(1);
  edgetwin::PredictOptions predict;
  edgetwin::add_predict_command(app, predict);
  edgetwin::SweepOptions sweep;
  edgetwin::add_sweep_command(app, sweep);
  edgetwin::CatalogueOptions catalogue;
  edgetwin::add_catalogue_commands(app, catalogue);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  try {
    if (app.got_subcommand("predict")) return edgetwin::run_predict(predict);
    if (app.got_subcommand("sweep")) return edgetwin::run_sweep_command(sweep);
    if (edgetwin::run_catalogue_command(app, catalogue)) return 0;
  } catch (const edgetwin::ConfigError& e) {
    std::cerr << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "edgetwin: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
