// Fuzz target: an earlier edgetwin-validate report.json for --rescore
// (validate/report_reader.hpp). Whatever the file holds, the reader gives the measurements or
// a ConfigError naming the file, on one line; nothing else may escape.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_support.hpp"
#include "sim/config/config_error.hpp"
#include "validate/report_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace edgetwin;
  const auto file = fuzz::write_input("report.json", data, size);
  try {
    const validate::EarlierMeasurements m = validate::read_measurements(file);
    FUZZ_CHECK(m.files.size() == 1 && m.files.front() == file, "measurements of another file");
  } catch (const ConfigError& e) {
    FUZZ_CHECK(e.diagnostics().size() == 1 && e.diagnostics().front().file == file.string(),
               "a report problem that does not name the report");
    fuzz::check_diagnostics(e, {file}, "");
  }
  return 0;
}
