#include "fuzz/fuzz_support.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

#include "sim/config/device_loader.hpp"
#include "sim/config/physical_range.hpp"
#include "sim/config/workload_loader.hpp"
#include "sim/model/engine_inputs.hpp"
#include "sim/model/power_model.hpp"
#include "sim/model/simulation.hpp"
#include "sim/model/work_model.hpp"

namespace edgetwin::fuzz {
namespace {

namespace fs = std::filesystem;

bool finite_in(double value, double low, double high) { return std::isfinite(value) && value >= low && value <= high; }

// Within the unit's plausible range (0 allowed where the key allows it).
bool plausible(double value, std::string_view unit) {
  const PhysicalRange& r = physical_range(unit);
  return std::isfinite(value) && (value == 0 || (std::abs(value) >= r.smallest && std::abs(value) <= r.largest));
}

void check_steps(const std::vector<double>& steps, double max_hz, const char* what) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    FUZZ_CHECK(plausible(steps[i], "Hz") && steps[i] > 0, std::string(what) + " step out of range");
    if (i > 0) FUZZ_CHECK(steps[i] > steps[i - 1], std::string(what) + " steps not ascending");
  }
  if (!steps.empty()) FUZZ_CHECK(std::abs(steps.back() - max_hz) <= 1e3, std::string(what) + " last step is not the maximum");
}

void check_power(const PowerSpec& p, bool gpu) {
  for (const double w : {p.board_w, p.cpu_core_idle_w, p.cpu_core_max_w, p.gpu_idle_w, p.gpu_max_w, p.emc_max_w,
                         p.idle_dvfs_off_w, p.idle_dvfs_on_w, p.suspend_wol_w, p.logging_harness_w}) {
    FUZZ_CHECK(w >= 0 && plausible(w, "W"), "a watt figure out of range");
  }
  FUZZ_CHECK(p.cpu_core_max_w >= p.cpu_core_idle_w, "busy core below idle");
  if (gpu) FUZZ_CHECK(p.gpu_max_w >= p.gpu_idle_w, "busy GPU below idle");
  FUZZ_CHECK(finite_in(p.dvfs_exponent, 1, 4), "dvfs exponent out of [1, 4]");
}

void check_modes(const DeviceSpec& d) {
  std::map<int, int> ids;
  std::map<std::string, int> names;
  for (const PowerModeSpec& m : d.power_modes) {
    FUZZ_CHECK(++ids[m.id] == 1 && ++names[m.name] == 1, "power modes not unique");
    FUZZ_CHECK(!m.name.empty() && m.name.find_first_not_of("0123456789") != std::string::npos, "bad mode name");
    FUZZ_CHECK(m.cores >= 1 && m.cores <= d.cpu.cores, "mode cores out of range");
    FUZZ_CHECK(plausible(m.cpu_max_hz, "Hz") && m.cpu_max_hz > 0, "mode CPU cap out of range");
  }
  if (!d.power_modes.empty()) FUZZ_CHECK(names.count(d.default_power_mode) == 1, "default power mode unknown");
}

}  // namespace

void check(bool condition, const char* expression, const std::string& message) {
  if (condition) return;
  std::fprintf(stderr, "fuzz invariant broken: %s (%s)\n", message.c_str(), expression);
  std::abort();
}

const fs::path& scratch_dir() {
  static const fs::path dir = [] {
    const char* base = std::getenv("TMPDIR");
    fs::path d = fs::path(base != nullptr ? base : "/tmp") / ("edgetwin-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(d / "media");
    for (const auto& entry : fs::directory_iterator(shipped_file("devices/media")))
      fs::copy_file(entry.path(), d / "media" / entry.path().filename(), fs::copy_options::overwrite_existing);
    return d;
  }();
  return dir;
}

fs::path write_input(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const fs::path file = scratch_dir() / name;
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return file;
}

std::string text_of(const std::uint8_t* data, std::size_t size) { return {reinterpret_cast<const char*>(data), size}; }

std::vector<std::string> parts_of(const std::string& text, std::size_t max_parts) {
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t cut = text.find("\n%%\n", start);
    parts.push_back(text.substr(start, cut == std::string::npos ? std::string::npos : cut + 1 - start));
    if (cut == std::string::npos || parts.size() == max_parts) return parts;
    start = cut + 4;
  }
}

