// Fuzz target: a fleet file of the federated planner (docs/reference/schema.md, "Fleet files"), with the
// network class file and the availability trace it may name. One input holds the fleet file,
// then, after a line "%%", a network class file (networks/fuzz.toml beside the fleet; the
// shipped wifi, lte and ethernet are there too), then, after another "%%", an availability
// trace (trace.txt). The fleet is loaded and instantiated as plan-round does, before anything
// is simulated: refused inputs give located one-line problems; an accepted fleet holds the
// schema's ranges and the bounds on its size (limits::fleet_devices, limits::plan_pairs), draws
// dataset sizes a simulation can take, and the first device of each group trains with its first
// configuration without anything degenerate reaching the engine.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/fleet_loader.hpp"
#include "sim/config/input_limits.hpp"
#include "sim/plan/fleet_instance.hpp"

namespace {

using namespace edgetwin;
namespace fs = std::filesystem;

// The shipped network classes beside the fleet, once.
void copy_shipped_networks() {
  static const bool copied = [] {
    const fs::path dir = fuzz::scratch_dir() / "networks";
    fs::create_directories(dir);
    for (const auto& entry : fs::directory_iterator(fuzz::shipped_file("fleets/networks")))
      fs::copy_file(entry.path(), dir / entry.path().filename(), fs::copy_options::overwrite_existing);
    return true;
  }();
  (void)copied;
}

bool finite_in(double x, double lo, double hi) { return std::isfinite(x) && x >= lo && x <= hi; }

void check_network(const NetworkSpec& n) {
  FUZZ_CHECK(finite_in(n.uplink_bytes_per_s, 1e3, 1e12) && finite_in(n.downlink_bytes_per_s, 1e3, 1e12),
             "a network rate out of range");
  FUZZ_CHECK(finite_in(n.latency_s, 0, 1e8), "a network latency out of range");
  FUZZ_CHECK(finite_in(n.radio_tx_power_w, 0, 1e4) && finite_in(n.radio_rx_power_w, 0, 1e4),
             "a radio power out of range");
}

void check_spec(const FleetSpec& f) {
  const RoundSpec& r = f.round;
  FUZZ_CHECK(!f.groups.empty(), "an accepted fleet without a group");
  FUZZ_CHECK(fleet_size(f) >= 1 && fleet_size(f) <= limits::fleet_devices, "a fleet size past its bound");
  FUZZ_CHECK(r.clients_per_round >= 1 && r.clients_per_round <= fleet_size(f), "K outside 1..fleet size");
  FUZZ_CHECK(finite_in(r.over_commitment, 1, 100), "an over-commitment out of range");
  FUZZ_CHECK(finite_in(r.deadline_s, 1e-12, 1e8), "a deadline out of range");
  FUZZ_CHECK(r.rounds >= 1 && r.rounds <= 100'000, "rounds out of range");
  FUZZ_CHECK((r.local_steps == 0 && r.local_epochs >= 1 && r.local_epochs <= 1000) ||
                 (r.local_steps >= 1 && r.local_steps <= 1'000'000'000),
             "local training out of range");
  FUZZ_CHECK(finite_in(r.suspend_min_gap_s, 0, 1e8), "a suspend gap out of range");
  for (const auto* bytes : {&r.download_bytes, &r.upload_bytes})
    if (*bytes) FUZZ_CHECK(finite_in(**bytes, 1, 1e15), "model bytes out of range");
  const ServerSpec& s = f.server;
  FUZZ_CHECK(finite_in(s.ingress_bytes_per_s, 1e3, 1e12) && finite_in(s.egress_bytes_per_s, 1e3, 1e12),
             "a server rate out of range");
  FUZZ_CHECK(finite_in(s.latency_s, 0, 1e8) && finite_in(s.aggregation_base_s, 0, 1e8) &&
                 finite_in(s.aggregation_s_per_update, 0, 1e8),
             "a server time out of range");
  for (const DeviceGroupSpec& g : f.groups) {
    FUZZ_CHECK(g.count >= 1 && g.count <= 10'000'000, "a group's count out of range");
    FUZZ_CHECK(f.networks.contains(g.network), "a group whose network class was not loaded");
    const SampleDistribution& d = g.samples;
    switch (d.kind) {
      case SampleDistribution::Kind::fixed: FUZZ_CHECK(d.samples >= 1 && d.samples <= 100'000'000, "samples"); break;
      case SampleDistribution::Kind::uniform:
        FUZZ_CHECK(d.min >= 1 && d.min <= d.max && d.max <= 100'000'000, "a uniform spread out of range");
        break;
      case SampleDistribution::Kind::lognormal:
        FUZZ_CHECK(finite_in(d.median, 1, 1e8) && finite_in(d.sigma, 0, 10), "a log-normal spread out of range");
        break;
    }
    for (const int w : g.workers) FUZZ_CHECK(w >= 0 && w <= 1024, "a worker count out of range");
    for (const int b : g.batch_sizes) FUZZ_CHECK(b >= 1 && b <= 100'000'000, "a batch size out of range");
    for (const auto& budget : {g.energy_budget_j_per_round, g.energy_budget_j_per_day})
      if (budget) FUZZ_CHECK(finite_in(*budget, 0, 1e12), "an energy budget out of range");
    if (g.availability.kind == AvailabilitySpec::Kind::probability)
      FUZZ_CHECK(g.availability.probability > 0 && g.availability.probability <= 1, "a probability out of range");
  }
  for (const auto& [name, n] : f.networks) check_network(n);
}

void check_instance(const FleetInstance& fleet) {
  FUZZ_CHECK(static_cast<std::int64_t>(fleet.devices.size()) == fleet_size(fleet.spec), "devices lost or made up");
  FUZZ_CHECK(finite_in(fleet.download_bytes, 0, 1e15) && finite_in(fleet.upload_bytes, 0, 1e15),
             "model transfers out of range");
  double pairs = 0;
  for (const GroupInstance& g : fleet.groups) {
    FUZZ_CHECK(!g.candidates.empty(), "a group with nothing to choose");
    pairs += static_cast<double>(g.spec->count) * static_cast<double>(g.candidates.size());
    if (g.spec->availability.kind == AvailabilitySpec::Kind::trace)
      FUZZ_CHECK(g.trace && static_cast<int>(g.trace->devices()) == g.spec->count, "a trace of other devices");
    check_network(g.network);
  }
  FUZZ_CHECK(pairs <= static_cast<double>(limits::plan_pairs), "more device-configuration pairs than the bound");
  for (const FleetDevice& d : fleet.devices)
    FUZZ_CHECK(d.samples >= 1 && d.samples <= 100'000'000, "a drawn dataset size a simulation cannot take");
  // The first device of each group (the first few groups) with its first configuration.
  std::size_t checked = 0;
  for (std::size_t i = 0; i < fleet.devices.size() && checked < 4; ++i) {
    const FleetDevice& d = fleet.devices[i];
    if (d.index_in_group != 0) continue;
    const MemberRun m = candidate_run(fleet, d, fleet.groups[d.group].candidates.front());
    RunConfig run = m.run;
    run.window_batches = 200;
    fuzz::check_member(m.device, m.workload, run);
    ++checked;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  copy_shipped_networks();
  const std::vector<std::string> parts = fuzz::parts_of(fuzz::text_of(data, size), 3);
  const fs::path file = fuzz::scratch_dir() / "fleet.toml";
  fuzz::write_part("fleet.toml", parts[0]);
  const fs::path network = fuzz::scratch_dir() / "networks" / "fuzz.toml";
  if (parts.size() > 1) fuzz::write_part("networks/fuzz.toml", parts[1]);
  else fs::remove(network);
  const fs::path trace = fuzz::scratch_dir() / "trace.txt";
  if (parts.size() > 2) fuzz::write_part("trace.txt", parts[2]);
  else fs::remove(trace);
  FleetSpec spec;
  try {
    spec = load_fleet(file);
  } catch (const ConfigError& e) {
    // Problems of the network file are placed there, of the fleet file in the fleet's text.
    fuzz::check_diagnostics(e, {file, network}, "");
    for (const Diagnostic& d : e.diagnostics())
      if (d.file == file.string()) fuzz::check_diagnostics(ConfigError({d}), {file}, parts[0]);
    return 0;
  }
  check_spec(spec);
  FleetInstance fleet;
  try {
    fleet = instantiate_fleet(spec);
  } catch (const ConfigError& e) {
    fuzz::check_diagnostics(e, {file, network, trace}, "");
    return 0;
  }
  check_instance(fleet);
  return 0;
}
