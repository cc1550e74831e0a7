#include "model/simulation.hpp"

#include <memory>
#include <stdexcept>

#include <fmt/format.h>
#include <simgrid/s4u.hpp>

#include "config/config_error.hpp"
#include "model/energy_meter.hpp"
#include "model/page_cache.hpp"
#include "model/pipeline.hpp"
#include "model/platform.hpp"
#include "model/sampler.hpp"
#include "model/work_model.hpp"

namespace edgetwin {
namespace {

// Forwards each event to every observer, in the order they were added.
class ObserverFanout : public PipelineObserver {
 public:
  explicit ObserverFanout(const std::vector<PipelineObserver*>& observers) : observers_(observers) {}
  void on_epoch_start(int epoch, double time_s) override {
    for (auto* o : observers_) o->on_epoch_start(epoch, time_s);
  }
  void on_batch_done(const BatchRecord& batch) override {
    for (auto* o : observers_) o->on_batch_done(batch);
  }
  void on_epoch_end(const EpochRecord& epoch) override {
    for (auto* o : observers_) o->on_epoch_end(epoch);
  }

 private:
  const std::vector<PipelineObserver*>& observers_;
};

bool engine_created = false;

}  // namespace

Simulation::Simulation(DeviceSpec device, WorkloadSpec workload, RunConfig run)
    : device_(std::move(device)), workload_(std::move(workload)), run_(std::move(run)) {
  workload_.loader = run_.loader;
  storage_ = device_.find_storage(run_.storage.empty() ? device_.default_storage : run_.storage);
  if (storage_ == nullptr) throw ConfigError({Diagnostic{"", 0, 0, "--storage", fmt::format("unknown storage \"{}\"", run_.storage)}});
  cache_capacity_bytes_ = edgetwin::page_cache_capacity_bytes(device_, workload_, run_.loader);
  check_model_inputs();
}

void Simulation::check_model_inputs() const {
  std::vector<Diagnostic> problems;
  if (cache_capacity_bytes_ <= 0) {
    problems.push_back({workload_.source_file, 0, 0, "footprint",
                        fmt::format("training needs more RAM than {} has: {:.0f} bytes short "
                                    "(RAM minus OS base minus process, model, optimizer, activations x batch "
                                    "size, workers x worker_bytes); the run would fail with out-of-memory",
                                    device_.name, -cache_capacity_bytes_)});
  }
  const bool gpu_costs = workload_.costs.reference_gpu_freq_hz > 0;
  if (device_.gpu.has_value() != gpu_costs) {
    problems.push_back({workload_.source_file, 0, 0, "costs.reference_gpu_freq_hz",
                        fmt::format("costs taken on a {} device (\"{}\") cannot describe {}, which {}",
                                    gpu_costs ? "GPU" : "CPU-only", workload_.costs.device, device_.name,
                                    device_.gpu ? "has a GPU" : "has no GPU")});
  }
  if (!problems.empty()) throw ConfigError(std::move(problems));
}

void Simulation::run() {
  if (engine_created) throw std::logic_error("SimGrid allows one simulation per process");
  engine_created = true;

  int argc = 2;
  char name[] = "edgetwin";
  char quiet[] = "--log=root.thres:critical";
  char* argv[] = {name, quiet, nullptr};
  simgrid::s4u::Engine engine(&argc, argv);
  if (device_.power) Platform::enable_energy_accounting();

  const Platform platform(device_, *storage_);
  std::unique_ptr<EnergyMeter> energy;
  if (platform.has_energy()) energy = std::make_unique<EnergyMeter>(platform);
  const WorkModel work(device_, workload_, *storage_);
  std::unique_ptr<PageCache> cache;
  if (workload_.dataset.layout == DatasetLayout::file_per_sample) {
    cache = std::make_unique<PageCache>(workload_.dataset.samples, workload_.dataset.sample_bytes, cache_capacity_bytes_);
    if (run_.cache == CacheStart::warm) cache->fill_in_order();
  }
  Sampler sampler(workload_.dataset.samples, run_.loader.shuffle, run_.seed);
  ObserverFanout fanout(observers_);
  Pipeline pipeline(platform, work, workload_.dataset, run_.loader, cache.get(), sampler, fanout, run_.epochs,
                    energy.get());
  pipeline.start();
  engine.run();
}

}  // namespace edgetwin
