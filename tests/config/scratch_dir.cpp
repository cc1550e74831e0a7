#include "tests/config/scratch_dir.hpp"

#include <fstream>

#include <unistd.h>

namespace edgetwin::test {

ScratchDir::ScratchDir() {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = test ? std::string(test->test_suite_name()) + "." + test->name() : "no-test";
  dir_ = std::filesystem::temp_directory_path() /
         ("edgetwin-config-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_);
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::filesystem::path ScratchDir::write(const std::string& name, const std::string& text) const {
  std::filesystem::path file = dir_ / name;
  std::ofstream(file, std::ios::binary) << text;
  return file;
}

std::string replaced(const std::string& text, std::string_view from, std::string_view to) {
  std::size_t at = text.find(from);
  if (at == std::string::npos || text.find(from, at + 1) != std::string::npos) {
    ADD_FAILURE() << "test setup: \"" << from << "\" must occur exactly once";
    return text;
  }
  return std::string(text).replace(at, from.size(), to);
}

}  // namespace edgetwin::test
