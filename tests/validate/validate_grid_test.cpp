// The grid file: defaults, every key, and every bad-input rule with file:line:column.
#include <gtest/gtest.h>

#include "sim/config/config_error.hpp"
#include "validate/calibration_overlap.hpp"
#include "validate/validation_grid.hpp"
#include "tests/validate/validate_test_support.hpp"

namespace edgetwin::validate {
namespace {

using testing::ScratchDir;
using testing::write_text;

const HostLimits kHost{2, 20'000'000'000ull};

std::string load_error(const std::filesystem::path& file, const HostLimits& limits = kHost) {
  try {
    (void)load_grid(file, limits);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(ValidationGrid, ConfigurationsInheritDefaultsAndOverrideThem) {
  ScratchDir dir;
  write_text(dir / "g.toml",
             "[grid]\nrepeats = 7\nepochs = 3\nmax_samples = 500\nseed = 9\n"
             "[defaults]\nbatch_size = 32\nworkers = 1\n"
             "[[config]]\nname = \"a\"\n"
             "[[config]]\nname = \"b\"\nworkers = 4\nprefetch_factor = 1\ncache = \"cold\"\ncores = 1\n"
             "balloon_leave_dataset_fraction = 0.5\n");
  const GridSpec grid = load_grid(dir / "g.toml", kHost);
  EXPECT_EQ(grid.repeats, 7);
  EXPECT_EQ(grid.epochs, 3);
  EXPECT_EQ(grid.max_samples, 500);
  EXPECT_EQ(grid.seed, 9u);
  ASSERT_EQ(grid.configs.size(), 2u);
  EXPECT_EQ(grid.configs[0].loader.batch_size, 32);
  EXPECT_EQ(grid.configs[0].loader.workers, 1);
  EXPECT_EQ(grid.configs[0].cache, CacheState::warm);  // the default
  EXPECT_FALSE(grid.configs[0].has_balloon());
  EXPECT_EQ(grid.configs[1].loader.batch_size, 32);
  EXPECT_EQ(grid.configs[1].loader.workers, 4);
  EXPECT_EQ(grid.configs[1].loader.prefetch_factor, 1);
  EXPECT_EQ(grid.configs[1].cache, CacheState::cold);
  EXPECT_EQ(grid.configs[1].cores, 1);
  ASSERT_TRUE(grid.configs[1].balloon_leave_dataset_fraction);
  EXPECT_DOUBLE_EQ(*grid.configs[1].balloon_leave_dataset_fraction, 0.5);
}

TEST(ValidationGrid, UnknownKeysAreErrorsWithFileLineAndColumn) {
  ScratchDir dir;
  write_text(dir / "g.toml", "[grid]\nrepeat = 5\n[[config]]\nname = \"a\"\nwrkers = 2\n");
  const std::string error = load_error(dir / "g.toml");
  EXPECT_NE(error.find("g.toml:2:1: grid.repeat: unknown key; did you mean \"repeats\"?"), std::string::npos) << error;
  EXPECT_NE(error.find("g.toml:5:1: config[0].wrkers: unknown key; did you mean \"workers\"?"), std::string::npos) << error;
}

TEST(ValidationGrid, BadValuesAreReportedTogether) {
  ScratchDir dir;
  write_text(dir / "g.toml",
             "[[config]]\nname = \"a\"\nworkers = -1\ncache = \"lukewarm\"\n"
             "[[config]]\nname = \"a\"\nbatch_size = 0\n");
  const std::string error = load_error(dir / "g.toml");
  EXPECT_NE(error.find("config[0].workers"), std::string::npos) << error;
  EXPECT_NE(error.find("config[0].cache"), std::string::npos) << error;
  EXPECT_NE(error.find("valid: cold, warm"), std::string::npos) << error;
  EXPECT_NE(error.find("config[1].name: configuration \"a\" is defined twice"), std::string::npos) << error;
  EXPECT_NE(error.find("config[1].batch_size"), std::string::npos) << error;
}

TEST(ValidationGrid, NeedsAtLeastOneConfiguration) {
  ScratchDir dir;
  write_text(dir / "g.toml", "[grid]\nrepeats = 5\n");
  EXPECT_NE(load_error(dir / "g.toml").find("config"), std::string::npos);
}

TEST(ValidationGrid, BalloonLargerThanFreeRamIsRefused) {
  ScratchDir dir;
  write_text(dir / "g.toml", "[[config]]\nname = \"a\"\nballoon_bytes = 3_000_000_000\n");
  const std::string error = load_error(dir / "g.toml", HostLimits{2, 2'000'000'000ull});
  EXPECT_NE(error.find("g.toml:3:17: config[0].balloon_bytes: a balloon of 3000000000 bytes is larger than the free RAM"),
            std::string::npos)
      << error;
}

TEST(ValidationGrid, MoreCoresThanTheProcessMayUseAreRefused) {
  ScratchDir dir;
  write_text(dir / "g.toml", "[[config]]\nname = \"a\"\ncores = 3\n");
  EXPECT_NE(load_error(dir / "g.toml").find("config[0].cores: expected 0 (all) to 2 CPUs"), std::string::npos);
}

TEST(ValidationGrid, BothBalloonKindsAtOnceAreRefused) {
  ScratchDir dir;
  write_text(dir / "g.toml", "[[config]]\nname = \"a\"\nballoon_bytes = 1000\nballoon_leave_dataset_fraction = 0.5\n");
  EXPECT_NE(load_error(dir / "g.toml").find("either balloon_bytes or balloon_leave_dataset_fraction"), std::string::npos);
}

TEST(ValidationGrid, MissingFileIsAnError) {
  ScratchDir dir;
  EXPECT_NE(load_error(dir / "absent.toml").find("cannot open file"), std::string::npos);
}

TEST(ValidationGrid, ShippedGridsLoad) {
  for (const char* name : {"lenet-mnist", "lenet-jpeg-folder"}) {
    const auto file = std::filesystem::path(EDGETWIN_SOURCE_DIR) / "validate/grids" / (std::string(name) + ".toml");
    const GridSpec grid = load_grid(file, kHost);
    EXPECT_GE(grid.repeats, 5) << name << ": docs/explanation/validation.md asks for at least 5 interleaved runs per configuration";
    // Disjoint from what calibrate runs with the workload's batch size 16 (calibration_overlap.hpp).
    EXPECT_TRUE(find_overlaps(grid, CalibrationSettings{16, "test"}, 2).empty()) << name;
  }
}

// ---- calibration overlap ------------------------------------------------------------

TEST(CalibrationOverlap, BatchSizeComesFromTheProfileCommand) {
  EXPECT_EQ(batch_size_in_command("edgetwin-calibrate run --workload x --batch-size 32 --quick"), 32);
  EXPECT_EQ(batch_size_in_command("edgetwin-calibrate run --batch-size=8"), 8);
  EXPECT_FALSE(batch_size_in_command("edgetwin-calibrate run --workload x"));
  EXPECT_FALSE(batch_size_in_command("edgetwin-calibrate run --batch-size"));
  EXPECT_EQ(calibration_settings("edgetwin-calibrate run", 16).batch_size, 16);  // the workload's
  EXPECT_EQ(calibration_settings("edgetwin-calibrate run --batch-size 64", 16).batch_size, 64);
}

TEST(CalibrationOverlap, OnlyTheCalibratedSequentialConfigurationOverlaps) {
  GridSpec grid;
  auto config = [](std::string name, int workers, int batch, int cores, double balloon) {
    GridConfig c;
    c.name = std::move(name);
    c.loader.workers = workers;
    c.loader.batch_size = batch;
    c.cores = cores;
    c.balloon_bytes = balloon;
    return c;
  };
  grid.configs = {config("same", 0, 16, 0, 0),       config("all-cores-named", 0, 16, 2, 0),
                  config("other-batch", 0, 32, 0, 0), config("workers", 2, 16, 0, 0),
                  config("one-core", 0, 16, 1, 0),    config("balloon", 0, 16, 0, 1e9)};
  grid.configs[0].cache = CacheState::cold;  // cold or warm: calibrate ran both
  const auto overlaps = find_overlaps(grid, CalibrationSettings{16, "test"}, 2);
  ASSERT_EQ(overlaps.size(), 2u);
  EXPECT_EQ(overlaps[0].config, "same");
  EXPECT_EQ(overlaps[1].config, "all-cores-named");
}

}  // namespace
}  // namespace edgetwin::validate
