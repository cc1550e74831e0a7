// Fuzz target: a validation grid (validate/validation_grid.hpp) on a 2-CPU machine with 8 GB
// free. An accepted grid has configurations with plain unique names and DataLoader settings
// PyTorch would take, within what the machine allows.
#include <cstddef>
#include <cstdint>
#include <set>

#include "fuzz/fuzz_support.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/run_validator.hpp"
#include "validate/validation_grid.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace edgetwin;
  const auto file = fuzz::write_input("grid.toml", data, size);
  const validate::HostLimits limits{2, 8'000'000'000};
  try {
    const validate::GridSpec grid = validate::load_grid(file, limits);
    FUZZ_CHECK(!grid.configs.empty(), "a grid without configurations");
    FUZZ_CHECK(grid.repeats >= 1 && grid.repeats <= 1000 && grid.epochs >= 1 && grid.epochs <= 1000, "runs out of range");
    std::set<std::string> names;
    for (const auto& c : grid.configs) {
      FUZZ_CHECK(names.insert(c.name).second, "a configuration named twice");
      FUZZ_CHECK(c.cores >= 0 && c.cores <= limits.cores, "cores beyond the machine");
      FUZZ_CHECK(check_loader(c.loader, 0).empty(), "DataLoader settings PyTorch refuses");
      FUZZ_CHECK(c.balloon_bytes >= 0 && c.balloon_bytes <= static_cast<double>(limits.mem_available_bytes),
                 "a balloon beyond free memory");
    }
  } catch (const ConfigError& e) {
    fuzz::check_diagnostics(e, {file}, fuzz::text_of(data, size));
  }
  return 0;
}
