#include "validate/calibration_overlap.hpp"

#include <sstream>

#include <fmt/format.h>

namespace edgetwin::validate {

namespace {

std::optional<int> parse_positive(const std::string& text) {
  try {
    std::size_t used = 0;
    const int value = std::stoi(text, &used);
    if (used == text.size() && value > 0) return value;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace

std::optional<int> batch_size_in_command(const std::string& command) {
  std::istringstream words(command);
  std::string word;
  const std::string option = "--batch-size";
  while (words >> word) {
    if (word == option) {
      std::string value;
      if (words >> value) return parse_positive(value);
      return std::nullopt;
    }
    if (word.rfind(option + "=", 0) == 0) return parse_positive(word.substr(option.size() + 1));
  }
  return std::nullopt;
}

CalibrationSettings calibration_settings(const std::string& profile_command, int workload_batch_size) {
  if (const auto from_command = batch_size_in_command(profile_command)) {
    return {*from_command, "--batch-size in the profile's command"};
  }
  return {workload_batch_size, "the workload's loader.batch_size (the profile's command gives no --batch-size)"};
}

std::vector<Overlap> find_overlaps(const GridSpec& grid, const CalibrationSettings& calibration, int host_cores) {
  std::vector<Overlap> overlaps;
  for (const GridConfig& c : grid.configs) {
    if (c.loader.workers == 0 && c.loader.batch_size == calibration.batch_size && (c.cores == 0 || c.cores == host_cores) && !c.has_balloon()) {
      overlaps.push_back({c.name, fmt::format("workers 0, batch size {} ({}), all CPUs, no balloon: the configuration "
                                              "calibrate fitted the loader costs on",
                                              calibration.batch_size, calibration.basis)});
    }
  }
  return overlaps;
}

}  // namespace edgetwin::validate
