#include "sim/model/training_device.hpp"

namespace edgetwin {

TrainingDevice::TrainingDevice(const DeviceSpec& device, const StorageSpec& storage, const WorkloadSpec& workload,
                               const RunConfig& run, double cache_capacity_bytes, Sampler& sampler,
                               PipelineObserver& observer, simgrid::s4u::NetZone* zone_parent,
                               const std::string& instance)
    : platform_(device, storage, zone_parent, instance, run.pstate_per_step, run.accelerators,
                workload.dataset.layout != DatasetLayout::in_ram),
      work_(device, workload, storage) {
  if (platform_.has_energy()) energy_ = std::make_unique<EnergyMeter>(platform_, run.dvfs);
  if (workload.dataset.layout == DatasetLayout::file_per_sample) {
    cache_ = std::make_unique<PageCache>(workload.dataset.samples, workload.dataset.sample_bytes, cache_capacity_bytes,
                                         device.memory.page_cache_refault_activation ? Refaults::activate
                                                                                     : Refaults::ignore);
    if (run.cache == CacheStart::warm) cache_->fill_in_order();
  }
  pipeline_ = std::make_unique<Pipeline>(platform_, work_, workload.dataset, run.loader, cache_.get(), sampler,
                                         observer, energy_.get(), run.window_batches, run.dvfs, run.steady_window,
                                         run.accelerators, run.closed_forms);
}

}  // namespace edgetwin
