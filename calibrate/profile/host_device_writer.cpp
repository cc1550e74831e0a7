#include "calibrate/profile/host_device_writer.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "sim/app/output_file.hpp"
#include "calibrate/profile/toml_text.hpp"

namespace edgetwin::calibrate {

namespace {

std::string line(std::string_view key, const std::string& value) { return fmt::format("{} = {}\n", key, value); }

std::string provenance_line(std::string_view key, const Provenance& p) {
  return fmt::format("{} = {{ kind = {}, source = {} }}\n", key, toml_string(p.kind), toml_string(p.source));
}

void check(const DeviceSpec& d) {
  if (d.name.empty()) throw std::invalid_argument("host device: name is empty");
  if (d.storage.empty()) throw std::invalid_argument("host device: needs at least one storage medium");
  if (d.cpu.cores < 1) throw std::invalid_argument(fmt::format("host device: cores must be positive, got {}", d.cpu.cores));
  if (!d.find_storage(d.default_storage)) {
    throw std::invalid_argument(fmt::format("host device: default storage \"{}\" is not among its media", d.default_storage));
  }
}

std::string storage_sections(const DeviceSpec& d) {
  std::string out;
  for (const StorageSpec& s : d.storage) {
    out += fmt::format("\n[storage.{}]\n", toml_key(s.name)) + line("read_bw_bytes_per_s", toml_float(s.read_bw_bytes_per_s)) +
           line("request_s", toml_float(s.request_s)) + line("request_bytes", toml_float(s.request_bytes));
  }
  return out;
}

// DVFS steps and the memory clock are written only when known: empty / 0 / 1.0 are the
// defaults in specs.hpp, so a file without them means the same thing.
std::string steps_line(std::string_view key, const std::vector<double>& hz) {
  return hz.empty() ? std::string{} : line(key, toml_float_array(hz));
}

// [cpu.efficiency] / [gpu.efficiency]: every class, or nothing (the loader wants all of them).
std::string efficiency_table(std::string_view table, const std::map<OpClass, double>& efficiency) {
  if (efficiency.empty()) return "";
  std::string out = fmt::format("[{}]\n", table);
  for (const OpClassInfo& info : kOpClasses) {
    const auto share = efficiency.find(info.op_class);
    out += line(info.name, toml_float(share == efficiency.end() ? 1.0 : share->second));
  }
  return out;
}

std::string cpu_section(const CpuSpec& cpu) {
  std::string out = std::string("\n[cpu]\n") + line("cores", fmt::format("{}", cpu.cores)) + line("freq_hz", toml_float(cpu.freq_hz));
  out += steps_line("available_freqs_hz", cpu.available_freqs_hz);
  if (cpu.ipc_relative != 1.0) out += line("ipc_relative", toml_float(cpu.ipc_relative));
  if (cpu.fp32_flops_per_cycle != 0) out += line("fp32_flops_per_cycle", toml_float(cpu.fp32_flops_per_cycle));
  return out + efficiency_table("cpu.efficiency", cpu.efficiency);
}

std::string gpu_section(const GpuSpec& gpu) {
  std::string out = std::string("\n[gpu]\n") + line("freq_hz", toml_float(gpu.freq_hz));
  out += steps_line("available_freqs_hz", gpu.available_freqs_hz);
  if (gpu.fp32_flops_per_cycle != 0) out += line("fp32_flops_per_cycle", toml_float(gpu.fp32_flops_per_cycle));
  return out + efficiency_table("gpu.efficiency", gpu.efficiency);
}

std::string memory_section(const MemorySpec& m) {
  std::string out = std::string("\n[memory]\n") + line("ram_bytes", toml_float(m.ram_bytes)) +
                    line("bandwidth_bytes_per_s", toml_float(m.bandwidth_bytes_per_s)) +
                    line("os_base_bytes", toml_float(m.os_base_bytes));
  if (m.emc_freq_hz != 0) out += line("emc_freq_hz", toml_float(m.emc_freq_hz));
  out += steps_line("available_emc_freqs_hz", m.available_emc_freqs_hz);
  return out;
}

}  // namespace

std::string render_host_device(const DeviceSpec& d) {
  check(d);
  std::string out = fmt::format("# {} as edgetwin-calibrate measured it; see [provenance].\n\n", d.name);
  out += std::string("[device]\n") + line("name", toml_string(d.name)) + line("description", toml_string(d.description)) +
         line("default_storage", toml_string(d.default_storage));
  out += cpu_section(d.cpu);
  if (d.gpu) out += gpu_section(*d.gpu);
  out += memory_section(d.memory);
  out += storage_sections(d);
  out += std::string("\n[provenance]\n") + provenance_line("cpu", d.cpu.provenance);
  if (d.gpu) out += provenance_line("gpu", d.gpu->provenance);
  out += provenance_line("memory", d.memory.provenance) + provenance_line("storage", d.storage.front().provenance);
  return out;
}

void write_host_device(const std::filesystem::path& path, const DeviceSpec& device) {
  write_output_file(path, render_host_device(device));
}

}  // namespace edgetwin::calibrate
