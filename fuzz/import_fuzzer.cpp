// Fuzz target: `edgetwin-calibrate import` followed by `edgetwin predict` on what it wrote
// (calibrate/import/predictable_profile.hpp). The input is the import's options, then (after a
// `%%` line) a trace CSV. Options, one a line: `device N` (the N-th shipped device, in name
// order, or past the last an unknown name), `workload N` (the N-th shipped workload), `cpu HZ`
// and `gpu HZ` (the reference clocks), `sequential`. Invariants: an import that succeeds has
// written a profile that predict, on the device the import resolved, takes (check_run,
// sim/app/run_setup.hpp); an import that fails wrote nothing and says why in located lines.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>

#include "calibrate/import/predictable_profile.hpp"
#include "calibrate/import/profile_import.hpp"
#include "fuzz/fuzz_support.hpp"
#include "sim/app/catalogue.hpp"
#include "sim/app/run_setup.hpp"
#include "sim/config/config_error.hpp"

namespace {

using namespace edgetwin;

struct Options {
  std::string device;    // "" : the workload's costs.device
  std::string workload = "lenet-mnist";
  std::optional<double> cpu_hz, gpu_hz;
  bool sequential = false;
};

std::string nth(const std::vector<std::string>& names, unsigned long n, const std::string& past) {
  return n < names.size() ? names[n] : past;
}

Options options_of(const std::string& text) {
  Options o;
  std::istringstream lines(text);
  std::string key;
  while (lines >> key) {
    std::string value;
    if (key == "sequential") {
      o.sequential = true;
      continue;
    }
    if (!(lines >> value)) break;
    if (key == "device") o.device = nth(shipped_names("devices"), std::strtoul(value.c_str(), nullptr, 10), "nope");
    if (key == "workload") o.workload = nth(shipped_names("workloads"), std::strtoul(value.c_str(), nullptr, 10), "lenet-mnist");
    if (key == "cpu") o.cpu_hz = std::strtod(value.c_str(), nullptr);
    if (key == "gpu") o.gpu_hz = std::strtod(value.c_str(), nullptr);
  }
  return o;
}

void check_refusal(const ConfigError& e, const std::filesystem::path& trace, const std::string& csv,
                   const std::filesystem::path& profile) {
  FUZZ_CHECK(!std::filesystem::exists(profile), "a refused import wrote its profile");
  fuzz::check_diagnostics(e, {trace}, csv);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parts = fuzz::parts_of(fuzz::text_of(data, size), 2);
  if (parts.size() < 2) return 0;
  const Options o = options_of(parts[0]);
  fuzz::write_part("import.csv", parts[1]);
  const auto trace = fuzz::scratch_dir() / "import.csv";
  const auto profile = fuzz::scratch_dir() / "imported.toml";
  std::filesystem::remove(profile);
  const auto workload_file = fuzz::shipped_file("workloads/" + o.workload + ".toml");
  calibrate::ImportDevice device;
  try {
    const WorkloadSpec& workload = fuzz::shipped_workload(o.workload);
    device = calibrate::import_device(o.device, workload);
    calibrate::ImportOptions options;
    options.trace_csvs = {trace};
    options.derivation.sequential = o.sequential;
    options.derivation.device = device.name;
    options.derivation.reference_cpu_freq_hz = o.cpu_hz;
    options.derivation.reference_gpu_freq_hz = o.gpu_hz;
    options.command = "edgetwin-calibrate import --trace import.csv";
    calibrate::write_predictable_profile(profile, calibrate::import_profile(options, workload), device, workload_file);
  } catch (const ConfigError& e) {
    check_refusal(e, trace, parts[1], profile);
    return 0;
  }
  FUZZ_CHECK(std::filesystem::exists(profile), "an import that succeeded wrote nothing");
  RunRequest predict;
  predict.device = device.file.string();
  predict.workload = workload_file.string();
  predict.profile = profile.string();
  try {
    check_run(predict);
  } catch (const ConfigError& e) {
    FUZZ_CHECK(false, std::string("predict refuses the profile the import wrote: ") + e.what());
  }
  return 0;
}
