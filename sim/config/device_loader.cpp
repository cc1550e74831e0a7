#include "sim/config/device_loader.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/config/config_error.hpp"
#include "sim/config/medium_loader.hpp"
#include "sim/config/operating_point.hpp"
#include "sim/config/toml_reader.hpp"
#include "sim/config/worker_process_tables.hpp"

namespace edgetwin {
namespace {

// Two frequencies closer than 1 kHz are the same step (sysfs lists kHz). The same tolerance
// as operating_point.cpp's.
constexpr double kSameStepHz = 1e3;

// Mode tables quote caps rounded to the MHz: a cap up to 1 % below a step still means that
// step, and a cap up to 1 % above the maximum still means the maximum. The same rounding as
// operating_point.cpp's cap_rounding.
constexpr double kCapRounding = 1.01;

// Active power scales as (f / f_max)^dvfs_exponent: 1 is power linear in the clock at a fixed
// voltage, 3 is voltage rising in proportion to the clock (P ~ C V^2 f); 4 leaves room for
// leakage growing with voltage. Outside that a value is a mistake, not a chip.
constexpr double kDvfsExponentMin = 1.0;
constexpr double kDvfsExponentMax = 4.0;

// One settable clock as the file describes it, for checking the caps of power modes.
struct Clock {
  std::string max_key;        // "cpu.freq_hz"
  double max_hz = 0;          // 0: not read (a problem was reported), so caps are not checked
  std::vector<double> steps;  // ascending; empty: no step list
};

// Two frequencies as text, in Hz where MHz or GHz would print them alike.
std::pair<std::string, std::string> frequency_texts(double a_hz, double b_hz) {
  std::string a = format_frequency(a_hz);
  std::string b = format_frequency(b_hz);
  if (a == b && a_hz != b_hz) return {fmt::format("{} Hz", a_hz), fmt::format("{} Hz", b_hz)};
  return {a, b};
}

void read_identity(TomlReader& reader, DeviceSpec& device) {
  reader.read_name("device.name", device.name, Presence::required);
  reader.read_string("device.description", device.description, Presence::required);
  reader.read_name("device.default_storage", device.default_storage, Presence::required);
  reader.read_name("device.default_power_mode", device.default_power_mode, Presence::optional);
}

// An optional list of DVFS steps: positive, strictly ascending, the last one the maximum
// (within 1 kHz). Leaves out untouched when absent or bad.
void read_steps(TomlReader& reader, const std::string& key, const std::string& max_key, double max_hz,
                std::vector<double>& out) {
  std::vector<double> steps;
  if (!reader.read_numbers(key, steps, Presence::optional, Bound::positive, "Hz") || !reader.contains(key)) return;
  if (steps.empty()) {
    reader.add_error(key, "expected at least one frequency (Hz), got []; leave the key out when the steps are unknown");
    return;
  }
  for (std::size_t i = 1; i < steps.size(); ++i) {
    if (steps[i] <= steps[i - 1]) {
      auto [step, previous] = frequency_texts(steps[i], steps[i - 1]);
      reader.add_error(fmt::format("{}[{}]", key, i),
                       fmt::format("expected strictly ascending frequencies, got {} after {}", step, previous));
      return;
    }
  }
  if (max_hz > 0 && std::abs(steps.back() - max_hz) > kSameStepHz) {
    auto [max, last] = frequency_texts(max_hz, steps.back());
    reader.add_error(fmt::format("{}[{}]", key, steps.size() - 1),
                     fmt::format("expected the last step to be {} ({}), got {}", max_key, max, last));
    return;
  }
  out = std::move(steps);
}

// [cpu.efficiency] / [gpu.efficiency]: one share of the roofline per class of operation, every
// class given (an estimate must never fall back to a class the file forgot).
void read_efficiency(TomlReader& reader, const std::string& table, std::map<OpClass, double>& out) {
  if (!reader.has(table)) return;
  for (const OpClassInfo& info : kOpClasses) {
    double share = 0;
    if (reader.read_number(table + "." + std::string(info.name), share, Presence::required, Bound::positive_fraction,
                           "share of the roofline"))
      out[info.op_class] = share;
  }
}

void read_cpu(TomlReader& reader, CpuSpec& cpu) {
  reader.read_count("cpu.cores", cpu.cores, Presence::required, Bound::positive, "cores");
  bool max_ok = reader.read_number("cpu.freq_hz", cpu.freq_hz, Presence::required, Bound::positive, "Hz");
  read_steps(reader, "cpu.available_freqs_hz", "cpu.freq_hz", max_ok ? cpu.freq_hz : 0, cpu.available_freqs_hz);
  reader.read_number("cpu.ipc_relative", cpu.ipc_relative, Presence::optional, Bound::positive,
                     "work per cycle relative to host-x86-2core's core");
  reader.read_number("cpu.fp32_flops_per_cycle", cpu.fp32_flops_per_cycle, Presence::optional, Bound::positive,
                     "FLOP/cycle of one core");
  read_efficiency(reader, "cpu.efficiency", cpu.efficiency);
  read_provenance(reader, "provenance.cpu", cpu.provenance);
}

// No [gpu] table means a CPU-only device.
std::optional<GpuSpec> read_gpu(TomlReader& reader) {
  if (!reader.has("gpu")) return std::nullopt;
  GpuSpec gpu;
  bool max_ok = reader.read_number("gpu.freq_hz", gpu.freq_hz, Presence::required, Bound::positive, "Hz");
  read_steps(reader, "gpu.available_freqs_hz", "gpu.freq_hz", max_ok ? gpu.freq_hz : 0, gpu.available_freqs_hz);
  reader.read_count("gpu.count", gpu.count, Presence::optional, Bound::positive, "accelerators");
  reader.read_number("gpu.memory_bandwidth_bytes_per_s", gpu.memory_bandwidth_bytes_per_s, Presence::optional,
                     Bound::positive, "bytes/s");
  reader.read_number("gpu.fp32_flops_per_cycle", gpu.fp32_flops_per_cycle, Presence::optional, Bound::positive,
                     "FLOP/cycle");
  if (reader.contains("gpu.training_efficiency")) {
    double unused = 0;
    reader.read_number("gpu.training_efficiency", unused, Presence::optional, Bound::any, "");
    reader.add_error("gpu.training_efficiency",
                     fmt::format("no longer read: one share of the roofline per class of operation replaces it, "
                                 "[gpu.efficiency] with {} (docs/reference/schema.md)",
                                 fmt::join(op_class_names(), ", ")));
  }
  read_efficiency(reader, "gpu.efficiency", gpu.efficiency);
  read_provenance(reader, "provenance.gpu", gpu.provenance);
  return gpu;
}

void read_memory(TomlReader& reader, MemorySpec& memory) {
  bool ram_ok = reader.read_number("memory.ram_bytes", memory.ram_bytes, Presence::required, Bound::positive, "bytes");
  reader.read_number("memory.bandwidth_bytes_per_s", memory.bandwidth_bytes_per_s, Presence::required,
                     Bound::positive, "bytes/s");
  bool os_ok = reader.read_number("memory.os_base_bytes", memory.os_base_bytes, Presence::required,
                                  Bound::non_negative, "bytes");
  if (ram_ok && os_ok && memory.os_base_bytes >= memory.ram_bytes) {
    reader.add_error("memory.os_base_bytes", fmt::format("expected less than memory.ram_bytes ({} bytes), got {}",
                                                         memory.ram_bytes, memory.os_base_bytes));
  }
  bool emc_ok = reader.read_number("memory.emc_freq_hz", memory.emc_freq_hz, Presence::optional, Bound::positive, "Hz");
  if (emc_ok && memory.emc_freq_hz == 0 && reader.contains("memory.available_emc_freqs_hz")) {
    reader.add_error("memory.emc_freq_hz", "missing required key with memory.available_emc_freqs_hz; expected a "
                                           "positive number (Hz), the maximum memory clock and the last step");
  }
  read_steps(reader, "memory.available_emc_freqs_hz", "memory.emc_freq_hz", memory.emc_freq_hz,
             memory.available_emc_freqs_hz);
  reader.read_bool("memory.page_cache_refault_activation", memory.page_cache_refault_activation, Presence::optional);
  read_provenance(reader, "provenance.memory", memory.provenance);
}

// The media files a device file names, each loaded once however many tables name it.
class MediaShelf {
 public:
  explicit MediaShelf(std::filesystem::path dir) : dir_(std::move(dir)), names_(medium_names(dir_)) {}

