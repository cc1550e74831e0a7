// `edgetwin-calibrate measure`: train real epochs of one configuration and report what was
// measured per epoch (text, or JSON in the shape of `edgetwin predict --json`). What a user
// runs to check a prediction by hand; validate does the same through the library. The run is
// watched as `run`'s are (calibrate/app/disturbance_guard.hpp), the CPUs' speed against a
// warm-up just before it (calibrate/app/lone_run_host_watch.hpp): one that other processes
// disturbed, or the CPUs ran slow through, is trained again (--retries), then refused with exit 2
// and nothing written, or kept with --accept-disturbed, a warning and a "disturbed" note in the JSON.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "calibrate/app/measured_report.hpp"
#include "calibrate/app/training_options.hpp"
#include "calibrate/training/run_result.hpp"

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
  DisturbancePolicy disturbance;  // --retries, --accept-disturbed
};

CLI::App* add_measure_command(CLI::App& app, MeasureOptions& options);

// The run trained under the host watch; what was kept disturbed goes, as a warning naming
// `command`, to stderr too.
WatchedTraining train_watched(const RunSpec& spec, const DisturbancePolicy& policy, const char* command);
int run_measure(const MeasureOptions& options, const std::filesystem::path& data_dir);

}  // namespace edgetwin::calibrate
