// One device training one workload inside an engine: its platform, work model, page cache,
// energy meter and pipeline, built together. The unit that Simulation puts side by side
// and that a federated round drives from outside.
//
// Contract: build inside an EngineSession, before its run(), with a valid member (what
// Simulation::add_member checks); `zone_parent` is the zone the device's zone goes under
// (nullptr: the device's zone is the engine's root) and `instance` makes its host names
// unique when several devices share the engine. The page cache starts as RunConfig::cache
// says and persists across the pipeline's runs. The device must outlive the run; the
// observer and sampler must outlive the device.
#pragma once

#include <memory>
#include <string>

#include "sim/config/specs.hpp"
#include "sim/model/energy_meter.hpp"
#include "sim/model/page_cache.hpp"
#include "sim/model/pipeline.hpp"
#include "sim/model/platform.hpp"
#include "sim/model/pipeline_observer.hpp"
#include "sim/model/sampler.hpp"
#include "sim/model/work_model.hpp"

namespace simgrid::s4u {
class NetZone;
}  // namespace simgrid::s4u

namespace edgetwin {

class TrainingDevice {
 public:
  TrainingDevice(const DeviceSpec& device, const StorageSpec& storage, const WorkloadSpec& workload,
                 const RunConfig& run, double cache_capacity_bytes, Sampler& sampler, PipelineObserver& observer,
                 simgrid::s4u::NetZone* zone_parent = nullptr, const std::string& instance = "");
  TrainingDevice(const TrainingDevice&) = delete;
  TrainingDevice& operator=(const TrainingDevice&) = delete;

  Pipeline& pipeline() { return *pipeline_; }
  const Platform& platform() const { return platform_; }
  const PageCache* page_cache() const { return cache_.get(); }  // nullptr for in-RAM datasets

 private:
  Platform platform_;
  WorkModel work_;
  std::unique_ptr<EnergyMeter> energy_;
  std::unique_ptr<PageCache> cache_;
  std::unique_ptr<Pipeline> pipeline_;
};

}  // namespace edgetwin
