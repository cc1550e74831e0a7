// `edgetwin-calibrate import`: turns Python training logs into a ProfileDocument the profile
// writer saves, with provenance saying which fields came from the logs and which were kept.
//
// Contract: exactly one of study_prefix / trace_csvs is given (std::invalid_argument
// otherwise); read and derivation errors are ConfigError.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/specs.hpp"
#include "calibrate/import/cost_derivation.hpp"
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
  std::string command;                                // the command line, for [profile]
};

ProfileDocument import_profile(const ImportOptions& options, const WorkloadSpec& workload);

}  // namespace edgetwin::calibrate
