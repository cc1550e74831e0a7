// Fuzz target: a profile file (docs/reference/schema.md, "Profile"), as `edgetwin predict --profile`
// takes it for LeNet-MNIST on the 2-core host. An accepted profile holds the schema's ranges and
// its costs train without anything degenerate reaching the engine.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_support.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/profile_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace edgetwin;
  const auto file = fuzz::write_input("profile.toml", data, size);
  ProfileSpec profile;
  try {
    profile = load_profile(file);
  } catch (const ConfigError& e) {
    fuzz::check_diagnostics(e, {file}, fuzz::text_of(data, size));
    return 0;
  }
  fuzz::check_costs(profile.costs);
  FUZZ_CHECK(profile.costs.device == profile.device, "costs of another device than the profile's");
  const DeviceSpec& device = fuzz::shipped_device("host-x86-2core");
  WorkloadSpec workload;
  try {
    workload = apply_profile(fuzz::shipped_workload("lenet-mnist"), profile, device);
  } catch (const ConfigError& e) {
    fuzz::check_diagnostics(e, {file}, fuzz::text_of(data, size));
    return 0;
  }
  fuzz::check_default_run(device, workload);
  return 0;
}
