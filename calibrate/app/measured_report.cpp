#include "calibrate/app/measured_report.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace edgetwin::calibrate {

std::string measured_run_json(const RunResult& r, const std::string& device, const std::string& workload,
                              const std::vector<std::string>& disturbed) {
  nlohmann::json out;
  out["device"] = device;
  out["workload"] = workload;
  out["measured"] = true;
  out["config"] = {
      {"workers", r.spec.loader.workers},     {"batch_size", r.spec.loader.batch_size}, {"prefetch_factor", r.spec.loader.prefetch_factor},
      {"epochs", r.spec.epochs},       {"samples", r.dataset_samples},    {"intra_op_threads", r.intra_op_threads},
      {"torch_device", r.device_used}, {"model", r.model_name},           {"libtorch_version", r.libtorch_version}};
  out["epochs"] = nlohmann::json::array();
  for (const auto& e : r.epochs) {
    out["epochs"].push_back({{"epoch", e.epoch},
                             {"e2e_s", e.e2e_s},
                             {"stall_s", e.stall_s},
                             {"compute_s", e.compute_s},
                             {"fetch_s", e.fetch_s},
                             {"preprocess_s", e.preprocess_s + e.collate_s},
                             {"h2d_s", e.h2d_s},
                             {"worker_startup_s", e.worker_startup_s},
                             {"batches", e.batches},
                             {"samples", e.samples},
                             {"mean_loss", e.mean_loss}});
  }
  if (!disturbed.empty()) out["disturbed"] = disturbed;
  return out.dump(2);
}

std::string measured_run_text(const RunResult& r) {
  std::string out;
  for (const auto& e : r.epochs) {
    out += fmt::format("epoch {}: e2e {:.3f} s, stall {:.3f} s, compute {:.3f} s, {} batches, mean loss {:.4f}\n",
                       e.epoch, e.e2e_s, e.stall_s, e.compute_s, e.batches, e.mean_loss);
  }
  return out;
}

}  // namespace edgetwin::calibrate
