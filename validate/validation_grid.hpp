// The validation grid: which real configurations edgetwin-validate runs and predicts.
//
// File format (TOML, every key optional unless marked; unknown keys are errors with
// file:line:column, all problems of the file reported together):
//
//   [grid]
//   repeats = 5            # runs of each configuration, interleaved round by round (>= 1)
//   epochs = 2             # epochs per run; each epoch is compared on its own
//   max_samples = 0        # use samples [0, N) of the dataset; 0 = all
//   seed = 1               # sampler, augmentation and model seed (same for every run)
//
//   [defaults]             # any [[config]] key but name; configurations inherit them,
//   workers = 2            # and what neither sets is the DataLoader's default (LoaderSpec)
//
//   [[config]]             # at least one
//   name = "w2-b32"        # required, unique, [A-Za-z0-9_-]
//   workers = 2            # DataLoader num_workers, >= 0
//   batch_size = 16        # >= 1
//   prefetch_factor = 2    # >= 1
//   cache = "warm"         # page cache of the dataset files before epoch 0: cold | warm
//   cores = 0              # pin the run to this many CPUs (affinity); 0 = all allowed
//   balloon_bytes = 0      # memory balloon held during the run (page-cache pressure)
//   balloon_leave_dataset_fraction = 0.5  # or: size the balloon so that free RAM holds only
//                          # this fraction (0..1) of the dataset's page-cache footprint
//
// Contract: load_grid validates the file against the host's limits (cores it may use, free
// RAM for explicit balloons) and throws one ConfigError with every problem.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/specs.hpp"

namespace edgetwin::validate {

enum class CacheState { cold, warm };
std::string to_string(CacheState cache);

struct GridConfig {
  std::string name;
  std::string table;  // its key in the grid file ("config[2]"), for messages
  LoaderSpec loader;  // workers, batch_size and prefetch_factor come from the grid
  CacheState cache = CacheState::warm;
  int cores = 0;                                        // 0 = every CPU the process may use
  double balloon_bytes = 0;                             // explicit balloon
  std::optional<double> balloon_leave_dataset_fraction;  // balloon sized at session start
  bool has_balloon() const { return balloon_bytes > 0 || balloon_leave_dataset_fraction.has_value(); }
};

struct GridSpec {
  std::string source_file;
  SourceMap source;
  int repeats = 5;
  int epochs = 2;
  std::int64_t max_samples = 0;
  std::uint64_t seed = 1;
  std::vector<GridConfig> configs;
};

// What the host allows, for checks that need it.
struct HostLimits {
  int cores = 0;                       // CPUs this process may run on
  std::uint64_t mem_available_bytes = 0;  // /proc/meminfo MemAvailable
};

GridSpec load_grid(const std::filesystem::path& file, const HostLimits& limits);

}  // namespace edgetwin::validate
