#include "calibrate/app/measured_report.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace edgetwin::calibrate {

namespace {

nlohmann::json slowdown_json(const HostSlowdown& s) {
  return {{"probes", s.probes}, {"slow_probes", s.slow_probes()}, {"median_ratio", s.median_ratio}};
}

nlohmann::json watch_json(const WatchedTraining& run) {
  nlohmann::json watch = nlohmann::json::object();
  if (run.other_processes_cores) watch["other_processes_cores"] = *run.other_processes_cores;
  if (run.host) {
    watch["host"] = {{"run", slowdown_json(run.host->run)},
                     {"warmup", slowdown_json(run.host->warmup)},
                     {"chance", run.host->chance},
                     {"slow", run.host->slow}};
  }
  return watch;
}

nlohmann::json run_json(const RunResult& r, const std::string& device, const std::string& workload) {
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
  return out;
}

}  // namespace

std::string measured_run_json(const WatchedTraining& run, const std::string& device, const std::string& workload) {
  nlohmann::json out = run_json(run.result, device, workload);
  const nlohmann::json watch = watch_json(run);
  if (!watch.empty()) out["watch"] = watch;
  if (!run.disturbed.empty()) out["disturbed"] = run.disturbed;
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