  // Sets storage's rates and provenance from the medium file named at key (storage.<name>.medium).
  void fill(TomlReader& reader, const std::string& key, const std::string& stem, StorageSpec& storage) {
    if (std::find(names_.begin(), names_.end(), stem) == names_.end()) {
      reader.add_error(key, names_.empty() ? fmt::format("unknown medium \"{}\"; {}", stem, choices())
                                           : unknown_choice_message("medium", stem, names_));
      return;
    }
    const std::filesystem::path file = dir_ / (stem + ".toml");
    auto [it, first_time] = loaded_.try_emplace(stem);
    if (first_time) {
      try {
        it->second = load_medium(file);
      } catch (const ConfigError& error) {
        reader.add_foreign_diagnostics(error.diagnostics());
      }
    }
    if (!it->second) {
      reader.add_error(key,
                       fmt::format("medium file {} has problems (reported with its own name below)", file.string()));
      return;
    }
    storage.medium = it->second->medium;
    storage.read_bw_bytes_per_s = it->second->read_bw_bytes_per_s;
    storage.request_s = it->second->request_s;
    storage.request_bytes = it->second->request_bytes;
    storage.active_power_w = it->second->active_power_w;
    storage.provenance = it->second->provenance;
  }

  // "valid: emmc-5.1, nvme-gen3", or where none are to be found.
  std::string choices() const {
    if (names_.empty()) return fmt::format("no medium files (*.toml) in {}", dir_.string());
    return fmt::format("valid: {}", fmt::join(names_, ", "));
  }

