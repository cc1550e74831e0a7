// Plain specs of a federated fleet: device groups, network classes, the server and the round,
// in SI units, as fleets/*.toml describe them (docs/reference/schema.md, "Fleet files").
//
// Contract: filled by sim/config/fleet_loader.hpp; no SimGrid or toml++ header here. Every
// default lives in this file. Devices and workloads are named, not loaded: the planner
// resolves them (shipped name or path) and reports problems at the fleet key that named them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/source_map.hpp"
#include "sim/config/specs.hpp"

namespace edgetwin {

// A network class: a device's access link to the server (WiFi, LTE, Ethernet).
struct NetworkSpec {
  std::string name;
  double uplink_bytes_per_s = 0;    // device -> server, goodput
  double downlink_bytes_per_s = 0;  // server -> device, goodput
  double latency_s = 0;             // one way, device to the server's network
  double radio_tx_power_w = 0;      // drawn by the radio while sending, on top of the device
  double radio_rx_power_w = 0;      // drawn by the radio while receiving
  Provenance provenance;
};

// The aggregation server: its network links are shared by every concurrent transfer.
struct ServerSpec {
  double ingress_bytes_per_s = 0;  // uploads share it
  double egress_bytes_per_s = 0;   // downloads share it
  double latency_s = 0;
  double aggregation_base_s = 0;        // aggregation time = base + per_update x updates
  double aggregation_s_per_update = 0;
  Provenance provenance;
};

// How many samples each device of a group holds.
struct SampleDistribution {
  enum class Kind { fixed, uniform, lognormal };
  Kind kind = Kind::fixed;
  std::int64_t samples = 0;       // fixed
  std::int64_t min = 0, max = 0;  // uniform, inclusive
  double median = 0, sigma = 0;   // lognormal: exp(N(ln median, sigma^2)), rounded, 1 to 1e8; sigma <= 10
};

// When a device can take part: always, with a probability per round (seeded), or as a trace
// of active/inactive intervals (sim/config/availability_trace.hpp).
struct AvailabilitySpec {
  enum class Kind { always, probability, trace };
  Kind kind = Kind::always;
  double probability = 1;
  std::string trace_file;  // resolved against the fleet file's directory
};

// What an idle device draws between its tasks (the device file's [power] idle states).
enum class IdleState { dvfs_on, dvfs_off, suspend };

struct DeviceGroupSpec {
  std::string name;
  std::string key;       // its table in the fleet file ("group[2]"), for messages
  std::string device;    // shipped name or file
  std::string profile;   // measured costs of the workload on this device ("" = the workload's or estimated)
  int count = 0;
  std::string storage;   // "" = the device's default
  SampleDistribution samples;
  std::string power_modes = "named";  // named | all | a comma list of names or ids
  std::vector<int> workers;           // the candidates; one value = fixed; empty = the workload's
  std::vector<int> batch_sizes;
  std::optional<double> energy_budget_j_per_round;
  std::optional<double> energy_budget_j_per_day;
  std::string network;
  AvailabilitySpec availability;
  IdleState idle = IdleState::dvfs_on;
};

// Who a round selects (sim/model/client_selection.hpp): a seeded random choice, every candidate,
// the least predicted task time, the least predicted energy per counted update, or Oort's
// statistical and system utility (learning runs only: it reads the learner's losses).
enum class Selection { random, all, fastest, energy, oort };
enum class Objective { time, energy, balanced };

// How the server aggregates: synchronous rounds (FedAvg: wait for K updates or the deadline),
// or buffered asynchronous aggregation (FedBuff: apply every B arrived updates, clients
// restarting at once; sim/model/buffered_aggregation.hpp).
enum class Aggregation { sync, buffered };
// A buffered update's weight by its staleness s: 1, 1/sqrt(1+s) (FedBuff's), or (1+s)^-a.
enum class StalenessWeight { constant, sqrt, polynomial };

// Oort's guided participant selection (Lai et al., OSDI 2021); every default is Oort's own
// training selector's (SymbioticLab/Oort, training/argParser.py; docs/reference/sources.md).
struct OortSpec {
  double exploration_factor = 0.9;   // the share of a round first given to unexplored devices
  double exploration_decay = 0.95;   // times the share, every round
  double exploration_min = 0.2;
  double round_penalty = 2.0;        // alpha: utility x (T / t)^alpha for a device slower than T
  double preferred_percentile = 10;  // T: this percentile of the devices' task times
  int pacer_step = 20;               // rounds between the pacer's looks at the utility
  double pacer_delta = 5;            // percentile points the pacer moves T by
  double cut_off_util = 0.7;         // exploit among devices within this share of the K-th utility
  double clip_bound = 0.98;          // utilities clipped at this quantile
  double sample_window = 5.0;        // explore among the best sample_window x needed unexplored
};

struct RoundSpec {
  std::string workload;
  int local_epochs = 1;              // local training per round: epochs, or
  std::int64_t local_steps = 0;      // steps (mini-batches), when set
  std::optional<double> download_bytes;  // default: parameters x 4 bytes (FP32 weights)
  std::optional<double> upload_bytes;
  int clients_per_round = 0;         // K updates the server waits for
  double over_commitment = 1.0;      // select ceil(f x K), count the first K to report
  double deadline_s = 0;
  int rounds = 1;                    // buffered: the aggregations (model versions) to simulate
  Selection selection = Selection::random;
  Aggregation aggregation = Aggregation::sync;
  // Buffered aggregation; FedBuff's defaults (Nguyen et al., AISTATS 2022; docs/reference/sources.md).
  int buffer_size = 10;                   // B: updates per aggregation
  std::optional<int> concurrency;         // tasks in flight at most; unset: clients_per_round
  StalenessWeight staleness_weight = StalenessWeight::sqrt;
  double staleness_exponent = 0.5;        // a, for polynomial
  OortSpec oort;  // with selection = "oort" ([round.oort])
  // A device whose gap until its next task is at least this long suspends (idle = "suspend").
  double suspend_min_gap_s = 30;
};

// How a learning run (edgetwin-federate) splits the training set over the fleet's devices.
struct PartitionSpec {
  enum class Kind { iid, dirichlet, shards };
  Kind kind = Kind::iid;
  double alpha = 0;            // dirichlet: concentration of each device's label mix
  int classes_per_client = 0;  // shards: the classes each device holds
};

// What a learning run trains for real while the rounds are simulated ([learning],
// docs/reference/schema.md). Paths are as written; edgetwin-federate resolves them against the fleet
// file's directory and reports problems at these keys. plan-round reads the table and ignores it.
struct LearningSpec {
  std::string data;           // the training set's directory
  std::string format = "mnist";  // mnist (IDX, plain or gzip'ed), cifar10 (binary), jpeg-folder
  std::string test_data;      // "": the training directory's test split (IDX t10k-*, CIFAR test_batch.bin)
  std::int64_t max_test_samples = 0;  // evaluate on the first N test samples; 0 = all
  std::string torchscript;    // a TorchScript model; "": the workload's model by name
  int crop_size = 224;        // jpeg-folder: the side images are cropped to
  PartitionSpec partition;
  bool sample_with_replacement = false;  // devices may hold more samples in all than the set has
  // Client SGD: the Jetson study's (docs/reference/catalogue.md). FedProx's mu adds mu/2 |w - w_global|^2.
  double learning_rate = 0.01;
  double momentum = 0.9;
  double proximal_mu = 0;
  // The server's step on the averaged update (FedAvgM); 1 and 0 are plain FedAvg.
  double server_learning_rate = 1;
  double server_momentum = 0;
  int evaluate_every = 1;  // rounds between evaluations of the global model (and the last)
  std::optional<double> target_accuracy;  // test accuracy in (0, 1]
};

struct FleetSpec {
  std::string name;
  std::string description;
  std::string source_file;
  SourceMap source;
  std::uint64_t seed = 1;
  RoundSpec round;
  ServerSpec server;
  std::vector<DeviceGroupSpec> groups;
  std::map<std::string, NetworkSpec> networks;  // every class a group names
  std::optional<LearningSpec> learning;
  Provenance provenance;
};

}  // namespace edgetwin
