// The command line of edgetwin-validate: CLI11 glue over ValidateOptions, two helper commands
// that prepare the JPEG-folder workload (export-grey-lenet, pad-jpeg-metadata), and one that
// pools several sessions' calibrations for a pooled --rescore (pool-profiles).
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "validate/validation_session.hpp"

namespace CLI {
class App;
}

namespace edgetwin::validate {

struct ExportModelOptions {
  std::filesystem::path out;
  int classes = 10;
  std::uint64_t seed = 1;
};

struct PadJpegOptions {
  std::filesystem::path dataset;
  std::uint64_t bytes = 65536;
};

struct PoolProfilesOptions {
  std::vector<std::filesystem::path> sessions;  // --out directories of --calibrate-each-round sessions
  std::filesystem::path out;
};

void add_validate_options(CLI::App& app, ValidateOptions& options);
CLI::App* add_export_model_command(CLI::App& app, ExportModelOptions& options);
CLI::App* add_pad_jpeg_command(CLI::App& app, PadJpegOptions& options);
CLI::App* add_pool_profiles_command(CLI::App& app, PoolProfilesOptions& options);

// Checks what CLI11 cannot (required options when no subcommand is given); throws ConfigError.
void check_validate_options(const ValidateOptions& options);

int run_validate(const ValidateOptions& options, const std::filesystem::path& data_dir);
int run_export_model(const ExportModelOptions& options);
int run_pad_jpeg(const PadJpegOptions& options);
int run_pool_profiles(const PoolProfilesOptions& options);

}  // namespace edgetwin::validate
