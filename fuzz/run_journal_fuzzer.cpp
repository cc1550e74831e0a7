// Fuzz target: a validation session's run journal (validate/run_journal.hpp), as a killed
// session leaves it: any bytes at all. Loading never throws; it keeps the runs of the lines
// before the first that does not parse, and nothing when the session key differs.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_support.hpp"
#include "validate/run_journal.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace edgetwin;
  const auto file = fuzz::write_input("journal.jsonl", data, size);
  const auto runs = validate::RunJournal(file, "fuzz-session").load();
  const std::string text = fuzz::text_of(data, size);
  const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  FUZZ_CHECK(runs.size() <= lines, "more runs than lines");
  // A journal whose first line is not this session's key is another session's.
  if (text.find("fuzz-session") == std::string::npos) FUZZ_CHECK(runs.empty(), "runs of another session kept");
  return 0;
}
