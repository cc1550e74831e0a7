#include "calibrate/hardware/sysfs_file.hpp"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "calibrate/hardware/hardware_error.hpp"

namespace edgetwin::calibrate {

namespace {

std::string trim(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  std::size_t start = 0;
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  return text.substr(start);
}

std::int64_t parse_integer(std::string_view word, const std::filesystem::path& path) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (ec != std::errc{} || end != word.data() + word.size()) {
    throw HardwareError(fmt::format("{}: expected an integer, got \"{}\"", path.string(), word));
  }
  return value;
}

}  // namespace

std::optional<std::string> try_read_sysfs(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return trim(buffer.str());
}

std::string read_sysfs(const std::filesystem::path& path) {
  auto text = try_read_sysfs(path);
  if (!text) throw HardwareError(fmt::format("{}: cannot read: {}", path.string(), std::strerror(errno)));
  return *text;
}

std::int64_t read_sysfs_number(const std::filesystem::path& path) { return parse_integer(read_sysfs(path), path); }

std::vector<std::int64_t> read_sysfs_numbers(const std::filesystem::path& path) {
  std::istringstream words(read_sysfs(path));
  std::vector<std::int64_t> out;
  for (std::string word; words >> word;) out.push_back(parse_integer(word, path));
  return out;
}

void write_sysfs(const std::filesystem::path& path, const std::string& value) {
  // O_TRUNC is ignored by sysfs and makes a fake tree's regular file hold exactly the value.
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) throw HardwareError(fmt::format("{}: cannot open for writing: {}", path.string(), std::strerror(errno)));
  const ssize_t n = ::write(fd, value.data(), value.size());
  const int error = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(value.size())) {
    throw HardwareError(fmt::format("{}: writing \"{}\" failed: {}", path.string(), value,
                                    n < 0 ? std::strerror(error) : "short write"));
  }
}

bool sysfs_writable(const std::filesystem::path& path) {
  // Opening without O_TRUNC changes nothing, in sysfs or in a regular file.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

}  // namespace edgetwin::calibrate
