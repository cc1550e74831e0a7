#include "sim/config/medium_loader.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "sim/config/toml_reader.hpp"

namespace edgetwin {
namespace {

constexpr std::array<std::string_view, 4> kRateKeys{"read_bw_bytes_per_s", "request_s", "request_bytes",
                                                   "active_power_w"};

}  // namespace

void read_storage_rates(TomlReader& reader, const std::string& table, StorageSpec& out, Presence presence) {
  reader.read_number(table + ".read_bw_bytes_per_s", out.read_bw_bytes_per_s, presence, Bound::positive, "bytes/s");
  reader.read_number(table + ".request_s", out.request_s, presence, Bound::non_negative, "s");
  reader.read_number(table + ".request_bytes", out.request_bytes, Presence::optional, Bound::positive, "bytes");
  reader.read_number(table + ".active_power_w", out.active_power_w, Presence::optional, Bound::non_negative, "W");
}

std::vector<std::string> storage_rate_keys_present(const TomlReader& reader, const std::string& table) {
  std::vector<std::string> present;
  for (std::string_view key : kRateKeys) {
    if (reader.contains(table + "." + std::string(key))) present.emplace_back(key);
  }
  return present;
}

StorageSpec load_medium(const std::filesystem::path& file) {
  TomlReader reader(file);
  StorageSpec medium;
  medium.medium = file.stem().string();
  std::string name;
  if (reader.read_name("medium.name", name, Presence::required) && name != medium.medium) {
    reader.add_error("medium.name", fmt::format(R"(expected "{}" (the file's name without .toml), got "{}")",
                                                medium.medium, name));
  }
  std::string description;  // for people reading the file; not kept
  reader.read_string("medium.description", description, Presence::required);
  read_storage_rates(reader, "medium", medium);
  read_provenance(reader, "provenance.medium", medium.provenance);
  reader.finish();
  return medium;
}

std::filesystem::path media_dir_of(const std::filesystem::path& device_file) {
  return device_file.parent_path() / "media";
}

std::vector<std::string> medium_names(const std::filesystem::path& media_dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(media_dir, ec)) {
    if (entry.path().extension() == ".toml" && entry.is_regular_file(ec)) names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace edgetwin
