// The command-line options that say what to simulate (device, workload, profile, loader
// settings, clocks), shared by every command that simulates one configuration (predict,
// estimate), so that they read the same everywhere.
#pragma once

#include "sim/app/run_setup.hpp"

namespace CLI {
class App;
}

namespace edgetwin {

void add_run_request_options(CLI::App& command, RunRequest& request);

}  // namespace edgetwin
