// run_in_child: what the child produces comes back byte for byte, its exception comes back as
// a ChildProcessError with the message, a crash is an error, and the packing round-trips.
#include <gtest/gtest.h>

#include <csignal>

#include "sim/app/child_process.hpp"

namespace edgetwin::test {
namespace {

struct Record {
  double a;
  int b;
};

TEST(ChildProcess, ResultComesBackByteForByte) {
  std::string big(200'000, 'x');  // larger than a pipe's buffer: the parent must read while the child writes
  big[123'456] = 'y';
  EXPECT_EQ(run_in_child([&big] { return big; }), big);
  EXPECT_EQ(run_in_child([] { return std::string(); }), "");
}

TEST(ChildProcess, ChildsExceptionBecomesAnErrorWithItsMessage) {
  try {
    (void)run_in_child([]() -> std::string { throw std::runtime_error("no engine today"); });
    FAIL() << "expected ChildProcessError";
  } catch (const ChildProcessError& e) {
    EXPECT_STREQ(e.what(), "no engine today");
  }
}

TEST(ChildProcess, CrashedChildIsAnError) {
  EXPECT_THROW((void)run_in_child([]() -> std::string {
                 std::raise(SIGKILL);
                 return "unreachable";
               }),
               ChildProcessError);
}

TEST(ChildProcess, RecordsAndTextRoundTripInOrder) {
  std::string bytes;
  append_records(bytes, std::vector<Record>{{1.5, 2}, {-3.25, 7}});
  append_text(bytes, "hello");
  append_records(bytes, std::vector<Record>{});
  ChildBytesReader reader(bytes);
  const auto records = reader.records<Record>();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].a, -3.25);
  EXPECT_EQ(records[1].b, 7);
  EXPECT_EQ(reader.text(), "hello");
  EXPECT_TRUE(reader.records<Record>().empty());
  EXPECT_THROW(reader.text(), ChildProcessError);  // nothing left
}

}  // namespace
}  // namespace edgetwin::test
