// Shard files read back (sim/app/shard_files.hpp), in process: a shard with any one bit
// flipped anywhere is refused naming the file; a shard whose checksum is right but whose
// figures are absurd (a forged or miscomputed seal) is refused naming the file and the figure;
// chunk results are read back exactly (sim/app/member_chunks.hpp, read_chunk_results).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <string>

#include "sim/app/child_process.hpp"
#include "sim/app/member_chunks.hpp"
#include "sim/app/sealed_file.hpp"
#include "sim/app/shard_files.hpp"
#include "sim/config/config_error.hpp"
#include "tests/support/test_files.hpp"

namespace edgetwin::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test_support::read_text;
using test_support::TempDir;
using test_support::write_text;

// One epoch as a real run gives it: every part within its whole.
EpochStats sane_epoch() {
  EpochStats e;
  e.has_energy = true;
  e.e2e_s = 10;
  e.stall_s = 1;
  e.compute_s = 9;
  e.fetch_s = 2;
  e.preprocess_s = 3;
  e.cache_hit_ratio = 1;
  e.cpu_util = 0.5;
  e.gpu_util = 0.2;
  e.batches = 100;
  e.energy_j = 100;
  e.base_energy_j = 50;
  e.incremental_energy_j = 50;
  e.avg_power_w = 10;
  e.peak_power_w = 12;
  return e;
}

// A chunk's bytes as a child sends them: one member with the epoch, one with an error.
std::string chunk_bytes(const EpochStats& epoch) {
  std::string bytes;
  append_records(bytes, std::vector<EpochStats>{epoch});
  append_text(bytes, "");
  append_records(bytes, std::vector<EpochStats>{});
  append_text(bytes, "--workers: expected at most 1024, got 2000");
  return bytes;
}

// Shard 1/1 of a batch of one chunk, written as `edgetwin sweep --shard 1/1` writes it.
fs::path write_shard(const fs::path& dir, const EpochStats& epoch) {
  fs::remove(dir / "sweep-shard-1-of-1.etshard");  // a shard file there already is another run's
  ShardRecorder recorder("sweep", {"--epochs", "1"}, 1, 1, dir);
  recorder.hand_out(1);
  EXPECT_THROW(recorder.gather(1, {{0, chunk_bytes(epoch)}}), ShardFinished);
  return recorder.path();
}

// The message read_shard_set refuses the file with, placed at the file; "" when it accepts it.
std::string refusal(const fs::path& file) {
  try {
    read_shard_set({file});
    return "";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.diagnostics().size(), 1u);
    EXPECT_EQ(e.diagnostics().front().file, file.string());
    return e.diagnostics().front().message;
  }
}

TEST(ShardFile, AWrittenShardReadsBackExactly) {
  TempDir dir;
  const fs::path file = write_shard(dir.path(), sane_epoch());
  EXPECT_THAT(read_text(file), ::testing::StartsWith("edgetwin sealed file 1: edgetwin shard; identity "));
  const auto set = read_shard_set({file});
  EXPECT_EQ(set->identity().shards, 1u);
  EXPECT_EQ(set->source_of(0), "");  // nothing gathered from the file yet
  set->hand_out(1);
  const auto chunks = set->gather(1, {});
  EXPECT_EQ(set->source_of(0), file.string());
  const auto members = read_chunk_results(chunks.at(0), 2);
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(members[0].epochs.at(0).compute_s, 9);
  EXPECT_EQ(members[1].error, "--workers: expected at most 1024, got 2000");
}

// The property of docs/reference/reliability.md: no one flipped bit of a shard merges.
TEST(ShardFile, EveryFlippedBitAtEveryPositionIsRefusedNamingTheFile) {
  TempDir dir;
  const fs::path file = write_shard(dir.path(), sane_epoch());
  const std::string shard = read_text(file);
  int accepted = 0, checksum = 0;
  for (std::size_t at = 0; at < shard.size(); ++at) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = shard;
      damaged[at] = static_cast<char>(damaged[at] ^ (1 << bit));
      write_text(file, damaged);
      const std::string why = refusal(file);
      accepted += why.empty() ? 1 : 0;
      checksum += why.starts_with("checksum mismatch") ? 1 : 0;
    }
  }
  EXPECT_EQ(accepted, 0) << "of " << 8 * shard.size() << " flipped bits";
  RecordProperty("flipped_bits", static_cast<int>(8 * shard.size()));
  RecordProperty("refused_by_checksum", checksum);
  EXPECT_GT(checksum, static_cast<int>(8 * (shard.size() - shard.find('\n'))) / 2);
}

