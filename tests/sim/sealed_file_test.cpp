// Sealed files (sim/app/sealed_file.hpp): what is sealed unseals to the same identity and body;
// every flipped bit at every position, every cut, bytes added, another kind, another format
// version and a body moved under another header are refused with a message naming the file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <string>

#include "sim/app/sealed_file.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/input_file.hpp"
#include "tests/support/test_files.hpp"

namespace edgetwin::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test_support::TempDir;
using test_support::write_text;

constexpr std::string_view kKind = "test record";
const fs::path kFile = "dir/part.sealed";

// A body with every byte value, as shards carry raw doubles.
std::string binary_body() {
  std::string body;
  for (int i = 0; i < 256; i += 3) body += static_cast<char>(i);
  return body;
}

// The message unseal_bytes refuses the bytes with; "" when it accepts them.
std::string refusal(std::string_view bytes, std::string_view kind = kKind) {
  try {
    unseal_bytes(kFile, bytes, kind);
    return "";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.diagnostics().size(), 1u);
    EXPECT_EQ(e.diagnostics().front().file, kFile.string());
    return e.diagnostics().front().message;
  }
}

TEST(SealedFile, WhatIsSealedUnsealsToTheSameIdentityAndBodyBehindAReadableHeader) {
  const std::string identity = R"({"run":"sweep --epochs 2"})";
  const std::string sealed = seal_bytes(kKind, identity, binary_body());
  EXPECT_THAT(sealed, ::testing::StartsWith("edgetwin sealed file 1: test record; identity 26 bytes; body 86 bytes; xxh3 "));
  // Line 1 the header, line 2 the identity: `head -2` shows what the file is.
  EXPECT_EQ(sealed.substr(sealed.find('\n') + 1, identity.size() + 1), identity + "\n");
  const Unsealed back = unseal_bytes(kFile, sealed, kKind);
  EXPECT_EQ(back.identity, identity);
  EXPECT_EQ(back.body, binary_body());
  const Unsealed empty = unseal_bytes(kFile, seal_bytes(kKind, "", ""), kKind);
  EXPECT_EQ(empty.identity, "");
  EXPECT_EQ(empty.body, "");
}

// The property the format exists for: no single flipped bit anywhere passes, header included.
TEST(SealedFile, EveryFlippedBitAtEveryPositionIsRefused) {
  const std::string sealed = seal_bytes(kKind, R"({"shard":"2/3"})", binary_body());
  std::map<std::string, int> by_reason;
  int accepted = 0;
  for (std::size_t at = 0; at < sealed.size(); ++at) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = sealed;
      damaged[at] = static_cast<char>(damaged[at] ^ (1 << bit));
      const std::string why = refusal(damaged);
      if (why.empty()) ++accepted;
      else ++by_reason[why.substr(0, why.find_first_of("(:"))];
    }
  }
  EXPECT_EQ(accepted, 0) << "of " << sealed.size() * 8 << " flips";
  // Flips in the body or the identity are the checksum's to find.
  EXPECT_GE(by_reason["checksum mismatch"], static_cast<int>(8 * binary_body().size()));
}

TEST(SealedFile, EveryCutIsRefused) {
  const std::string sealed = seal_bytes(kKind, "id", binary_body());
  for (std::size_t size = 0; size < sealed.size(); ++size) {
    const std::string why = refusal(sealed.substr(0, size));
    EXPECT_FALSE(why.empty()) << size;
    const bool header_whole = size > sealed.find('\n');
    if (header_whole) EXPECT_THAT(why, HasSubstr("cut short: its header gives")) << size;
    else EXPECT_THAT(why, HasSubstr("not a sealed edgetwin file")) << size;
  }
}

TEST(SealedFile, BytesAfterItsEndAreRefused) {
  const std::string sealed = seal_bytes(kKind, "id", "body");
  EXPECT_THAT(refusal(sealed + "\n"), HasSubstr("1 bytes after its end"));
  EXPECT_THAT(refusal(sealed + sealed), HasSubstr("bytes after its end"));
}

