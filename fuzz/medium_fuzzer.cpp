// Fuzz target: a storage medium file (docs/reference/schema.md, "Storage medium"). A medium the loader
// accepts has a plausible bandwidth, request time and size.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_support.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/medium_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace edgetwin;
  // Its name must be the file's stem: one fixed stem, so the fuzzer can learn it.
  const auto file = fuzz::write_input("nvme-gen3.toml", data, size);
  try {
    const StorageSpec medium = load_medium(file);
    FUZZ_CHECK(medium.read_bw_bytes_per_s >= 1e3 && medium.read_bw_bytes_per_s <= 1e12, "bandwidth out of range");
    FUZZ_CHECK(std::isfinite(medium.request_s) && medium.request_s >= 0, "request time out of range");
    FUZZ_CHECK(medium.request_bytes >= 1 && medium.request_bytes <= 1e15, "request size out of range");
    FUZZ_CHECK(medium.active_power_w >= 0 && medium.active_power_w <= 1e4, "active power out of range");
    FUZZ_CHECK(medium.medium == "nvme-gen3", "a medium named otherwise than its file");
  } catch (const ConfigError& e) {
    fuzz::check_diagnostics(e, {file}, fuzz::text_of(data, size));
  }
  return 0;
}
