#include "calibrate/datasets/dataset_error.hpp"

#include <fmt/format.h>

namespace edgetwin::calibrate {

namespace {
std::string compose(const std::filesystem::path& file, std::optional<std::uint64_t> offset,
                    const std::string& message) {
  if (offset) return fmt::format("{}: byte {}: {}", file.string(), *offset, message);
  return fmt::format("{}: {}", file.string(), message);
}
}  // namespace

DatasetError::DatasetError(std::filesystem::path file, std::optional<std::uint64_t> offset,
                           const std::string& message)
    : std::runtime_error(compose(file, offset, message)), file_(std::move(file)), offset_(offset) {}

}  // namespace edgetwin::calibrate
