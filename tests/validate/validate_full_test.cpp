// The full validation grids on this machine (label slow: tens of minutes), as
// scripts/validate-host.sh runs them. Each test writes its dataset, calibrates once with
// edgetwin-calibrate's full plan for the host device file (measured storage and memory), and
// runs edgetwin-validate with the shipped grid, calibrating again in every round
// (--calibrate-each-round) and waiting for a quiet machine before each round (--max-load 1.5);
// then checks the report is complete and within the sanity bound. The reports are kept under
// EDGETWIN_VALIDATION_OUT (default: a temp directory).
#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/validate/validate_e2e_support.hpp"

namespace edgetwin::validate {
namespace {

using namespace testing;

std::filesystem::path keep_dir(const ScratchDir& scratch, const std::string& name) {
  const char* keep = std::getenv("EDGETWIN_VALIDATION_OUT");
  return keep ? std::filesystem::path(keep) / name : scratch / name;
}

void full_validation(const std::string& workload, const std::string& format, int samples, int image_size,
                     const std::string& model_options, const std::string& calibrate_extra, int padding_bytes) {
  ScratchDir dir;
  make_dataset(format, samples, image_size, dir / "data");
  if (padding_bytes > 0) {  // the balloon needs a dataset large next to the RAM it may safely leave
    run_or_fail(validate_bin() + " pad-jpeg-metadata --dataset " + quoted(dir / "data") + " --bytes " +
                std::to_string(padding_bytes));
  }
  const std::string model = model_options.empty() ? "" : " --model " + quoted(dir / "grey-lenet5.pt");
  if (!model.empty()) run_or_fail(validate_bin() + " export-grey-lenet --out " + quoted(dir / "grey-lenet5.pt"));
  run_or_fail("find " + quoted(dir / "data") + " -type f -exec cat {} + >/dev/null");  // calibrate expects a warm cache
  run_or_fail(calibrate_bin() + " run --workload " + workload + " --dataset " + quoted(dir / "data") + model +
              calibrate_extra + " --device-name host-x86-2core --write-device --device-out " + quoted(dir / "host.toml") +
              " --quiet --out " + quoted(dir / "profile-before.toml"));
  const auto out = keep_dir(dir, "validation-" + workload);
  const auto r = run_command(validate_bin() + " --device " + quoted(dir / "host.toml") + " --workload " + workload +
                             " --calibrate-each-round --dataset " + quoted(dir / "data") + model + " --out " +
                             quoted(out) + " --max-load 1.5 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto report = nlohmann::json::parse(read_text(out / "report.json"));
  const std::size_t configs = report.at("configs").size();
  expect_complete_report(out, configs, report.at("session").at("epochs"), report.at("session").at("repeats"));
  EXPECT_TRUE(report.at("sanity").at("passed").get<bool>()) << report.at("sanity").dump(2);
}

TEST(ValidateFull, LenetMnistInRam) { full_validation("lenet-mnist", "mnist", 60000, 0, "", "", 0); }

TEST(ValidateFull, LenetJpegFolderFromStorage) {
  full_validation("lenet-jpeg-folder", "jpeg-folder", 20000, 128, "grey", " --crop-size 28", 65536);
}

}  // namespace
}  // namespace edgetwin::validate
