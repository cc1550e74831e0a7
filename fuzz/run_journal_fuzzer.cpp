// Fuzz target: a validation session's run journal (validate/run_journal.hpp), as a killed
// session, a full disk or a damaged file system leaves it: any bytes at all. Loading keeps the
// runs of the whole lines under their checksums, and nothing when the session key differs; a
// whole line that is damaged, or holds a figure no measurement can have, is a ConfigError placed
// at the journal's line. Every run it keeps has its figures within range.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_support.hpp"
#include "sim/config/config_error.hpp"
#include "validate/run_journal.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace edgetwin;
  const auto file = fuzz::write_input("journal.jsonl", data, size);
  const std::string text = fuzz::text_of(data, size);
  try {
    const auto runs = validate::RunJournal(file, "fuzz-session").load();
    const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    FUZZ_CHECK(runs.size() <= lines, "more runs than lines");
    // A journal whose first line is not this session's key is another session's.
    if (text.find("fuzz-session") == std::string::npos) FUZZ_CHECK(runs.empty(), "runs of another session kept");
    for (const auto& [key, run] : runs)
      for (const auto& epoch : run.epochs)
        FUZZ_CHECK(std::isfinite(epoch.e2e_s) && epoch.e2e_s >= 0 && epoch.e2e_s <= 1e8 && epoch.stall_s <= 1.01 * epoch.e2e_s,
                   "a run with a figure out of range was kept");
  } catch (const ConfigError& e) {
    FUZZ_CHECK(e.diagnostics().size() == 1 && e.diagnostics().front().file == file.string(),
               "a journal problem that does not name the journal");
    fuzz::check_diagnostics(e, {file}, text);
  }
  return 0;
}
