#include "config/device_loader.hpp"

#include <optional>
#include <string>

#include <fmt/format.h>

#include "config/toml_reader.hpp"

namespace edgetwin {
namespace {

void read_identity(TomlReader& reader, DeviceSpec& device) {
  reader.read_string("device.name", device.name, Presence::required);
  reader.read_string("device.description", device.description, Presence::required);
  reader.read_string("device.default_storage", device.default_storage, Presence::required);
}

void read_cpu(TomlReader& reader, CpuSpec& cpu) {
  reader.read_count("cpu.cores", cpu.cores, Presence::required, Bound::positive, "cores");
  reader.read_number("cpu.freq_hz", cpu.freq_hz, Presence::required, Bound::positive, "Hz");
  read_provenance(reader, "provenance.cpu", cpu.provenance);
}

// No [gpu] table means a CPU-only device.
std::optional<GpuSpec> read_gpu(TomlReader& reader) {
  if (!reader.has("gpu")) return std::nullopt;
  GpuSpec gpu;
  reader.read_number("gpu.freq_hz", gpu.freq_hz, Presence::required, Bound::positive, "Hz");
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
  read_provenance(reader, "provenance.memory", memory.provenance);
}

StorageSpec read_medium(TomlReader& reader, const std::string& name, const Provenance& provenance) {
  StorageSpec medium;
  medium.name = name;
  medium.provenance = provenance;
  const std::string table = "storage." + name;
  reader.read_number(table + ".read_bw_bytes_per_s", medium.read_bw_bytes_per_s, Presence::required,
                     Bound::positive, "bytes/s");
  reader.read_number(table + ".request_s", medium.request_s, Presence::required, Bound::non_negative, "s");
  reader.read_number(table + ".request_bytes", medium.request_bytes, Presence::optional, Bound::positive, "bytes");
  return medium;
}

// One provenance covers all media of the file: they are usually characterised together.
void read_storage(TomlReader& reader, DeviceSpec& device) {
  Provenance provenance;
  read_provenance(reader, "provenance.storage", provenance);
  for (const std::string& name : reader.table_names("storage", Presence::required)) {
    device.storage.push_back(read_medium(reader, name, provenance));
  }
}

void check_default_storage(TomlReader& reader, const DeviceSpec& device) {
  if (device.default_storage.empty() || device.storage.empty()) return;  // already reported
  if (device.find_storage(device.default_storage)) return;
  reader.add_error("device.default_storage",
                   unknown_choice_message("storage", device.default_storage, device.storage_names()));
}

}  // namespace

DeviceSpec load_device(const std::filesystem::path& file) {
  TomlReader reader(file);
  DeviceSpec device;
  device.source_file = file.string();
  read_identity(reader, device);
  read_cpu(reader, device.cpu);
  device.gpu = read_gpu(reader);
  read_memory(reader, device.memory);
  read_storage(reader, device);
  check_default_storage(reader, device);
  reader.finish();
  return device;
}

}  // namespace edgetwin
