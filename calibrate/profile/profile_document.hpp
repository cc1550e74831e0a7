// Everything a profile TOML holds: the ProfileSpec the simulator loads, the provenance of
// the run that measured it, and the raw measurement records behind the numbers.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/config/specs.hpp"
#include "calibrate/profile/measurement.hpp"

namespace edgetwin::calibrate {

struct ProfileProvenance {
  std::string host;
  std::string cpu_model;
  int cores = 0;
  std::string libtorch_version;  // "" when no LibTorch was involved (import)
  std::string power;             // "no power sensor" or the sensor description; written as a comment
};

// [profile] created / command come from ProfileSpec (created: ISO 8601 UTC, see iso_utc_now).
struct ProfileDocument {
  ProfileSpec profile;             // costs.provenance and footprint->provenance are written too
  ProfileProvenance provenance;
  std::vector<Measurement> measurements;
  // What the command that made it must tell its user (stderr), not written to the file: an
  // import's traces that --skip-epochs left out whole, disturbed runs it was told to accept.
  std::vector<std::string> warnings;
  // An import's measured worker-process terms, for a device file's [worker_processes]
  // (calibrate/import/machine_terms.hpp); not written to the profile as such.
  std::optional<WorkerProcessTerms> worker_terms;
};

// Current UTC time as "YYYY-MM-DDTHH:MM:SSZ".
std::string iso_utc_now();

}  // namespace edgetwin::calibrate
