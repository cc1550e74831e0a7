#include "sim/app/sweep_output.hpp"

#include <fmt/format.h>

#include "sim/report/epoch_metrics.hpp"

namespace edgetwin {
namespace {

// The figures a sweep writes per configuration, in the metric table's order.
std::vector<const MetricSpec*> sweep_metrics() {
  std::vector<const MetricSpec*> out;
  for (const MetricSpec& m : epoch_metrics())
    if (!m.sweep_format.empty()) out.push_back(&m);
  return out;
}

}  // namespace

std::vector<TradeoffPoint> tradeoffs(const std::vector<SweepResult>& results, std::vector<std::size_t>& valid) {
  std::vector<TradeoffPoint> points;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (!results[i].error.empty()) continue;
    valid.push_back(i);
    const EpochStats& s = results[i].stats;
    points.push_back({s.e2e_s, s.energy_j, s.peak_power_w});
  }
  return points;
}

std::vector<bool> front_of_results(std::size_t results, const std::vector<std::size_t>& valid,
                                   const std::vector<TradeoffPoint>& tradeoff) {
  const auto front = pareto_front(tradeoff);
  std::vector<bool> out(results, false);
  for (std::size_t k = 0; k < valid.size(); ++k) out[valid[k]] = front[k];
  return out;
}

std::string label(const SweepPoint& p) {
  return fmt::format("{} ({} cores, CPU {:.1f}, GPU {:.1f}, EMC {:.1f} MHz), w={}, b={}, {}", p.mode, p.point.cores,
                     p.point.cpu_hz / 1e6, p.point.gpu_hz / 1e6, p.point.emc_hz / 1e6, p.workers, p.batch_size, p.storage);
}

std::string csv_text(const std::vector<SweepResult>& results, const std::vector<bool>& front_of_result,
                     const std::string& header_prefix, const std::string& row_prefix) {
  const auto metrics = sweep_metrics();
  std::string out = header_prefix + "mode,cores,cpu_mhz,gpu_mhz,emc_mhz,workers,batch_size,storage,";
  for (const MetricSpec* m : metrics) out += fmt::format("{},", m->name);
  out += "pareto,error\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    const auto& p = r.point;
    out += row_prefix;
    out += fmt::format("{},{},{:.1f},{:.2f},{:.1f},{},{},{},", p.mode, p.point.cores, p.point.cpu_hz / 1e6,
                       p.point.gpu_hz / 1e6, p.point.emc_hz / 1e6, p.workers, p.batch_size, p.storage);
    for (const MetricSpec* m : metrics)
      out += (r.error.empty() && has_value(*m, r.stats) ? format_value(*m, r.stats, m->sweep_format) : "") + ",";
    if (r.error.empty())
      out += fmt::format("{},\n", front_of_result[i] ? 1 : 0);
    else
      out += fmt::format("0,\"{}\"\n", r.error.substr(0, r.error.find('\n')));
  }
  return out;
}

nlohmann::json recommendation_json(const std::vector<SweepResult>& results, const std::vector<std::size_t>& valid,
                                   const std::optional<Choice>& choice) {
  if (!choice) return nullptr;
  const std::size_t index = valid[choice->index];
  return {{"index", index}, {"feasible", choice->feasible}, {"label", label(results[index].point)},
          {"margins", choice->margins}};
}

nlohmann::json json_doc(const SweepOptions& o, const LoadedInputs& in, const std::vector<SweepResult>& results,
                        const std::vector<bool>& front_of_result, const nlohmann::json& recommendation) {
  nlohmann::json points = nlohmann::json::array();
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    nlohmann::json j = {{"mode", r.point.mode},          {"cores", r.point.point.cores},
                        {"cpu_freq_hz", r.point.point.cpu_hz}, {"gpu_freq_hz", r.point.point.gpu_hz},
                        {"emc_freq_hz", r.point.point.emc_hz}, {"workers", r.point.workers},
                        {"batch_size", r.point.batch_size},  {"storage", r.point.storage}};
    if (!r.error.empty()) {
      j["error"] = r.error;
    } else {
      for (const MetricSpec* m : sweep_metrics())
        j[m->name] = has_value(*m, r.stats) ? nlohmann::json(r.stats.*m->field) : nlohmann::json(nullptr);
      j["pareto"] = front_of_result[i];
    }
    points.push_back(j);
  }
  return {{"device", in.device.name},
          {"workload", in.workload.name},
          {"estimated", in.workload.costs.provenance.is_estimate()},
          {"window_batches", o.settings.window_batches},
          {"epochs", o.base.epochs},
          {"points", points},
          {"recommendation", recommendation}};
}

}  // namespace edgetwin
