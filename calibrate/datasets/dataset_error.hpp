// The error every dataset reader and writer throws: names the file and, where the problem is
// inside it, the byte offset.
//
// Contract: what() reads "<file>: byte <offset>: <message>", or "<file>: <message>" when the
// problem is not at a position (cannot open, missing file). The app turns it into exit code 2.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

namespace edgetwin::calibrate {

class DatasetError : public std::runtime_error {
 public:
  DatasetError(std::filesystem::path file, std::optional<std::uint64_t> offset, const std::string& message);

  const std::filesystem::path& file() const { return file_; }
  std::optional<std::uint64_t> offset() const { return offset_; }

 private:
  std::filesystem::path file_;
  std::optional<std::uint64_t> offset_;
};

}  // namespace edgetwin::calibrate
