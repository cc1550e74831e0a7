// A fleet made concrete: every device of every group, with its dataset size, its device file,
// the workload's costs on it, its network class, its availability and the configurations the
// planner may choose for it.
//
// Contract: instantiate_fleet resolves each group's device (shipped name or path), the
// workload (and the group's profile) as `edgetwin predict` would, its storage, power modes,
// workers and batch sizes, and its availability trace; every problem is reported at the fleet
// key that named it (file:line:column) and thrown as one ConfigError, as are a group of more
// configurations than a sweep may have, a fleet of more device-configuration pairs than
// limits::plan_pairs, and a plan that would simulate more batches than
// limits::simulated_batches (sim/plan/plan_bounds.hpp). Dataset sizes are drawn from the group's distribution with the fleet's
// seed (identical on every platform), log-normal draws clamped to 1..1e8 samples. Devices
// are numbered in group order; a device's name is "<group>/<index in group>".
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/app/member_chunks.hpp"
#include "sim/app/run_setup.hpp"
#include "sim/config/availability_trace.hpp"
#include "sim/config/fleet_specs.hpp"
#include "sim/report/round_energy.hpp"

namespace edgetwin {

// One configuration a device may train with.
struct Candidate {
  std::string mode;  // named mode, "custom" or "max"
  OperatingPoint point;
  int workers = 0;
  int batch_size = 0;
};

struct GroupInstance {
  const DeviceGroupSpec* spec = nullptr;
  LoadedInputs inputs;  // the device as loaded (all its modes), the workload with its costs there
  std::string storage;  // the medium the dataset is read from
  NetworkSpec network;
  std::vector<Candidate> candidates;
  std::shared_ptr<const AvailabilityTrace> trace;  // availability = trace
  DevicePower power;
};

struct FleetDevice {
  std::size_t group = 0;
  std::int64_t index_in_group = 0;
  std::int64_t samples = 0;
  std::string name;
};

struct FleetInstance {
  FleetSpec spec;
  std::vector<GroupInstance> groups;
  std::vector<FleetDevice> devices;
  double download_bytes = 0;
  double upload_bytes = 0;
  std::int64_t parameters = 0;
};

FleetInstance instantiate_fleet(FleetSpec spec);

// The run a device trains with under a candidate: its operating point, its dataset size,
// the candidate's loader settings, cold cache, the round's local epochs or steps.
MemberRun candidate_run(const FleetInstance& fleet, const FleetDevice& device, const Candidate& candidate);

// Deterministic dataset sizes of a group (exposed for tests).
std::vector<std::int64_t> draw_sample_counts(const SampleDistribution& distribution, int count, std::uint64_t seed);

}  // namespace edgetwin
