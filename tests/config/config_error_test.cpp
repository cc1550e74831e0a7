#include <gtest/gtest.h>

#include "sim/config/config_error.hpp"

namespace edgetwin {
namespace {

TEST(Diagnostic, FullLocationKeyAndMessage) {
  Diagnostic diagnostic{"devices/x.toml", 14, 9, "storage.nvme.read_bw_bytes_per_s",
                        "expected a positive number (bytes/s), got -3"};
  EXPECT_EQ(diagnostic.to_string(),
            "devices/x.toml:14:9: storage.nvme.read_bw_bytes_per_s: expected a positive number (bytes/s), got -3");
}

TEST(Diagnostic, LeavesOutWhatIsUnknown) {
  EXPECT_EQ((Diagnostic{"x.toml", 0, 0, "", "cannot open file: No such file or directory"}).to_string(),
            "x.toml: cannot open file: No such file or directory");
  EXPECT_EQ((Diagnostic{"x.toml", 3, 0, "cpu.cores", "bad"}).to_string(), "x.toml:3: cpu.cores: bad");
  EXPECT_EQ((Diagnostic{"", 0, 0, "--workers", "expected a non-negative integer, got -1"}).to_string(),
            "--workers: expected a non-negative integer, got -1");
  EXPECT_EQ((Diagnostic{"x.toml", 2, 5, "", "syntax error: oops"}).to_string(), "x.toml:2:5: syntax error: oops");
}

TEST(ConfigError, WhatHasOneLinePerDiagnostic) {
  ConfigError error({{"a.toml", 1, 2, "k", "first"}, {"", 0, 0, "--epochs", "second"}});
  EXPECT_STREQ(error.what(), "a.toml:1:2: k: first\n--epochs: second");
  ASSERT_EQ(error.diagnostics().size(), 2u);
  EXPECT_EQ(error.diagnostics()[1].key, "--epochs");
}

}  // namespace
}  // namespace edgetwin
