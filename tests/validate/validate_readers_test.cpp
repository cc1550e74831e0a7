// Readers of what edgetwin-validate wrote earlier (report.json for --rescore, the run journal):
// read only under their own checksums (validate/checksummed_json.hpp), every figure within what
// a measurement can be, numbers that do not fit their type refused with the file, never cast.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/app/sealed_file.hpp"
#include "sim/config/config_error.hpp"
#include "tests/support/test_files.hpp"
#include "validate/checksummed_json.hpp"
#include "validate/measured_run_json.hpp"
#include "validate/report_reader.hpp"
#include "validate/run_journal.hpp"

namespace edgetwin::validate {
namespace {

using test_support::TempDir;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

// Found by report_json_fuzzer (fuzz/corpus/report_json/finding-integer-past-int64.json): an
// integer past any 64-bit type is a float to nlohmann, whose conversion to an integer was an
// undefined cast (UBSan, "1.84467e+20 is outside the range of representable values of type
// 'long'"); a negative byte count wrapped. Both are now a refusal naming the file.
TEST(ReportReader, IntegersPastTheirTypeAreRefusedWithTheFile) {
  TempDir dir;
  test_support::write_text(dir / "r.json", test_support::read_text(std::string(EDGETWIN_SOURCE_DIR) +
                                                                   "/fuzz/corpus/report_json/finding-integer-past-int64.json"));
  try {
    (void)read_measurements(dir / "r.json");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("r.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("expected an integer, got a number"), std::string::npos) << e.what();
  }
}

// A report.json as edgetwin-validate writes it: one configuration, one run of two epochs.
nlohmann::json report_doc() {
  MeasuredRun run;
  run.epochs = {MeasuredEpoch{4.0, 0.5, 3.5, 0.25, 800}, MeasuredEpoch{4.0, 0.4, 3.6, std::nullopt, 0}};
  run.load_average_1m = 1.2;
  run.mem_available_bytes = 20'000'000'000;
  run.resident_fraction_at_start = 0.47;
  return {{"tool", "edgetwin-validate"},
          {"session", {{"started_utc", "2026-12-05T13:02:14Z"},
                       {"load", {{"rounds", {{{"round", 0}, {"waited_s", 30.0}, {"load_1m", 1.2}, {"quiet", true}}}}}}}},
          {"configs", {{{"config", {{"name", "w2"}}}, {"runs", {measured_run_json(run)}}}}}};
}

// What read_measurements says of the text, placed at the file; "" when it reads it.
std::string refusal(const std::string& text) {
  TempDir dir;
  test_support::write_text(dir / "report.json", text);
  try {
    (void)read_measurements(dir / "report.json");
    return "";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.diagnostics().front().file, (dir / "report.json").string());
    return e.diagnostics().front().message;
  }
}

TEST(ReportReader, AReportIsReadOnlyUnderItsOwnChecksum) {
  const std::string report = checksummed_document(report_doc());
  EXPECT_THAT(report, ::testing::EndsWith("\n  \"checksum\": \"xxh3:" + xxh3_hex(report.substr(0, report.rfind(",\n"))) +
                                          "\"\n}\n"));
  EXPECT_EQ(nlohmann::json::parse(report)["tool"], "edgetwin-validate");  // still JSON to anyone else
  EXPECT_EQ(refusal(report), "");
  EXPECT_THAT(refusal(report_doc().dump(2)), ::testing::HasSubstr("no \"checksum\" as its last key"));
  EXPECT_THAT(refusal(report.substr(0, report.size() / 2)), ::testing::HasSubstr("no \"checksum\" as its last key"));
  std::string edited = report;
  edited.replace(edited.find("\"e2e_s\": 4.0"), 12, "\"e2e_s\": 4.5");
  EXPECT_THAT(refusal(edited), ::testing::HasSubstr("checksum mismatch: changed or damaged after it was written"));
}

// Every byte of a report flipped, one at a time: none is re-scored.
TEST(ReportReader, AFlippedByteAnywhereIsRefused) {
  const std::string report = checksummed_document(report_doc());
  int accepted = 0;
  for (std::size_t at = 0; at < report.size(); ++at) {
    std::string damaged = report;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x04);
    accepted += refusal(damaged).empty() ? 1 : 0;
  }
  EXPECT_EQ(accepted, 0) << "of " << report.size() << " flipped bytes";
}

// Figures no measurement can have, under a good checksum (a forged one, or a writer's defect).
TEST(ReportReader, AbsurdFiguresUnderAGoodChecksumAreRefusedNamingTheKey) {
  const auto with = [](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json doc = report_doc();
    edit(doc["configs"][0]["runs"][0]);
    return refusal(checksummed_document(doc));
  };
  EXPECT_THAT(with([](nlohmann::json& run) { run["epochs"][0]["compute_s"] = -2.99e232; }),
              ::testing::HasSubstr("epochs[0].compute_s = -2.99e+232: expected a number from 0 to 1e8 s"));
  EXPECT_THAT(with([](nlohmann::json& run) { run["epochs"][1]["stall_s"] = 40.0; }),
              ::testing::HasSubstr("epochs[1].stall_s = 40: more than epochs[1].e2e_s = 4"));
  EXPECT_THAT(with([](nlohmann::json& run) { run["epochs"][0]["cache_hit_ratio"] = 1.5; }),
              ::testing::HasSubstr("epochs[0].cache_hit_ratio = 1.5: expected a number from 0 to 1"));
  EXPECT_THAT(with([](nlohmann::json& run) { run["balloon_bytes"] = 2'000'000'000'000'000'000u; }),
              ::testing::HasSubstr("balloon_bytes = 2000000000000000000: expected at most 1 PB"));
  nlohmann::json doc = report_doc();
  doc["session"]["load"]["rounds"][0]["waited_s"] = 1e300;
  EXPECT_THAT(refusal(checksummed_document(doc)), ::testing::HasSubstr("waited_s = 1e+300: expected a number from 0 to 1e8 s"));
}

// The journal: each line under its own checksum; a line a kill cut short counts for nothing and
// goes before the next run is appended; a whole line damaged stops the session at its line.
TEST(RunJournal, ALineCutByAKillIsDroppedAndADamagedLineIsRefusedAtItsLine) {
  TempDir dir;
  const auto file = dir / ".journal.jsonl";
  MeasuredRun run;
  run.epochs = {MeasuredEpoch{4.0, 0.5, 3.5, std::nullopt, 0}};
  {
    RunJournal journal(file, "session A");
    journal.open_for_append();
    journal.append(0, "w2", run);
  }
  std::ofstream(file, std::ios::app) << "{\"round\": 1, \"con";  // cut short by the kill
  RunJournal again(file, "session A");
  EXPECT_EQ(again.load().size(), 1u);
  again.open_for_append();
  again.append(1, "w2", run);
  EXPECT_EQ(RunJournal(file, "session A").load().size(), 2u);
  std::string text = test_support::read_text(file);
  const std::string whole = text;
  text[text.find("3.5")] = '9';
  test_support::write_text(file, text);
  const std::string error = error_of([&] { RunJournal(file, "session A").load(); });
  EXPECT_THAT(error, ::testing::HasSubstr(file.string() + ":2:1: a damaged journal line: checksum mismatch"));
  EXPECT_THAT(error, ::testing::HasSubstr("remove the journal to measure the session anew"));
  // Under a good checksum, a run no measurement can be.
  text = whole;
  const std::size_t second = text.find('\n') + 1;
  const std::string line = text.substr(second, text.find('\t', second) - second);
  nlohmann::json j = nlohmann::json::parse(line);
  j["run"]["epochs"][0]["e2e_s"] = -1.0;
  text.replace(second, text.find('\n', second) + 1 - second, checksummed_line(j) + "\n");
  test_support::write_text(file, text);
  EXPECT_THAT(error_of([&] { RunJournal(file, "session A").load(); }),
              ::testing::HasSubstr(":2:1: a run that cannot be read back: epochs[0].e2e_s = -1: expected a number"));
}

TEST(RunJournal, AJournalThatIsNoRegularFileIsNamed) {
  TempDir dir;
  std::filesystem::create_directory(dir / ".journal.jsonl");
  EXPECT_THAT(error_of([&] { RunJournal(dir / ".journal.jsonl", "s").load(); }),
              ::testing::HasSubstr(".journal.jsonl: the run journal: cannot read file: a directory"));
}

TEST(ReportReader, IntegersAreTakenOnlyWithinTheirType) {
  using nlohmann::json;
  EXPECT_EQ(integer_of<std::uint64_t>(json::parse("18446744073709551615")), 18446744073709551615u);
  EXPECT_EQ(integer_of<int>(json::parse("-3")), -3);
  EXPECT_THROW(integer_of<std::uint64_t>(json::parse("-1")), std::out_of_range);
  EXPECT_THROW(integer_of<int>(json::parse("4294967312")), std::out_of_range);
  EXPECT_THROW(integer_of<std::int64_t>(json::parse("18446744073709551615")), std::out_of_range);
  EXPECT_THROW(integer_of<std::int64_t>(json::parse("1e300")), std::invalid_argument);
  EXPECT_THROW(integer_of<std::int64_t>(json::parse("2.5")), std::invalid_argument);
  EXPECT_THROW(integer_of<std::int64_t>(json::parse("\"7\"")), std::invalid_argument);
}

}  // namespace
}  // namespace edgetwin::validate
