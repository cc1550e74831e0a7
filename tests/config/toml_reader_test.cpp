#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/config/config_error.hpp"
#include "sim/config/toml_reader.hpp"
#include "tests/config/scratch_dir.hpp"

namespace edgetwin {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

class TomlReaderTest : public ::testing::Test {
 protected:
  TomlReader reader_for(const std::string& text) { return TomlReader(scratch_.write("t.toml", text)); }
  std::vector<std::string> lines_of(const TomlReader& reader) const {
    std::vector<std::string> lines;
    for (const Diagnostic& diagnostic : reader.diagnostics()) lines.push_back(diagnostic.to_string());
    return lines;
  }
  std::string at(const std::string& rest) const { return scratch_.path_of("t.toml").string() + ":" + rest; }

  test::ScratchDir scratch_;
};

TEST_F(TomlReaderTest, OptionalAbsentKeyKeepsTheDefault) {
  TomlReader reader = reader_for("[a]\n");
  double bandwidth = 131072;
  int count = 7;
  bool flag = true;
  EXPECT_TRUE(reader.read_number("a.b", bandwidth, Presence::optional, Bound::positive, "bytes"));
  EXPECT_TRUE(reader.read_count("a.c", count, Presence::optional, Bound::positive, "cores"));
  EXPECT_TRUE(reader.read_bool("a.d", flag, Presence::optional));
  EXPECT_DOUBLE_EQ(bandwidth, 131072);
  EXPECT_EQ(count, 7);
  EXPECT_TRUE(flag);
  EXPECT_NO_THROW(reader.finish());
}

TEST_F(TomlReaderTest, BadValueLeavesOutputUntouchedAndReturnsFalse) {
  TomlReader reader = reader_for("x = -1\n");
  double x = 5;
  EXPECT_FALSE(reader.read_number("x", x, Presence::optional, Bound::non_negative, "s"));
  EXPECT_DOUBLE_EQ(x, 5);
  EXPECT_THAT(lines_of(reader), ElementsAre(at("1:5: x: expected a non-negative number (s), got -1")));
}

TEST_F(TomlReaderTest, RequiredMissingKeyReturnsFalse) {
  TomlReader reader = reader_for("");
  std::string name = "unchanged";
  EXPECT_FALSE(reader.read_string("device.name", name, Presence::required));
  EXPECT_EQ(name, "unchanged");
  EXPECT_THAT(lines_of(reader),
              ElementsAre(scratch_.path_of("t.toml").string() +
                          ": device.name: missing required key; expected a non-empty string"));
}

TEST_F(TomlReaderTest, ParentThatIsNotATableIsReportedOnce) {
  TomlReader reader = reader_for("cpu = 5\n");
  int cores = 0;
  double freq = 0;
  EXPECT_FALSE(reader.read_count("cpu.cores", cores, Presence::required, Bound::positive, "cores"));
  EXPECT_FALSE(reader.read_number("cpu.freq_hz", freq, Presence::required, Bound::positive, "Hz"));
  EXPECT_THROW(reader.finish(), ConfigError);
  EXPECT_THAT(lines_of(reader), ElementsAre(at("1:7: cpu: expected a table, got 5")));
}

TEST_F(TomlReaderTest, CountTooLargeForInt) {
  TomlReader reader = reader_for("n = 99999999999\n");
  int n = 1;
  EXPECT_FALSE(reader.read_count("n", n, Presence::required, Bound::positive, "cores"));
  EXPECT_EQ(n, 1);
  EXPECT_THAT(lines_of(reader), ElementsAre(at("1:5: n: expected a positive integer (cores) that fits in 32 bits "
                                               "(-2147483648 to 2147483647), got 99999999999")));
}

// Counts wider than 32 bits read whole (5e9 bytes); 5e9 samples are past what the simulator
// holds in memory and are refused since their range came in (PhysicalRangeOfCounts).
TEST_F(TomlReaderTest, WideCountsAndNanAndBooleans) {
  TomlReader reader = reader_for("samples = 5_000_000_000\nx = nan\nflag = 1\n");
  std::int64_t samples = 0;
  double x = 0;
  bool flag = false;
  EXPECT_TRUE(reader.read_count("samples", samples, Presence::required, Bound::positive, "bytes"));
  EXPECT_EQ(samples, 5'000'000'000);
  EXPECT_FALSE(reader.read_number("x", x, Presence::required, Bound::any, ""));
  EXPECT_FALSE(reader.read_bool("flag", flag, Presence::required));
  EXPECT_THAT(lines_of(reader), ElementsAre(at("2:5: x: expected a number, got nan"),
                                            at("3:8: flag: expected true or false, got 1")));
}

TEST_F(TomlReaderTest, ChoiceNotAString) {
  constexpr std::array<std::string_view, 2> kValid{"a", "b"};
  TomlReader reader = reader_for("mode = 3\n");
  std::string mode;
  EXPECT_FALSE(reader.read_choice("mode", mode, Presence::required, kValid));
  EXPECT_THAT(lines_of(reader), ElementsAre(at("1:8: mode: expected one of a, b, got 3")));
}

TEST_F(TomlReaderTest, StringValuesAreQuotedOnOneLine) {
  TomlReader reader = reader_for("n = \"\"\"two\nlines \"quoted\"\"\"\"\n");
  int n = 0;
  reader.read_count("n", n, Presence::required, Bound::positive, "");
  EXPECT_THAT(lines_of(reader), ElementsAre(at(R"(1:5: n: expected a positive integer, got "two\nlines \"quoted\"")")));
}

TEST_F(TomlReaderTest, ArraysInMessagesAreCut) {
  TomlReader reader = reader_for("x = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n");
  double x = 0;
  reader.read_number("x", x, Presence::required, Bound::any, "");
  EXPECT_THAT(lines_of(reader), ElementsAre(at("1:5: x: expected a number, got [1, 2, 3, 4, 5, 6, 7, 8, ...]")));
}

TEST_F(TomlReaderTest, EveryUnreadKeyIsUnknownInFileOrder) {
  TomlReader reader = reader_for("[b]\nzzz = 1\nkept = 2\n[a]\nx = 1\n");
  double kept = 0;
  reader.read_number("b.kept", kept, Presence::required, Bound::any, "");
  EXPECT_THROW(reader.finish(), ConfigError);
  EXPECT_THAT(lines_of(reader), ElementsAre(at("2:1: b.zzz: unknown key; valid here: kept"),
                                            at("4:2: a: unknown key; valid here: b")));
}

TEST_F(TomlReaderTest, TableNamesInFileOrder) {
  TomlReader reader = reader_for("[storage.zeta]\n[storage.alpha]\n[storage.mid]\n");
  EXPECT_THAT(reader.table_names("storage", Presence::required), ElementsAre("zeta", "alpha", "mid"));
  EXPECT_THAT(reader.table_names("absent", Presence::optional), IsEmpty());
  EXPECT_THAT(reader.diagnostics(), IsEmpty());
}

TEST_F(TomlReaderTest, GettersDoNothingAfterASyntaxError) {
  TomlReader reader = reader_for("a = = 1\n");
  double a = 0;
  EXPECT_FALSE(reader.parsed());
  EXPECT_FALSE(reader.read_number("a", a, Presence::required, Bound::any, ""));
  reader.add_error("a", "ignored after a syntax error");
  EXPECT_THROW(reader.finish(), ConfigError);
  ASSERT_EQ(reader.diagnostics().size(), 1u);
  EXPECT_THAT(reader.diagnostics()[0].message, ::testing::StartsWith("syntax error: "));
  EXPECT_EQ(reader.diagnostics()[0].line, 1);
  EXPECT_EQ(reader.diagnostics()[0].column, 5);
}

TEST_F(TomlReaderTest, AddErrorKeepsTheFirstProblemOfAKey) {
  TomlReader reader = reader_for("x = -2\n");
  double x = 0;
  reader.read_number("x", x, Presence::required, Bound::positive, "s");
  reader.add_error("x", "a follow-up that would only repeat the problem");
  EXPECT_THAT(lines_of(reader), ElementsAre(at("1:5: x: expected a positive number (s), got -2")));
}

TEST_F(TomlReaderTest, ContainsAsksForNothing) {
  TomlReader reader = reader_for("[a]\nb = 1\n");
  EXPECT_TRUE(reader.contains("a.b"));
  EXPECT_TRUE(reader.contains("a"));
  EXPECT_FALSE(reader.contains("a.c"));
  EXPECT_FALSE(reader.contains("a.b.c"));
  EXPECT_THROW(reader.finish(), ConfigError);  // a.b was never read
  EXPECT_THAT(lines_of(reader), ElementsAre(at("1:2: a: unknown key")));
}

TEST_F(TomlReaderTest, TableArrayElementsAreReadByIndex) {
  TomlReader reader = reader_for("[[mode]]\nid = 0\n[[mode]]\nid = 1\nidd = 2\n");
  std::vector<std::string> tables = reader.table_array("mode", Presence::required);
  ASSERT_THAT(tables, ElementsAre("mode[0]", "mode[1]"));
  std::vector<int> ids;
  for (const std::string& table : tables) {
    int id = -1;
    EXPECT_TRUE(reader.read_count(table + ".id", id, Presence::required, Bound::non_negative, ""));
    ids.push_back(id);
  }
  EXPECT_THAT(ids, ElementsAre(0, 1));
  EXPECT_TRUE(reader.contains("mode[1].idd"));
  EXPECT_FALSE(reader.contains("mode[2]"));
  EXPECT_THROW(reader.finish(), ConfigError);
  EXPECT_THAT(lines_of(reader), ElementsAre(at("5:1: mode[1].idd: unknown key; did you mean \"id\"? (valid here: "
                                               "id)")));
}

TEST_F(TomlReaderTest, MissingKeyInATableArrayPointsAtItsTable) {
  TomlReader reader = reader_for("[[mode]]\nid = 0\n\n[[mode]]\nname = \"x\"\n");
  std::string name;
  for (const std::string& table : reader.table_array("mode", Presence::optional)) {
    int id = 0;
    reader.read_count(table + ".id", id, Presence::required, Bound::non_negative, "");
    reader.read_string(table + ".name", name, Presence::optional);
  }
  reader.add_error("mode[1].name", "a cross-check");
  EXPECT_THAT(lines_of(reader), ElementsAre(at("4:1: mode[1].id: missing required key; expected a non-negative "
                                               "integer"),
                                            at("5:8: mode[1].name: a cross-check")));
}

TEST_F(TomlReaderTest, TableArrayOfTheWrongKind) {
  TomlReader reader = reader_for("mode = [1, 2]\nother = 3\n");
  EXPECT_THAT(reader.table_array("mode", Presence::required), IsEmpty());
  EXPECT_THAT(reader.table_array("absent", Presence::optional), IsEmpty());
  EXPECT_THAT(reader.table_array("other", Presence::optional), IsEmpty());
  EXPECT_THAT(lines_of(reader), ElementsAre(at("1:8: mode: expected an array of tables [[mode]], got [1, 2]"),
                                            at("2:9: other: expected an array of tables [[other]], got 3")));
}

TEST_F(TomlReaderTest, RequiredTableArray) {
  TomlReader reader = reader_for("");
  EXPECT_THAT(reader.table_array("mode", Presence::required), IsEmpty());
  EXPECT_THAT(lines_of(reader), ElementsAre(scratch_.path_of("t.toml").string() +
                                            ": mode: missing required key; expected at least one [[mode]] table"));
}

TEST_F(TomlReaderTest, FractionBounds) {
  TomlReader reader = reader_for("a = 0\nb = 1\nc = 1.5\nd = 0\ne = 1\nf = [0.5, -0.1]\ng = 3\n");
  double value = -1;
  std::vector<double> values;
  EXPECT_TRUE(reader.read_number("a", value, Presence::required, Bound::fraction, "share"));
  EXPECT_TRUE(reader.read_number("b", value, Presence::required, Bound::fraction, "share"));
  EXPECT_FALSE(reader.read_number("c", value, Presence::required, Bound::fraction, "share"));
  EXPECT_FALSE(reader.read_number("d", value, Presence::required, Bound::positive_fraction, "share"));
  EXPECT_TRUE(reader.read_number("e", value, Presence::required, Bound::positive_fraction, "share"));
  EXPECT_FALSE(reader.read_numbers("f", values, Presence::required, Bound::fraction, "share"));
  EXPECT_FALSE(reader.read_numbers("g", values, Presence::required, Bound::fraction, "share"));
  EXPECT_THAT(lines_of(reader), ElementsAre(at("3:5: c: expected a number from 0 to 1 (share), got 1.5"),
                                            at("4:5: d: expected a positive number at most 1 (share), got 0"),
                                            at("6:11: f[1]: expected a number from 0 to 1 (share), got -0.1"),
                                            at("7:5: g: expected an array of numbers from 0 to 1 (share), got 3")));
}

TEST_F(TomlReaderTest, ForeignDiagnosticsComeAfterTheFilesOwn) {
  TomlReader reader = reader_for("x = -1\n");
  double x = 0;
  reader.read_number("x", x, Presence::required, Bound::positive, "s");
  reader.add_foreign_diagnostics({Diagnostic{"other.toml", 1, 2, "medium.name", "first"},
                                  Diagnostic{"other.toml", 0, 0, "medium", "second"}});
  try {
    reader.finish();
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& error) {
    std::vector<std::string> lines;
    for (const Diagnostic& diagnostic : error.diagnostics()) lines.push_back(diagnostic.to_string());
    EXPECT_THAT(lines, ElementsAre(at("1:5: x: expected a positive number (s), got -1"),
                                   "other.toml:1:2: medium.name: first", "other.toml: medium: second"));
  }
}

}  // namespace
}  // namespace edgetwin

namespace edgetwin {
namespace {

// SourceMap: checks made after loading are placed at the key, or at its nearest table.
class SourceMapTest : public ::testing::Test {
 protected:
  SourceMap map_of(const std::string& name, const std::string& text) {
    return TomlReader(scratch_.write(name, text)).source_map();
  }
  test::ScratchDir scratch_;
};

TEST_F(SourceMapTest, AKeyIsPlacedWhereItStands) {
  const SourceMap map = map_of("w.toml", "[costs]\ndevice = \"x\"\n\n[footprint]\nworker_bytes = 3\n[[config]]\nname = \"a\"\n");
  const std::string file = scratch_.path_of("w.toml").string();
  EXPECT_EQ(map.at("costs.device", "m").to_string(), file + ":2:10: costs.device: m");
  EXPECT_EQ(map.at("footprint", "m").to_string(), file + ":4:1: footprint: m");
  EXPECT_EQ(map.at("config[0].name", "m").to_string(), file + ":7:8: config[0].name: m");
}

TEST_F(SourceMapTest, AMissingKeyIsPlacedAtItsNearestTableOrTheFile) {
  const SourceMap map = map_of("w.toml", "[gpu]\nfreq_hz = 1\n");
  const std::string file = scratch_.path_of("w.toml").string();
  EXPECT_EQ(map.at("gpu.training_efficiency", "m").to_string(), file + ":1:1: gpu.training_efficiency: m");
  EXPECT_EQ(map.at("power", "m").to_string(), file + ": power: m");
  EXPECT_EQ(SourceMap().at("power", "m").to_string(), "power: m");
}

TEST_F(SourceMapTest, AnOverlayTakesTheKeysUnderItsPrefixFromTheOtherFile) {
  const SourceMap workload = map_of("w.toml", "[costs]\ndevice = \"x\"\n[footprint]\nworker_bytes = 3\n");
  const SourceMap profile = map_of("p.toml", "[profile]\ndevice = \"y\"\n\n[costs]\n\ndevice = \"y\"\n");
  const SourceMap both = workload.overlaid("costs", profile);
  EXPECT_EQ(both.at("costs.device", "m").to_string(), scratch_.path_of("p.toml").string() + ":6:10: costs.device: m");
  EXPECT_EQ(both.at("footprint.worker_bytes", "m").to_string(),
            scratch_.path_of("w.toml").string() + ":4:16: footprint.worker_bytes: m");
  EXPECT_EQ(both.at("profile.device", "m").to_string(), scratch_.path_of("w.toml").string() + ": profile.device: m");
}

}  // namespace
}  // namespace edgetwin
