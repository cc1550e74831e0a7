// `edgetwin-calibrate import`: turns Python training logs into a ProfileDocument the profile
// writer saves, with provenance saying which fields came from the logs and which were kept.
//
// Contract: exactly one of study_prefix / trace_csvs is given (std::invalid_argument
// otherwise); read and derivation errors are ConfigError. A disturbed run
// (disturbance_check.hpp; with host_watch, host_watch_check.hpp) is a ConfigError naming the
// trace and what was off, unless accept_disturbed, when it is a warning of the document and a
// note of its provenance; a trace that skip_epochs leaves out whole is a warning and a note (its
// rules then keep the workload's values).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/specs.hpp"
#include "calibrate/import/cost_derivation.hpp"
#include "calibrate/import/host_watch_check.hpp"
#include "calibrate/profile/profile_document.hpp"

namespace edgetwin::calibrate {

struct ImportOptions {
  std::optional<std::filesystem::path> study_prefix;  // <prefix>_fetch.csv ...
  std::vector<std::filesystem::path> trace_csvs;      // plain trace CSVs (several runs pooled)
  // Sequential traces whose epoch 0 read every sample from storage and epoch 1 from the page
  // cache: a miss's costs (derive_miss_costs), and nothing else.
  std::vector<std::filesystem::path> cold_then_warm_csvs;
  std::string storage_name;  // the medium those traces read from ("": a miss's time left out)
  // Traces with worker processes keeping the cores busy and step_cpu_s logged: the trainer's
  // share of a core (derive_step_share), and nothing else.
  std::vector<std::filesystem::path> share_csvs;
  int batch_size = 0;                                 // study logs: 0 = the workload's loader batch size
  DerivationOptions derivation;
  // Import runs that find_disturbances flags (calibrate/import/disturbance_check.hpp) with a
  // warning and a note, instead of refusing them.
  bool accept_disturbed = false;
  // What a host-speed watch saw during the runs: a run the CPUs ran slow through is disturbed
  // too (calibrate/import/host_watch_check.hpp).
  std::optional<HostWatchFiles> host_watch;
  std::string command;                                // the command line, for [profile]
  // The device's [worker_processes]: the terms the logs do not measure are taken from it
  // (calibrate/import/machine_terms.hpp).
  std::optional<WorkerProcessTerms> machine_terms;
  std::string machine_name;  // the device they belong to, for the provenance
};

ProfileDocument import_profile(const ImportOptions& options, const WorkloadSpec& workload);

}  // namespace edgetwin::calibrate