 private:
  std::filesystem::path dir_;
  std::vector<std::string> names_;
  std::map<std::string, std::optional<StorageSpec>> loaded_;  // nullopt: the file has problems
};

// How a [storage.<name>] table gives its rates; unclear when it has a problem saying so.
enum class StorageForm { inline_rates, medium_file, unclear };

// Reads [storage.<name>]: a medium file or inline rates, never both.
StorageForm read_one_storage(TomlReader& reader, MediaShelf& media, StorageSpec& storage) {
  const std::string table = "storage." + storage.name;
  const std::string medium_key = table + ".medium";
  const std::vector<std::string> inline_keys = storage_rate_keys_present(reader, table);
  if (!reader.contains(medium_key)) {
    read_storage_rates(reader, table, storage, inline_keys.empty() ? Presence::optional : Presence::required);
    std::string absent;
    reader.read_name(medium_key, absent, Presence::optional);  // asked for, so hints list it
    if (!inline_keys.empty()) return StorageForm::inline_rates;
    reader.add_error(table, fmt::format("expected medium = \"<name>\" ({}) or the keys read_bw_bytes_per_s, "
                                        "request_s and optionally request_bytes and active_power_w, got neither",
                                        media.choices()));
    return StorageForm::unclear;
  }
  StorageSpec unused;
  read_storage_rates(reader, table, unused, Presence::optional);  // asked for: the problem is below
  std::string stem;
  if (!reader.read_name(medium_key, stem, Presence::optional)) return StorageForm::unclear;
  if (stem.empty()) {
    reader.add_error(medium_key, fmt::format("expected the name of a medium file ({}), got \"\"", media.choices()));
    return StorageForm::unclear;
  }
  if (!inline_keys.empty()) {
    reader.add_error(medium_key, fmt::format("expected either a medium or the keys read_bw_bytes_per_s, request_s, "
                                             "request_bytes, active_power_w, not both; got medium = \"{}\" and {}",
                                             stem, fmt::join(inline_keys, ", ")));
    return StorageForm::unclear;
  }
  media.fill(reader, medium_key, stem, storage);
  return StorageForm::medium_file;
}

// A medium file carries its own provenance; one [provenance].storage covers all inline media
// of the file (they are usually characterised together).
void read_storage(TomlReader& reader, DeviceSpec& device, const std::filesystem::path& file) {
  MediaShelf media(media_dir_of(file));
  std::vector<std::size_t> inline_media;
  bool all_medium_files = true;
  for (const std::string& name : reader.table_names("storage", Presence::required)) {
    StorageSpec storage;
    storage.name = name;
    StorageForm form = read_one_storage(reader, media, storage);
    if (form == StorageForm::inline_rates) inline_media.push_back(device.storage.size());
    all_medium_files = all_medium_files && form == StorageForm::medium_file;
    device.storage.push_back(std::move(storage));
  }
  Provenance provenance;
  if (!inline_media.empty()) {
    read_provenance(reader, "provenance.storage", provenance);
    for (std::size_t i : inline_media) device.storage[i].provenance = provenance;
  } else if (reader.contains("provenance.storage")) {
    read_provenance(reader, "provenance.storage", provenance);
    if (all_medium_files && !device.storage.empty()) {
      reader.add_error("provenance.storage", "not used: every [storage.<name>] names a medium file, which carries "
                                             "its own provenance; remove it");
    }
  }
}

void check_default_storage(TomlReader& reader, const DeviceSpec& device) {
  if (device.default_storage.empty() || device.storage.empty()) return;  // already reported
  if (device.find_storage(device.default_storage)) return;
  reader.add_error("device.default_storage",
                   unknown_choice_message("storage", device.default_storage, device.storage_names()));
}

// A cap must mean a clock the device has: from its lowest step (or 0) up to its maximum, both
// give or take the 1 % of rounding to the MHz.
void check_cap(TomlReader& reader, const std::string& key, double cap_hz, const Clock& clock) {
  if (clock.max_hz <= 0) return;  // the maximum has a problem of its own
  const bool above = cap_hz > clock.max_hz * kCapRounding;
  const bool below = !clock.steps.empty() && cap_hz * kCapRounding < clock.steps.front();
  if (!above && !below) return;
  if (clock.steps.empty()) {
    reader.add_error(key, fmt::format("expected a cap of at most {} ({}), got {}", format_frequency(clock.max_hz),
                                      clock.max_key, format_frequency(cap_hz)));
    return;
  }
  reader.add_error(key, fmt::format("expected a cap from {} (the lowest step) to {} ({}), got {}; nearest steps: {}",
                                    format_frequency(clock.steps.front()), format_frequency(clock.max_hz),
                                    clock.max_key, format_frequency(cap_hz), nearest_steps(clock.steps, cap_hz)));
}

// A cap that must be there when the clock exists and must not be there when it does not.
void read_cap(TomlReader& reader, const std::string& key, const std::optional<Clock>& clock,
              const std::string& why_absent, double& out) {
  if (clock) {
    if (reader.read_number(key, out, Presence::required, Bound::positive, "Hz")) check_cap(reader, key, out, *clock);
  } else if (reader.contains(key)) {
    double ignored = 0;
    reader.read_number(key, ignored, Presence::optional, Bound::any, "Hz");
    reader.add_error(key, fmt::format("not allowed: {}", why_absent));
  }
}

// The clocks a power mode caps: the CPU's; the GPU's with [gpu]; the memory's when the file
// gives its clock or steps (a problem with either is reported at the memory keys).
struct Clocks {
  std::optional<Clock> cpu;
  std::optional<Clock> gpu;
  std::optional<Clock> emc;
};

Clocks clocks_of(const TomlReader& reader, const DeviceSpec& device) {
  Clocks clocks;
  clocks.cpu = Clock{"cpu.freq_hz", device.cpu.freq_hz, device.cpu.available_freqs_hz};
  if (device.gpu) clocks.gpu = Clock{"gpu.freq_hz", device.gpu->freq_hz, device.gpu->available_freqs_hz};
  if (reader.contains("memory.emc_freq_hz") || reader.contains("memory.available_emc_freqs_hz")) {
    clocks.emc = Clock{"memory.emc_freq_hz", device.memory.emc_freq_hz, device.memory.available_emc_freqs_hz};
  }
  return clocks;
}

// Sets id_ok when the id was read (a mode without one is not compared with the others).
PowerModeSpec read_power_mode(TomlReader& reader, const std::string& table, const DeviceSpec& device,
                              const Clocks& clocks, bool& id_ok) {
  PowerModeSpec mode;
  id_ok = reader.read_count(table + ".id", mode.id, Presence::required, Bound::non_negative, "nvpmodel id");
  if (reader.read_name(table + ".name", mode.name, Presence::required) &&
      mode.name.find_first_not_of("0123456789") == std::string::npos) {
    reader.add_error(table + ".name", fmt::format("expected a name that is not a number (--power-mode takes ids "
                                                  "too), got \"{}\"", mode.name));
  }
  if (reader.read_count(table + ".cores", mode.cores, Presence::required, Bound::positive, "cores") &&
      device.cpu.cores > 0 && mode.cores > device.cpu.cores) {
    reader.add_error(table + ".cores",
                     fmt::format("expected 1 to {} cores (cpu.cores), got {}", device.cpu.cores, mode.cores));
  }
  read_cap(reader, table + ".cpu_max_hz", clocks.cpu, "", mode.cpu_max_hz);
  read_cap(reader, table + ".gpu_max_hz", clocks.gpu, "the device has no [gpu]", mode.gpu_max_hz);
  read_cap(reader, table + ".emc_max_hz", clocks.emc, "the memory clock is not settable (no memory.emc_freq_hz)",
           mode.emc_max_hz);
  return mode;
}

// Ids and names pick a mode on the command line, so each names one mode only.
void check_unique_modes(TomlReader& reader, const std::vector<std::string>& tables,
                        const std::vector<PowerModeSpec>& modes, const std::vector<bool>& ids_ok) {
  std::map<int, std::size_t> first_with_id;
  std::map<std::string, std::size_t> first_with_name;
  for (std::size_t i = 0; i < modes.size(); ++i) {
    if (ids_ok[i]) {
      auto [id_at, id_new] = first_with_id.try_emplace(modes[i].id, i);
      if (!id_new) {
        reader.add_error(tables[i] + ".id", fmt::format("expected a unique id, got {}, the id of {} too",
                                                        modes[i].id, tables[id_at->second]));
      }
    }
    if (modes[i].name.empty()) continue;  // already reported
    auto [name_at, name_new] = first_with_name.try_emplace(modes[i].name, i);
    if (!name_new) {
      reader.add_error(tables[i] + ".name", fmt::format("expected a unique name, got \"{}\", the name of {} too",
                                                        modes[i].name, tables[name_at->second]));
    }
  }
}

void check_default_power_mode(TomlReader& reader, const DeviceSpec& device) {
  const std::string key = "device.default_power_mode";
  std::vector<std::string> names;
  for (const PowerModeSpec& mode : device.power_modes) {
    if (!mode.name.empty()) names.push_back(mode.name);
  }
  if (device.default_power_mode.empty()) {
    reader.add_error(key, fmt::format("missing required key with [[power_mode]] tables; expected the name of one: {}",
                                      fmt::join(names, ", ")));
  } else if (std::find(names.begin(), names.end(), device.default_power_mode) == names.end()) {
    reader.add_error(key, unknown_choice_message("power mode", device.default_power_mode, names));
  }
}

// [[power_mode]] tables, read after the clocks they cap.
void read_power_modes(TomlReader& reader, DeviceSpec& device) {
  const std::vector<std::string> tables = reader.table_array("power_mode", Presence::optional);
  if (tables.empty()) {
    // Without modes a default and a provenance are mistakes, unless power_mode itself is the
    // problem (not an array of tables): that is reported, and is the one to fix.
    const bool power_mode_is_bad = reader.contains("power_mode");
    const std::string default_key = "device.default_power_mode";
    if (reader.contains(default_key) && !power_mode_is_bad) {
      reader.add_error(default_key, "not allowed: the file has no [[power_mode]] tables");
    }
    if (reader.contains("provenance.power_modes")) {
      read_provenance(reader, "provenance.power_modes", device.power_modes_provenance);
      if (!power_mode_is_bad) {
        reader.add_error("provenance.power_modes", "not used: the file has no [[power_mode]] tables; remove it");
      }
    }
    return;
  }
  const Clocks clocks = clocks_of(reader, device);
  std::vector<bool> ids_ok;
  for (const std::string& table : tables) {
    bool id_ok = false;
    device.power_modes.push_back(read_power_mode(reader, table, device, clocks, id_ok));
    ids_ok.push_back(id_ok);
  }
  check_unique_modes(reader, tables, device.power_modes, ids_ok);
  check_default_power_mode(reader, device);
  read_provenance(reader, "provenance.power_modes", device.power_modes_provenance);
}

// A part's busy power must be at least its idle power: busy includes idle (specs.hpp).
void check_max_at_least_idle(TomlReader& reader, const std::string& max_key, double max_w, const std::string& idle_key,
                             double idle_w) {
  if (max_w >= idle_w) return;
  reader.add_error(max_key, fmt::format("expected at least {} ({} W), got {}", idle_key, idle_w, max_w));
}

// A watt figure that is only allowed with a [gpu]: read (so it is not also unknown), then refused.
void refuse_without_gpu(TomlReader& reader, const std::string& key) {
  if (!reader.contains(key)) return;
  double ignored = 0;
  reader.read_number(key, ignored, Presence::optional, Bound::any, "W");
  reader.add_error(key, "not allowed: the device has no [gpu]");
}

// [power], optional: without it the device has no energy figures, and provenance.power is a
// mistake. Every watt figure is required and non-negative except dvfs_exponent.
std::optional<PowerSpec> read_power(TomlReader& reader, const DeviceSpec& device) {
  if (!reader.has("power")) {
    refuse_provenance_without_table(reader, "power");
    return std::nullopt;
  }
  PowerSpec power;
  const auto watts = [&](const std::string& key, double& out) {
    return reader.read_number(key, out, Presence::required, Bound::non_negative, "W");
  };
  watts("power.board_w", power.board_w);
  const bool core_idle_ok = watts("power.cpu_core_idle_w", power.cpu_core_idle_w);
  if (watts("power.cpu_core_max_w", power.cpu_core_max_w) && core_idle_ok) {
    check_max_at_least_idle(reader, "power.cpu_core_max_w", power.cpu_core_max_w, "power.cpu_core_idle_w",
                            power.cpu_core_idle_w);
  }
  if (device.gpu) {
    const bool gpu_idle_ok = watts("power.gpu_idle_w", power.gpu_idle_w);
    if (watts("power.gpu_max_w", power.gpu_max_w) && gpu_idle_ok) {
      check_max_at_least_idle(reader, "power.gpu_max_w", power.gpu_max_w, "power.gpu_idle_w", power.gpu_idle_w);
    }
  } else {
    refuse_without_gpu(reader, "power.gpu_idle_w");
    refuse_without_gpu(reader, "power.gpu_max_w");
  }
  watts("power.emc_max_w", power.emc_max_w);
  const std::string exponent_key = "power.dvfs_exponent";
  double exponent = power.dvfs_exponent;
  if (reader.read_number(exponent_key, exponent, Presence::optional, Bound::any, "exponent of f / f_max")) {
    if (exponent < kDvfsExponentMin || exponent > kDvfsExponentMax) {
      reader.add_error(exponent_key, fmt::format("expected a number from {} to {} (exponent of f / f_max), got {}",
                                                 kDvfsExponentMin, kDvfsExponentMax, exponent));
    } else {
      power.dvfs_exponent = exponent;
    }
  }
  watts("power.idle_dvfs_off_w", power.idle_dvfs_off_w);
  watts("power.idle_dvfs_on_w", power.idle_dvfs_on_w);
  watts("power.suspend_wol_w", power.suspend_wol_w);
  watts("power.logging_harness_w", power.logging_harness_w);
  read_provenance(reader, "provenance.power", power.provenance);
  return power;
}

constexpr std::array<std::string_view, 2> kLinkKinds{"pcie", "nvlink"};

// [link], optional: discrete accelerators and the interconnect between them and the host.
std::optional<LinkSpec> read_link(TomlReader& reader, const DeviceSpec& device) {
  if (!reader.has("link")) {
    refuse_provenance_without_table(reader, "link");
    if (device.gpu && device.gpu->count > 1)
      reader.add_error("gpu.count", fmt::format("expected a [link] with {} accelerators: a data-parallel run sends the "
                                                "batch and the gradients over it (kind, bandwidth_bytes_per_s, "
                                                "latency_s)",
                                                device.gpu->count));
    return std::nullopt;
  }
  LinkSpec link;
  reader.read_choice("link.kind", link.kind, Presence::required, kLinkKinds);
  reader.read_number("link.bandwidth_bytes_per_s", link.bandwidth_bytes_per_s, Presence::required, Bound::positive,
                     "bytes/s");
  reader.read_number("link.latency_s", link.latency_s, Presence::required, Bound::non_negative, "s");
  if (!device.gpu) reader.add_error("link", "not allowed: the device has no [gpu]");
  read_provenance(reader, "provenance.link", link.provenance);
  return link;
}

}  // namespace

DeviceSpec load_device(const std::filesystem::path& file) {
  TomlReader reader(file);
  DeviceSpec device;
  device.source_file = file.string();
  device.source = reader.source_map();
  read_identity(reader, device);
  read_cpu(reader, device.cpu);
  device.gpu = read_gpu(reader);
  read_memory(reader, device.memory);
  device.link = read_link(reader, device);
  read_storage(reader, device, file);
  check_default_storage(reader, device);
  read_power_modes(reader, device);
  device.power = read_power(reader, device);
  device.worker_processes = read_worker_processes(reader);
  reader.finish();
  return device;
}

}  // namespace edgetwin
