#include "sim/app/measured_run_reader.hpp"

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/config/config_error.hpp"
#include "sim/config/json_integer.hpp"

namespace edgetwin {
namespace {

ConfigError file_error(const std::filesystem::path& file, const std::string& key, const std::string& message) {
  return ConfigError({Diagnostic{file.string(), 0, 0, key, message}});
}

double positive(const nlohmann::json& epoch, const char* key, const std::filesystem::path& file, std::size_t i) {
  const std::string where = fmt::format("epochs[{}].{}", i, key);
  if (!epoch.contains(key) || !epoch.at(key).is_number())
    throw file_error(file, where, "missing; expected a positive number");
  const double value = epoch.at(key).get<double>();
  if (!(value > 0)) throw file_error(file, where, fmt::format("expected a positive number, got {}", value));
  return value;
}

// A count as a JSON integer: a float past int64 cast to one would be undefined.
std::int64_t positive_count(const nlohmann::json& epoch, const char* key, const std::filesystem::path& file, std::size_t i) {
  const std::string where = fmt::format("epochs[{}].{}", i, key);
  if (!epoch.contains(key)) throw file_error(file, where, "missing; expected a positive integer");
  std::int64_t value = 0;
  try {
    value = integer_of<std::int64_t>(epoch.at(key));
  } catch (const std::logic_error& e) {
    throw file_error(file, where, fmt::format("expected a positive integer: {}", e.what()));
  }
  if (value < 1) throw file_error(file, where, fmt::format("expected a positive integer, got {}", value));
  return value;
}

}  // namespace

std::vector<EpochSample> read_measured_epochs(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw file_error(file, "--measured", "cannot open the file");
  nlohmann::json report;
  try {
    report = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw file_error(file, "--measured", std::string("not JSON (edgetwin-calibrate measure --json writes it): ") + e.what());
  }
  if (!report.contains("epochs") || !report.at("epochs").is_array() || report.at("epochs").empty())
    throw file_error(file, "epochs", "expected a non-empty list of epochs, as edgetwin-calibrate measure --json writes");
  std::vector<EpochSample> epochs;
  for (std::size_t i = 0; i < report.at("epochs").size(); ++i) {
    const auto& e = report.at("epochs").at(i);
    if (e.contains("epoch") && e.at("epoch").is_number_integer() && e.at("epoch").get<std::int64_t>() != static_cast<std::int64_t>(i))
      throw file_error(file, fmt::format("epochs[{}].epoch", i), fmt::format("expected {} (epochs in order from 0)", i));
    EpochSample s;
    s.e2e_s = positive(e, "e2e_s", file, i);
    s.batches = positive_count(e, "batches", file, i);
    s.has_energy = e.contains("energy_j") && e.at("energy_j").is_number();
    if (s.has_energy) s.energy_j = e.at("energy_j").get<double>();
    epochs.push_back(s);
  }
  return epochs;
}

}  // namespace edgetwin