TEST(SealedFile, AnotherKindOrFormatVersionIsNamed) {
  const std::string sealed = seal_bytes("checkpoint", "id", "body");
  EXPECT_EQ(refusal(sealed, "shard"), "a sealed \"checkpoint\" file, not a \"shard\" file");
  std::string newer = sealed;
  newer.replace(newer.find("file 1:"), 7, "file 2:");
  EXPECT_THAT(refusal(newer, "checkpoint"), HasSubstr("a sealed file of format \"2\"; this edgetwin reads format 1"));
  EXPECT_THAT(refusal("{\"format\":\"edgetwin shard 1\"}\nab"), HasSubstr("not a sealed edgetwin file (expected a first "
                                                                          "line \"edgetwin sealed file 1: test record;"));
}

TEST(SealedFile, ABodyUnderAnotherFilesHeaderIsRefused) {
  const std::string a = seal_bytes(kKind, "run A", "figures of A");
  const std::string b = seal_bytes(kKind, "run B", "figures of B");
  const std::size_t body_at = a.size() - std::string("figures of A").size();
  EXPECT_THAT(refusal(a.substr(0, body_at) + b.substr(body_at)), HasSubstr("checksum mismatch"));
  // The same body under a header of another run: the identity is checksummed too.
  std::string other_run = a;
  other_run.replace(other_run.find("run A"), 5, "run B");
  EXPECT_THAT(refusal(other_run), HasSubstr("checksum mismatch"));
}

TEST(SealedFile, HeaderNumbersAreReadOnlyAsWritten) {
  const std::string sealed = seal_bytes(kKind, "id", "body");
  std::string leading_zero = sealed;
  leading_zero.replace(leading_zero.find("identity 2 "), 11, "identity 02 ");
  EXPECT_THAT(refusal(leading_zero), HasSubstr("damaged header"));
  std::string upper = sealed;
  const auto digits = upper.find("xxh3 ") + 5;
  for (std::size_t i = digits; i < digits + 16; ++i) upper[i] = static_cast<char>(std::toupper(upper[i]));
  if (upper != sealed) {
    EXPECT_THAT(refusal(upper), HasSubstr("damaged header"));
  }
  std::string huge = sealed;
  huge.replace(huge.find("body 4 "), 7, "body 18446744073709551615 ");
  EXPECT_THAT(refusal(huge), HasSubstr("damaged header"));
}

TEST(SealedFile, AKindIsOnePrintableLineWithoutSemicolons) {
  EXPECT_THROW(seal_bytes("a;b", "", ""), std::invalid_argument);
  EXPECT_THROW(seal_bytes("a\nb", "", ""), std::invalid_argument);
  EXPECT_THROW(seal_bytes("", "", ""), std::invalid_argument);
}

TEST(SealedFile, AFileIsReadThroughTheInputReaderAndIsNoInputOfTheRun) {
  TempDir dir;
  write_text(dir / "ok.sealed", seal_bytes(kKind, "id", "body"));
  const std::uint64_t digest = inputs_digest();
  EXPECT_EQ(read_sealed_file(dir / "ok.sealed", kKind, 1024).body, "body");
  EXPECT_EQ(inputs_digest(), digest);
  const auto message = [&](const fs::path& file, std::size_t max_bytes) {
    try {
      read_sealed_file(file, kKind, max_bytes);
    } catch (const ConfigError& e) {
      return e.diagnostics().front().to_string();
    }
    return std::string("accepted");
  };
  EXPECT_THAT(message(dir / "ok.sealed", 16), HasSubstr("ok.sealed: cannot read file: larger than 16 bytes"));
  EXPECT_THAT(message(dir.path(), 1024), HasSubstr(": cannot read file: a directory"));
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  EXPECT_THAT(message(dir / "fifo", 1024), HasSubstr("fifo: cannot read file: a pipe"));
  EXPECT_THAT(message(dir / "missing", 1024), HasSubstr("missing: cannot open file: No such file or directory"));
}

}  // namespace
}  // namespace edgetwin::test