// A seal that is right around absurd figures: what a forged checksum, or a model defect in the
// build that wrote the shard, would hand over.
TEST(ShardFile, AbsurdFiguresUnderAGoodChecksumAreRefusedNamingTheFigure) {
  TempDir dir;
  const auto refused_with = [&](const std::function<void(EpochStats&)>& damage) {
    EpochStats e = sane_epoch();
    damage(e);
    return refusal(write_shard(dir.path(), e));
  };
  EXPECT_THAT(refused_with([](EpochStats& e) { e.compute_s = -2.99e232; }),
              HasSubstr("chunk 0: member 0: epoch 0: compute_s = -2.99e+232, outside [0, inf)"));
  EXPECT_THAT(refused_with([](EpochStats& e) { e.compute_s = 2.99e232; }),
              HasSubstr("compute_s = 2.99e+232, outside [0, 1e8 s (3 years)]"));
  EXPECT_THAT(refused_with([](EpochStats& e) { e.base_energy_j = 150; }),
              HasSubstr("base_energy_j = 150, more than energy_j = 100"));
  EXPECT_THAT(refused_with([](EpochStats& e) { e.avg_power_w = 20; }), HasSubstr("avg_power_w = 20, more than peak_power_w = 12"));
  EXPECT_THAT(refused_with([](EpochStats& e) { e.stall_s = 11; }), HasSubstr("stall_s = 11, more than e2e_s = 10"));
  EXPECT_THAT(refused_with([](EpochStats& e) { e.gpu_util = 1.5; }), HasSubstr("gpu_util = 1.5, outside [0, 1]"));
  EXPECT_THAT(refused_with([](EpochStats& e) { e.peak_power_w = 1e6; }), HasSubstr("peak_power_w = 1000000, outside [0, 10 kW]"));
  EXPECT_THAT(refused_with([](EpochStats& e) { e.energy_j = std::nan(""); }), HasSubstr("energy_j = nan"));
  EXPECT_THAT(refused_with([](EpochStats& e) { e.epoch = -1; }), HasSubstr("epoch number -1 is outside"));
  EXPECT_THAT(refused_with([](EpochStats& e) {
                const unsigned char two = 2;
                std::memcpy(reinterpret_cast<unsigned char*>(&e) + offsetof(EpochStats, has_energy), &two, 1);
              }),
              HasSubstr("has_energy is not a bool"));
  // Figures a device without [power] does not have are not read.
  EXPECT_EQ(refused_with([](EpochStats& e) {
              e.has_energy = false;
              e.energy_j = 0;
            }),
            "");
}

TEST(ShardFile, ChunkResultsThatAreNotAChunksAreDamaged) {
  const std::string good = chunk_bytes(sane_epoch());
  const auto damage = [](const std::string& bytes, std::optional<std::size_t> members) {
    try {
      read_chunk_results(bytes, members);
    } catch (const DamagedResults& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(damage(good, 2), "");
  EXPECT_EQ(damage(good, std::nullopt), "");
  EXPECT_THAT(damage(good, 3), HasSubstr("member 2: results cut short: 8 bytes wanted, 0 left"));
  EXPECT_THAT(damage(good, 1), HasSubstr("bytes after its 1 members"));
  EXPECT_THAT(damage(good.substr(0, good.size() - 3), 2), HasSubstr("member 1: results cut short"));
  std::string none;
  append_records(none, std::vector<EpochStats>{});
  append_text(none, "");
  EXPECT_THAT(damage(none, 1), HasSubstr("member 0: neither epochs nor an error"));
  std::string escape;
  append_records(escape, std::vector<EpochStats>{});
  append_text(escape, "red\x1b[31m");
  EXPECT_THAT(damage(escape, 1), HasSubstr("an error message with control characters"));
}

}  // namespace
}  // namespace edgetwin::test
