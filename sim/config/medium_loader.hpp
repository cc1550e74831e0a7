// Loads a storage medium file (devices/media/<name>.toml), the reusable definition a device's
// [storage.<name>] table names with `medium = "<name>"`; the schema is in docs/reference/schema.md.
//
// Contract: load_medium collects every problem of the medium file and throws one ConfigError
// whose diagnostics carry the medium file's own name, line and column. The returned spec has
// medium = the file's stem, its rates, its active power and its provenance; name is left for
// the device to set. read_storage_rates holds the rules of the four keys once, for medium files
// and for inline [storage.<name>] tables.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "sim/config/specs.hpp"
#include "sim/config/toml_reader.hpp"

namespace edgetwin {

StorageSpec load_medium(const std::filesystem::path& file);

// The directory media files of a device file live in: <directory of the device file>/media.
std::filesystem::path media_dir_of(const std::filesystem::path& device_file);
// The names a device file can give as medium: stems of the *.toml files in media_dir, sorted;
// empty when the directory does not exist.
std::vector<std::string> medium_names(const std::filesystem::path& media_dir);

// read_bw_bytes_per_s and request_s (required unless presence is optional), request_bytes and
// active_power_w (optional) under table.
void read_storage_rates(TomlReader& reader, const std::string& table, StorageSpec& out,
                        Presence presence = Presence::required);
// Which of those keys are in table, in schema order; asks for nothing.
std::vector<std::string> storage_rate_keys_present(const TomlReader& reader, const std::string& table);

}  // namespace edgetwin
