// Fuzz target: a per-batch trace CSV for `edgetwin-calibrate import --trace` (docs/explanation/import.md).
// An accepted trace has whole batch sizes and times in range, and the profile the import derives
// from it (with or without --sequential) is one the simulator's loader takes back: what import
// writes, predict reads.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "calibrate/import/profile_import.hpp"
#include "calibrate/import/trace_csv_reader.hpp"
#include "calibrate/profile/profile_writer.hpp"
#include "fuzz/fuzz_support.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/profile_loader.hpp"

namespace {

using namespace edgetwin;

void check_import(const std::filesystem::path& file, bool sequential) {
  calibrate::ImportOptions options;
  options.trace_csvs = {file};
  options.derivation.sequential = sequential;
  options.command = "edgetwin-calibrate import --trace fuzz.csv";
  calibrate::ProfileDocument document;
  try {
    document = calibrate::import_profile(options, fuzz::shipped_workload("lenet-mnist"));
  } catch (const ConfigError& e) {
    fuzz::check_diagnostics(e, {file}, "");
    return;
  }
  const auto written = fuzz::scratch_dir() / "imported.toml";
  const std::string text = calibrate::render_profile(document);
  fuzz::write_input("imported.toml", reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
  try {
    fuzz::check_costs(load_profile(written).costs);
  } catch (const ConfigError& e) {
    FUZZ_CHECK(false, std::string("the import derived a profile the loader refuses: ") + e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = fuzz::write_input("trace.csv", data, size);
  try {
    for (const calibrate::BatchRecord& b : calibrate::read_trace_csv(file)) {
      FUZZ_CHECK(b.batch_size >= 1 && b.batch_size <= 100'000'000, "batch size out of range");
      FUZZ_CHECK(std::isfinite(b.fetch_s) && b.fetch_s >= 0 && std::isfinite(b.compute_s) && b.compute_s >= 0,
                 "a time out of range");
      FUZZ_CHECK(!b.has_io() || b.io_s <= b.fetch_s, "reads longer than the wait");
    }
  } catch (const ConfigError& e) {
    fuzz::check_diagnostics(e, {file}, fuzz::text_of(data, size));
    return 0;
  }
  check_import(file, true);
  check_import(file, false);
  return 0;
}
