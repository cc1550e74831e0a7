// edgetwin-validate: runs fresh real training for a grid of configurations the profile was not
// fitted on, predicts each with the simulator and reports the error. Parses the command line
// and hands over; bad input exits with code 2 and no report, a failure while measuring with 1.
#include <CLI/CLI.hpp>

#include "sim/app/command_line.hpp"
#include "sim/app/data_dir.hpp"
#include "calibrate/app/torch_side_errors.hpp"
#include "calibrate/training/process_memory.hpp"
#include "validate/validate_command.hpp"

int main(int argc, char** argv) {
  edgetwin::calibrate::use_repeatable_allocator();
  CLI::App app{"edgetwin-validate: predictions against fresh real runs, with the error reported honestly"};
  app.set_version_flag("--version", std::string("edgetwin-validate ") + EDGETWIN_VERSION);
  edgetwin::validate::ValidateOptions options;
  edgetwin::validate::ExportModelOptions export_options;
  edgetwin::validate::add_validate_options(app, options);
  edgetwin::validate::PadJpegOptions pad_options;
  edgetwin::validate::PoolProfilesOptions pool_options;
  CLI::App* export_command = edgetwin::validate::add_export_model_command(app, export_options);
  CLI::App* pad_command = edgetwin::validate::add_pad_jpeg_command(app, pad_options);
  CLI::App* pool_command = edgetwin::validate::add_pool_profiles_command(app, pool_options);
  app.require_subcommand(0, 1);
  if (const auto exit_code = edgetwin::parse_command_line(app, argc, argv)) return *exit_code;
  return edgetwin::run_command_reporting_errors(
      "edgetwin-validate",
      [&] {
        if (export_command->parsed()) return edgetwin::validate::run_export_model(export_options);
        if (pad_command->parsed()) return edgetwin::validate::run_pad_jpeg(pad_options);
        if (pool_command->parsed()) return edgetwin::validate::run_pool_profiles(pool_options);
        return edgetwin::validate::run_validate(options, edgetwin::data_dir());
      },
      edgetwin::calibrate::dataset_or_hardware_error);
}
