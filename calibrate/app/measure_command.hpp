// `edgetwin-calibrate measure`: train real epochs of one configuration and report what was
// measured per epoch (text, or JSON in the shape of `edgetwin predict --json`). What a user
// runs to check a prediction by hand; validate does the same through the library.
#pragma once

#include <filesystem>

#include "calibrate/app/training_options.hpp"

namespace CLI {
class App;
}

namespace edgetwin::calibrate {

struct MeasureOptions {
  TrainingOptions training;
  int epochs = 1;
  bool cold = false;  // evict the dataset files before epoch 0 (the study's drop_caches)
  bool json = false;
  std::filesystem::path out;  // JSON file; "" = stdout
};

CLI::App* add_measure_command(CLI::App& app, MeasureOptions& options);
int run_measure(const MeasureOptions& options, const std::filesystem::path& data_dir);

}  // namespace edgetwin::calibrate
