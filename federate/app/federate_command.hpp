// edgetwin-federate's one command: plans a fleet's rounds as plan-round does, then trains the
// rounds' counted updates for real while edgetwin's round engine keeps the clock, and reports
// the time and the energy to the target accuracy (docs/explanation/federated.md, "Learning").
//
// Contract: every input problem (the fleet file and its [learning] table, the data set, the
// model, the options) is a located ConfigError, raised before anything trains; a single plan
// learns in this process (its round engine is the process's one engine), several (--compare,
// --fedscale) each in a child; under --mpi every rank runs the same program and the clients of
// a round are spread over the ranks, rank 0 writing the outputs and the checkpoints. A search's
// candidates (--search) learn in children, --jobs at once, spread over the ranks under --mpi,
// each finished one kept in --search-dir by the child that ran it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/app/round_overrides.hpp"
#include "sim/config/input_limits.hpp"

namespace CLI {
class App;
}

namespace edgetwin::federate {

struct FederateOptions {
  std::string fleet;
  std::string objective = "energy";
  RoundOverrides round;
  std::string partition;  // "iid", "dirichlet:ALPHA" or "shards:K"; "": the fleet file's
  std::optional<double> target_accuracy;
  std::optional<int> evaluate_every;
  std::optional<std::int64_t> max_test_samples;
  bool stop_at_target = false;
  std::string clock = "edgetwin";
  bool fedscale = false;
  std::vector<std::string> compare;
  std::vector<std::string> search;  // one axis each: "deadline=30|60"
  std::string search_dir;           // finished candidates; "": none kept
  std::optional<double> time_bound_s;
  bool json = false;
  bool csv = false;
  std::string plot;
  std::string checkpoint;  // a directory; "": none
  int jobs = 0;            // 0: one per CPU this process may use
  bool mpi = false;
  std::int64_t max_devices = limits::fleet_devices;
  bool quiet = false;
  std::vector<std::string> arguments;  // the command line, set by main() (a checkpoint's identity)
};

void add_federate_options(CLI::App& app, FederateOptions& options);
int run_federate(const FederateOptions& options);

}  // namespace edgetwin::federate
