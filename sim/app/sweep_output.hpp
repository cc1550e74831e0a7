// What a sweep writes of its results, shared by one sweep and a sweep of many devices and
// workloads (sim/app/catalogue_sweep.hpp): the trade-off points of the configurations that
// ran, their labels, the CSV and the JSON document.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/app/sweep_command.hpp"
#include "sim/app/sweep_runner.hpp"
#include "sim/report/pareto.hpp"

namespace edgetwin {

// The trade-off points of the results without error; valid gets their indices.
std::vector<TradeoffPoint> tradeoffs(const std::vector<SweepResult>& results, std::vector<std::size_t>& valid);
// Per result: on the Pareto front of the trade-off points (those of `valid`), false for the rest.
std::vector<bool> front_of_results(std::size_t results, const std::vector<std::size_t>& valid,
                                   const std::vector<TradeoffPoint>& tradeoff);
// "MODE (4 cores, CPU 1190.4, GPU 624.8, EMC 1331.2 MHz), w=2, b=16, nvme"
std::string label(const SweepPoint& point);
// One row per result; header_prefix and row_prefix go before the columns (columns of inputs).
std::string csv_text(const std::vector<SweepResult>& results, const std::vector<bool>& front_of_result,
                     const std::string& header_prefix = "", const std::string& row_prefix = "");
// The choice under the constraints (null without constraints): its index into results, whether
// it meets them, its label and margins.
nlohmann::json recommendation_json(const std::vector<SweepResult>& results, const std::vector<std::size_t>& valid,
                                   const std::optional<Choice>& choice);
nlohmann::json json_doc(const SweepOptions& options, const LoadedInputs& inputs,
                        const std::vector<SweepResult>& results, const std::vector<bool>& front_of_result,
                        const nlohmann::json& recommendation);

}  // namespace edgetwin