void write_part(const std::string& name, const std::string& text) {
  write_input(name, reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
}

fs::path shipped_file(const std::string& relative) { return fs::path(EDGETWIN_SOURCE_DIR) / relative; }

const DeviceSpec& shipped_device(const std::string& name) {
  static std::map<std::string, DeviceSpec> devices;
  auto it = devices.find(name);
  if (it == devices.end()) it = devices.emplace(name, load_device(shipped_file("devices/" + name + ".toml"))).first;
  return it->second;
}

const WorkloadSpec& shipped_workload(const std::string& name) {
  static std::map<std::string, WorkloadSpec> workloads;
  auto it = workloads.find(name);
  if (it == workloads.end()) it = workloads.emplace(name, load_workload(shipped_file("workloads/" + name + ".toml"))).first;
  return it->second;
}

void check_diagnostics(const ConfigError& error, const std::vector<fs::path>& inputs, std::string_view text) {
  FUZZ_CHECK(!error.diagnostics().empty(), "a ConfigError without a problem");
  const auto lines = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
  for (const Diagnostic& d : error.diagnostics()) {
    const std::string shown = d.to_string();
    FUZZ_CHECK(shown.find('\n') == std::string::npos, "a problem over several lines: " + shown);
    FUZZ_CHECK(!d.message.empty(), "a problem without a message: " + shown);
    FUZZ_CHECK(d.line >= 0 && d.column >= 0, "a negative place: " + shown);
    const bool in_input = std::any_of(inputs.begin(), inputs.end(), [&](const fs::path& f) { return d.file == f.string(); });
    const bool elsewhere = d.file.empty() || d.file.starts_with(scratch_dir().string()) ||
                           d.file.starts_with(EDGETWIN_SOURCE_DIR);
    FUZZ_CHECK(in_input || elsewhere, "a problem placed in a file nobody read: " + shown);
    if (in_input && inputs.size() == 1) FUZZ_CHECK(d.line <= lines, "a problem placed past the last line: " + shown);
  }
}

void check_device(const DeviceSpec& d) {
  FUZZ_CHECK(d.cpu.cores >= 1 && d.cpu.cores <= 1024, "cores out of range");
  FUZZ_CHECK(plausible(d.cpu.freq_hz, "Hz") && d.cpu.freq_hz > 0, "CPU clock out of range");
  check_steps(d.cpu.available_freqs_hz, d.cpu.freq_hz, "CPU");
  if (d.gpu) {
    FUZZ_CHECK(plausible(d.gpu->freq_hz, "Hz") && d.gpu->freq_hz > 0, "GPU clock out of range");
    check_steps(d.gpu->available_freqs_hz, d.gpu->freq_hz, "GPU");
    FUZZ_CHECK(d.gpu->count >= 1 && d.gpu->count <= 1024, "accelerator count out of range");
    for (const auto& [op_class, share] : d.gpu->efficiency)
      FUZZ_CHECK(finite_in(share, 0, 1) && share > 0, "GPU efficiency share out of (0, 1]");
  }
  for (const auto& [op_class, share] : d.cpu.efficiency)
    FUZZ_CHECK(finite_in(share, 0, 1) && share > 0, "CPU efficiency share out of (0, 1]");
  FUZZ_CHECK(plausible(d.memory.ram_bytes, "bytes") && d.memory.ram_bytes > 0, "RAM out of range");
  FUZZ_CHECK(d.memory.os_base_bytes >= 0 && d.memory.os_base_bytes < d.memory.ram_bytes, "OS base not below RAM");
  FUZZ_CHECK(plausible(d.memory.bandwidth_bytes_per_s, "bytes/s") && d.memory.bandwidth_bytes_per_s > 0,
             "memory bandwidth out of range");
  if (d.memory.emc_freq_hz > 0) check_steps(d.memory.available_emc_freqs_hz, d.memory.emc_freq_hz, "EMC");
  FUZZ_CHECK(!d.storage.empty() && d.find_storage(d.default_storage) != nullptr, "default storage unknown");
  for (const StorageSpec& s : d.storage) {
    FUZZ_CHECK(plausible(s.read_bw_bytes_per_s, "bytes/s") && s.read_bw_bytes_per_s > 0, "storage bandwidth out of range");
    FUZZ_CHECK(plausible(s.request_s, "s") && s.request_s >= 0, "request time out of range");
    FUZZ_CHECK(plausible(s.request_bytes, "bytes") && s.request_bytes > 0, "request size out of range");
  }
  if (d.power) check_power(*d.power, d.gpu.has_value());
  check_modes(d);
}

void check_costs(const CostSpec& c) {
  FUZZ_CHECK(plausible(c.reference_cpu_freq_hz, "Hz") && c.reference_cpu_freq_hz > 0, "reference CPU clock out of range");
  FUZZ_CHECK(plausible(c.reference_gpu_freq_hz, "Hz") && c.reference_gpu_freq_hz >= 0, "reference GPU clock out of range");
  for (const double s : {c.fetch_cpu_s_per_sample, c.preprocess_cpu_s_per_sample, c.collate_cpu_s_per_sample}) {
    FUZZ_CHECK(plausible(s, "s/sample") && s >= 0, "a per-sample cost out of range");
  }
  FUZZ_CHECK(finite_in(c.compute_memory_fraction, 0, 1), "memory fraction out of [0, 1]");
  const ComputeCurve& curve = c.compute;
  FUZZ_CHECK(!curve.batch_sizes.empty() && curve.batch_sizes.size() == curve.seconds.size(), "a broken compute curve");
  for (std::size_t i = 0; i < curve.seconds.size(); ++i) {
    FUZZ_CHECK(plausible(curve.seconds[i], "s per batch") && curve.seconds[i] > 0, "a compute point out of range");
    if (i > 0) FUZZ_CHECK(curve.batch_sizes[i] > curve.batch_sizes[i - 1], "compute batch sizes not increasing");
  }
  for (const double b : {1.0, curve.batch_sizes.front(), 1e4}) {
    FUZZ_CHECK(std::isfinite(curve.at(b)) && curve.at(b) > 0, "the compute curve gives no positive time");
  }
}

void check_workload(const WorkloadSpec& w) {
  FUZZ_CHECK(w.dataset.samples >= 1 && w.dataset.samples <= 100'000'000, "samples out of range");
  FUZZ_CHECK(w.loader.batch_size >= 1 && w.loader.batch_size <= w.dataset.samples, "batch size out of range");
  FUZZ_CHECK(w.loader.workers >= 0 && w.loader.workers <= 1024, "workers out of range");
  FUZZ_CHECK(plausible(w.dataset.sample_bytes, "bytes") && w.dataset.sample_bytes > 0, "sample size out of range");
  const FootprintSpec& f = w.footprint;
  for (const double b : {f.process_bytes, f.model_bytes, f.optimizer_bytes, f.activation_bytes_per_sample, f.worker_bytes}) {
    FUZZ_CHECK(std::isfinite(b) && b >= 0, "a footprint out of range");
  }
  check_costs(w.costs);
}

void check_member(const DeviceSpec& device, const WorkloadSpec& workload, const RunConfig& run) {
  Simulation simulation;
  try {
    simulation.add_member(device, workload, run);
  } catch (const ConfigError& e) {
    check_diagnostics(e, {}, "");
    return;
  }
  const StorageSpec& storage = simulation.storage();
  FUZZ_CHECK(simulation.page_cache_capacity_bytes() > 0, "an accepted run without room for a page cache");
  const WorkModel work(device, workload, storage);
  const BatchWork b = work.batch(run.loader.batch_size);
  const double cpu_s = (b.fetch_cpu_cycles + b.preprocess_cpu_cycles + b.launch_cpu_cycles + b.receive_cpu_cycles +
                        b.cpu_compute_cycles_per_thread) / device.cpu.freq_hz;
  const double gpu_s = device.gpu ? b.gpu_cycles / device.gpu->freq_hz : 0.0;
  const double read_s = work.storage_work_per_miss() * run.loader.batch_size / storage.read_bw_bytes_per_s;
  for (const double s : {cpu_s, gpu_s, read_s, b.h2d_s}) {
    FUZZ_CHECK(finite_in(s, 0, 5 * max_activity_s), "an accepted run hands the engine an activity out of bounds");
  }
  if (device.power) {
    const PowerModel power(device, storage, run.pstate_per_step);
    FUZZ_CHECK(finite_in(power.base_power_w(), 0, 1e5), "an accepted run with a base power out of bounds");
  }
}

void check_default_run(const DeviceSpec& device, const WorkloadSpec& workload) {
  RunConfig run;
  run.loader = workload.loader;
  run.window_batches = 200;
  check_member(device, workload, run);
}

}  // namespace edgetwin::fuzz
