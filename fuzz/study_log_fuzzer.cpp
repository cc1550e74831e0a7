// Fuzz target: the Jetson study's CSV logs for `edgetwin-calibrate import --study-prefix`
// (docs/explanation/import.md). One input holds the fetch log, the compute log and, optionally, the epoch
// log, separated by lines "%%". Accepted logs give whole indices and times in range, and the
// profile derived from them loads back through the simulator's loader.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "calibrate/import/profile_import.hpp"
#include "calibrate/import/study_log_reader.hpp"
#include "calibrate/profile/profile_writer.hpp"
#include "fuzz/fuzz_support.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/profile_loader.hpp"

namespace {

using namespace edgetwin;
namespace fs = std::filesystem;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> parts = fuzz::parts_of(fuzz::text_of(data, size), 3);
  const fs::path prefix = fuzz::scratch_dir() / "run";
  fuzz::write_part("run_fetch.csv", parts[0]);
  if (parts.size() > 1) fuzz::write_part("run_compute.csv", parts[1]);
  else fs::remove(fuzz::scratch_dir() / "run_compute.csv");
  if (parts.size() > 2) fuzz::write_part("run_epoch_stats.csv", parts[2]);
  else fs::remove(fuzz::scratch_dir() / "run_epoch_stats.csv");
  try {
    const calibrate::StudyLogs logs = calibrate::read_study_logs(prefix, 16, 60000, false);
    for (const auto& b : logs.batches) {
      FUZZ_CHECK(b.epoch >= 0 && b.batch >= 0 && b.batch_size >= 1 && b.batch_size <= 16, "an index out of range");
      FUZZ_CHECK(std::isfinite(b.fetch_s) && b.fetch_s >= 0 && std::isfinite(b.compute_s) && b.compute_s >= 0,
                 "a time out of range");
    }
    for (const auto& e : logs.epochs) FUZZ_CHECK(std::isfinite(e.epoch_s) && e.epoch_s >= 0, "an epoch time out of range");
  } catch (const ConfigError& e) {
    fuzz::check_diagnostics(e, {}, "");
    return 0;
  }
  calibrate::ImportOptions options;
  options.study_prefix = prefix;
  options.command = "edgetwin-calibrate import --study-prefix run";
  try {
    const std::string text = calibrate::render_profile(calibrate::import_profile(options, fuzz::shipped_workload("lenet-mnist")));
    fuzz::write_part("imported.toml", text);
  } catch (const ConfigError& e) {
    fuzz::check_diagnostics(e, {}, "");
    return 0;
  }
  try {
    fuzz::check_costs(load_profile(fuzz::scratch_dir() / "imported.toml").costs);
  } catch (const ConfigError& e) {
    FUZZ_CHECK(false, std::string("the import derived a profile the loader refuses: ") + e.what());
  }
  return 0;
}
