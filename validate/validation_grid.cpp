#include "validate/validation_grid.hpp"

#include <array>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "sim/config/toml_reader.hpp"

namespace edgetwin::validate {

namespace {

constexpr std::array<std::string_view, 2> kCacheStates{"cold", "warm"};

bool is_plain_name(const std::string& name) {
  if (name.empty()) return false;
  for (const char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  }
  return true;
}

void read_run_settings(TomlReader& reader, GridSpec& grid) {
  reader.read_count("grid.repeats", grid.repeats, Presence::optional, Bound::positive, "runs");
  reader.read_count("grid.epochs", grid.epochs, Presence::optional, Bound::positive, "epochs");
  reader.read_count("grid.max_samples", grid.max_samples, Presence::optional, Bound::non_negative, "samples");
  std::int64_t seed = static_cast<std::int64_t>(grid.seed);
  if (reader.read_count("grid.seed", seed, Presence::optional, Bound::non_negative, "")) grid.seed = static_cast<std::uint64_t>(seed);
}

// The keys a configuration may set, read from `table` ("defaults" or "config[i]") over `c`.
void read_config_keys(TomlReader& reader, const std::string& table, GridConfig& c) {
  const auto key = [&table](std::string_view name) { return fmt::format("{}.{}", table, name); };
  reader.read_count(key("workers"), c.loader.workers, Presence::optional, Bound::non_negative, "worker processes");
  reader.read_count(key("batch_size"), c.loader.batch_size, Presence::optional, Bound::positive, "samples");
  reader.read_count(key("prefetch_factor"), c.loader.prefetch_factor, Presence::optional, Bound::positive, "batches per worker");
  std::string cache = to_string(c.cache);
  if (reader.read_choice(key("cache"), cache, Presence::optional, kCacheStates)) {
    c.cache = cache == "cold" ? CacheState::cold : CacheState::warm;
  }
  reader.read_count(key("cores"), c.cores, Presence::optional, Bound::non_negative, "CPUs");
  reader.read_number(key("balloon_bytes"), c.balloon_bytes, Presence::optional, Bound::non_negative, "bytes");
  double fraction = 0;
  if (reader.contains(key("balloon_leave_dataset_fraction")) &&
      reader.read_number(key("balloon_leave_dataset_fraction"), fraction, Presence::optional, Bound::positive_fraction,
                         "of the dataset's page-cache footprint")) {
    c.balloon_leave_dataset_fraction = fraction;
  }
}

// Checks that need the whole configuration (after defaults) or the host.
void check_config(TomlReader& reader, const std::string& table, const GridConfig& c, const HostLimits& limits) {
  if (c.cores > limits.cores) {
    reader.add_error(table + ".cores",
                     fmt::format("expected 0 (all) to {} CPUs (the CPUs this process may use), got {}", limits.cores, c.cores));
  }
  if (c.balloon_bytes > 0 && c.balloon_leave_dataset_fraction) {
    reader.add_error(table + ".balloon_bytes", "give either balloon_bytes or balloon_leave_dataset_fraction, not both");
  }
  if (c.balloon_bytes > static_cast<double>(limits.mem_available_bytes)) {
    reader.add_error(table + ".balloon_bytes",
                     fmt::format("a balloon of {:.0f} bytes is larger than the free RAM of this machine "
                                 "(MemAvailable {} bytes); it would push the run into swap or the OOM killer",
                                 c.balloon_bytes, limits.mem_available_bytes));
  }
}

void read_configs(TomlReader& reader, GridSpec& grid, const HostLimits& limits) {
  GridConfig defaults;
  if (reader.has("defaults")) read_config_keys(reader, "defaults", defaults);
  std::set<std::string> names;
  for (const std::string& table : reader.table_array("config", Presence::required)) {
    GridConfig c = defaults;
    c.table = table;
    if (reader.read_name(table + ".name", c.name, Presence::required)) {
      if (!is_plain_name(c.name)) {
        reader.add_error(table + ".name", fmt::format("expected letters, digits, '-' or '_', got \"{}\"", c.name));
      } else if (!names.insert(c.name).second) {
        reader.add_error(table + ".name", fmt::format("configuration \"{}\" is defined twice", c.name));
      }
    }
    read_config_keys(reader, table, c);
    check_config(reader, table, c, limits);
    grid.configs.push_back(c);
  }
}

}  // namespace

std::string to_string(CacheState cache) { return cache == CacheState::cold ? "cold" : "warm"; }

GridSpec load_grid(const std::filesystem::path& file, const HostLimits& limits) {
  TomlReader reader(file);
  GridSpec grid;
  grid.source_file = reader.file_name();
  grid.source = reader.source_map();
  if (reader.parsed()) {
    if (reader.has("grid")) read_run_settings(reader, grid);
    read_configs(reader, grid, limits);
  }
  reader.finish();
  return grid;
}

}  // namespace edgetwin::validate
