#include "sim/config/fleet_loader.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/config/named_file.hpp"
#include "sim/config/toml_reader.hpp"

namespace edgetwin {
namespace {

constexpr std::array<std::string_view, 5> kSelections{"random", "all", "fastest", "energy", "oort"};
constexpr std::array<std::string_view, 3> kIdleStates{"dvfs-on", "dvfs-off", "suspend"};
constexpr std::array<std::string_view, 3> kDistributions{"fixed", "uniform", "lognormal"};
constexpr std::array<std::string_view, 1> kAvailabilityWords{"always"};
constexpr std::array<std::string_view, 3> kPartitions{"iid", "dirichlet", "shards"};
constexpr std::array<std::string_view, 2> kAggregations{"sync", "buffered"};
constexpr std::array<std::string_view, 3> kStalenessWeights{"constant", "sqrt", "polynomial"};
// A staleness exponent beyond this weighs an update of staleness 1 below 2^-100: a typo.
constexpr double kMaxStalenessExponent = 100;
// Over-commitment selects ceil(f x K) clients: FedScale and Bonawitz et al. use 1.3; beyond
// 100 it is a typo (and f x K must stay a count).
constexpr double kMaxOverCommitment = 100;
// A log-normal spread of dataset sizes: real client datasets have sigma of about 0.5 to 2;
// sigma 10 already spans e^(+-30).
constexpr double kMaxSigma = 10;

// The five figures of a network class under `table` (an inline [network.<name>] or a file's
// [network]).
void read_network_rates(TomlReader& reader, const std::string& table, NetworkSpec& net) {
  reader.read_number(table + ".uplink_bytes_per_s", net.uplink_bytes_per_s, Presence::required, Bound::positive, "bytes/s");
  reader.read_number(table + ".downlink_bytes_per_s", net.downlink_bytes_per_s, Presence::required, Bound::positive,
                     "bytes/s");
  reader.read_number(table + ".latency_s", net.latency_s, Presence::required, Bound::non_negative, "s");
  reader.read_number(table + ".radio_tx_power_w", net.radio_tx_power_w, Presence::required, Bound::non_negative, "W");
  reader.read_number(table + ".radio_rx_power_w", net.radio_rx_power_w, Presence::required, Bound::non_negative, "W");
}

void read_identity(TomlReader& reader, FleetSpec& fleet) {
  reader.read_string("fleet.name", fleet.name, Presence::required);
  reader.read_string("fleet.description", fleet.description, Presence::optional);
  std::int64_t seed = static_cast<std::int64_t>(fleet.seed);
  if (reader.read_count("fleet.seed", seed, Presence::optional, Bound::non_negative, ""))
    fleet.seed = static_cast<std::uint64_t>(seed);
}

// [round.oort]: Oort's parameters, each a share, a factor or a count of rounds.
void read_oort(TomlReader& reader, OortSpec& o) {
  if (!reader.has("round.oort")) return;
  reader.read_number("round.oort.exploration_factor", o.exploration_factor, Presence::optional, Bound::fraction, "");
  reader.read_number("round.oort.exploration_decay", o.exploration_decay, Presence::optional, Bound::fraction, "");
  reader.read_number("round.oort.exploration_min", o.exploration_min, Presence::optional, Bound::fraction, "");
  reader.read_number("round.oort.round_penalty", o.round_penalty, Presence::optional, Bound::non_negative, "");
  if (reader.read_number("round.oort.preferred_percentile", o.preferred_percentile, Presence::optional,
                         Bound::positive, "") && o.preferred_percentile > 100)
    reader.add_error("round.oort.preferred_percentile", fmt::format("expected a percentile in (0, 100], got {}",
                                                                    o.preferred_percentile));
  reader.read_count("round.oort.pacer_step", o.pacer_step, Presence::optional, Bound::positive, "rounds");
  reader.read_number("round.oort.pacer_delta", o.pacer_delta, Presence::optional, Bound::non_negative, "");
  reader.read_number("round.oort.cut_off_util", o.cut_off_util, Presence::optional, Bound::fraction, "");
  reader.read_number("round.oort.clip_bound", o.clip_bound, Presence::optional, Bound::positive_fraction, "");
  reader.read_number("round.oort.sample_window", o.sample_window, Presence::optional, Bound::positive, "");
  if (o.round_penalty > 100) reader.add_error("round.oort.round_penalty", fmt::format("expected at most 100, got {}", o.round_penalty));
  if (o.pacer_delta > 100) reader.add_error("round.oort.pacer_delta", fmt::format("expected at most 100, got {}", o.pacer_delta));
  if (o.sample_window > 1e6) reader.add_error("round.oort.sample_window", fmt::format("expected at most 1e6, got {}", o.sample_window));
}

// The buffered-aggregation keys, each an error unless aggregation = "buffered" (a key that
// would be ignored must not pass silently).
void read_aggregation(TomlReader& reader, RoundSpec& round) {
  std::string mode = "sync";
  if (reader.read_choice("round.aggregation", mode, Presence::optional, kAggregations))
    round.aggregation = mode == "buffered" ? Aggregation::buffered : Aggregation::sync;
  reader.read_count("round.buffer_size", round.buffer_size, Presence::optional, Bound::positive, "updates");
  int concurrency = 0;
  if (reader.contains("round.concurrency") &&
      reader.read_count("round.concurrency", concurrency, Presence::optional, Bound::positive, "tasks"))
    round.concurrency = concurrency;
  std::string weight = "sqrt";
  if (reader.read_choice("round.staleness_weight", weight, Presence::optional, kStalenessWeights))
    round.staleness_weight = staleness_weight_named(weight);
  if (reader.read_number("round.staleness_exponent", round.staleness_exponent, Presence::optional, Bound::positive, "") &&
      round.staleness_exponent > kMaxStalenessExponent)
    reader.add_error("round.staleness_exponent", fmt::format("expected at most {}, got {}", kMaxStalenessExponent,
                                                             round.staleness_exponent));
  if (round.aggregation == Aggregation::sync) {
    for (const char* key : {"round.buffer_size", "round.concurrency", "round.staleness_weight", "round.staleness_exponent"})
      if (reader.contains(key)) reader.add_error(key, "only with aggregation = \"buffered\"");
  } else if (reader.contains("round.staleness_exponent") && round.staleness_weight != StalenessWeight::polynomial) {
    reader.add_error("round.staleness_exponent", "only with staleness_weight = \"polynomial\"");
  }
}

void read_round(TomlReader& reader, RoundSpec& round) {
  reader.read_string("round.workload", round.workload, Presence::required);
  const bool steps = reader.contains("round.local_steps");
  if (steps && reader.contains("round.local_epochs")) {
    reader.add_error("round.local_steps", "give either local_epochs or local_steps, not both");
  }
  if (steps) {
    round.local_epochs = 0;
    if (reader.read_count("round.local_steps", round.local_steps, Presence::required, Bound::positive, "steps") &&
        round.local_steps > limits::simulated_batches)
      reader.add_error("round.local_steps", fmt::format("expected at most {} steps (a task is simulated batch by batch; "
                                                        "sim/config/input_limits.hpp), got {}",
                                                        limits::simulated_batches, round.local_steps));
  } else {
    reader.read_count("round.local_epochs", round.local_epochs, Presence::optional, Bound::positive, "epochs");
  }
  double bytes = 0;
  if (reader.contains("round.download_bytes") &&
      reader.read_number("round.download_bytes", bytes, Presence::optional, Bound::positive, "bytes"))
    round.download_bytes = bytes;
  if (reader.contains("round.upload_bytes") &&
      reader.read_number("round.upload_bytes", bytes, Presence::optional, Bound::positive, "bytes"))
    round.upload_bytes = bytes;
  reader.read_count("round.clients_per_round", round.clients_per_round, Presence::required, Bound::positive, "clients");
  if (reader.read_number("round.over_commitment", round.over_commitment, Presence::optional, Bound::positive, "")) {
    if (round.over_commitment < 1 || round.over_commitment > kMaxOverCommitment)
      reader.add_error("round.over_commitment", fmt::format("expected 1 to {} (select ceil(f x K) clients), got {}",
                                                            kMaxOverCommitment, round.over_commitment));
  }
  reader.read_number("round.deadline_s", round.deadline_s, Presence::required, Bound::positive, "s");
  reader.read_count("round.rounds", round.rounds, Presence::optional, Bound::positive, "rounds");
  std::string selection = "random";
  if (reader.read_choice("round.selection", selection, Presence::optional, kSelections))
    round.selection = selection_named(selection);
  reader.read_number("round.suspend_min_gap_s", round.suspend_min_gap_s, Presence::optional, Bound::non_negative, "s");
  read_aggregation(reader, round);
  read_oort(reader, round.oort);
}

void read_server(TomlReader& reader, ServerSpec& server) {
  if (!reader.has("server")) {
    reader.add_error("server", "missing required table; expected [server] with ingress_bytes_per_s, egress_bytes_per_s, "
                               "latency_s, aggregation_base_s, aggregation_s_per_update");
    return;
  }
  reader.read_number("server.ingress_bytes_per_s", server.ingress_bytes_per_s, Presence::required, Bound::positive,
                     "bytes/s");
  reader.read_number("server.egress_bytes_per_s", server.egress_bytes_per_s, Presence::required, Bound::positive,
                     "bytes/s");
  reader.read_number("server.latency_s", server.latency_s, Presence::optional, Bound::non_negative, "s");
  reader.read_number("server.aggregation_base_s", server.aggregation_base_s, Presence::optional, Bound::non_negative, "s");
  reader.read_number("server.aggregation_s_per_update", server.aggregation_s_per_update, Presence::optional,
                     Bound::non_negative, "s/update");
  read_provenance(reader, "provenance.server", server.provenance);
}

// A count, or { choose = [a, b, ...] }: the candidates the planner picks from.
void read_choice_list(TomlReader& reader, const std::string& key, std::vector<int>& out, Bound bound,
                      std::string_view unit) {
  if (!reader.contains(key)) return;
  if (reader.contains(key + ".choose")) {
    std::vector<std::int64_t> values;
    if (reader.read_counts(key + ".choose", values, Presence::required, bound, unit)) {
      if (values.empty()) reader.add_error(key + ".choose", "expected at least one value to choose from");
      out.assign(values.begin(), values.end());
      std::sort(out.begin(), out.end());
      if (std::adjacent_find(out.begin(), out.end()) != out.end())
        reader.add_error(key + ".choose", "expected each value once");
    }
    return;
  }
  int value = 0;
  if (reader.read_count(key, value, Presence::required, bound, unit)) out = {value};
}

void read_samples(TomlReader& reader, const std::string& key, SampleDistribution& d) {
  if (!reader.contains(key)) {
    reader.add_error(key, "missing required key; expected a number of samples, or { distribution = \"uniform\", "
                          "min = A, max = B }, or { distribution = \"lognormal\", median = M, sigma = S }");
    return;
  }
  if (!reader.contains(key + ".distribution")) {
    d.kind = SampleDistribution::Kind::fixed;
    reader.read_count(key, d.samples, Presence::required, Bound::positive, "samples");
    return;
  }
  std::string kind;
  if (!reader.read_choice(key + ".distribution", kind, Presence::required, kDistributions)) return;
  if (kind == "fixed") {
    d.kind = SampleDistribution::Kind::fixed;
    reader.read_count(key + ".samples", d.samples, Presence::required, Bound::positive, "samples");
  } else if (kind == "uniform") {
    d.kind = SampleDistribution::Kind::uniform;
    const bool lo = reader.read_count(key + ".min", d.min, Presence::required, Bound::positive, "samples");
    const bool hi = reader.read_count(key + ".max", d.max, Presence::required, Bound::positive, "samples");
    if (lo && hi && d.max < d.min)
      reader.add_error(key + ".max", fmt::format("expected at least min ({}), got {}", d.min, d.max));
  } else {
    d.kind = SampleDistribution::Kind::lognormal;
    reader.read_number(key + ".median", d.median, Presence::required, Bound::positive, "samples");
    if (reader.read_number(key + ".sigma", d.sigma, Presence::required, Bound::non_negative, "") && d.sigma > kMaxSigma)
      reader.add_error(key + ".sigma", fmt::format("expected at most {} (a log-normal spread of e^(+-{}) per standard "
                                                   "deviation), got {}", kMaxSigma, kMaxSigma, d.sigma));
  }
}

void read_availability(TomlReader& reader, const std::string& key, AvailabilitySpec& a) {
  if (!reader.contains(key)) return;
  if (reader.contains(key + ".probability")) {
    a.kind = AvailabilitySpec::Kind::probability;
    reader.read_number(key + ".probability", a.probability, Presence::required, Bound::positive_fraction,
                       "chance per round");
  } else if (reader.contains(key + ".trace")) {
    a.kind = AvailabilitySpec::Kind::trace;
    reader.read_string(key + ".trace", a.trace_file, Presence::required);
  } else {
    std::string word;
    if (reader.read_choice(key, word, Presence::required, kAvailabilityWords)) a.kind = AvailabilitySpec::Kind::always;
  }
}

// "named", "all", or an array of mode names or ids, kept as the comma list sweeps take.
void read_power_modes(TomlReader& reader, const std::string& key, std::string& out) {
  if (!reader.is_array(key)) {
    reader.read_string(key, out, Presence::optional);
    return;
  }
  std::vector<std::string> names;
  if (!reader.read_strings(key, names, Presence::required)) return;
  if (names.empty()) {
    reader.add_error(key, "expected at least one power mode");
    return;
  }
  out.clear();
  for (const auto& name : names) out += (out.empty() ? "" : ",") + name;
}

void read_budget(TomlReader& reader, const std::string& key, std::optional<double>& out) {
  double value = 0;
  if (reader.contains(key) && reader.read_number(key, value, Presence::optional, Bound::non_negative, "J")) out = value;
}

DeviceGroupSpec read_group(TomlReader& reader, const std::string& table) {
  DeviceGroupSpec g;
  g.key = table;
  reader.read_string(table + ".name", g.name, Presence::required);
  reader.read_string(table + ".device", g.device, Presence::required);
  reader.read_string(table + ".profile", g.profile, Presence::optional);
  reader.read_count(table + ".count", g.count, Presence::required, Bound::positive, "devices");
  reader.read_string(table + ".storage", g.storage, Presence::optional);
  read_samples(reader, table + ".samples", g.samples);
  read_power_modes(reader, table + ".power_modes", g.power_modes);
  read_choice_list(reader, table + ".workers", g.workers, Bound::non_negative, "worker processes");
  read_choice_list(reader, table + ".batch_size", g.batch_sizes, Bound::positive, "samples");
  read_budget(reader, table + ".energy_budget_j_per_round", g.energy_budget_j_per_round);
  read_budget(reader, table + ".energy_budget_j_per_day", g.energy_budget_j_per_day);
  reader.read_string(table + ".network", g.network, Presence::required);
  read_availability(reader, table + ".availability", g.availability);
  std::string idle = "dvfs-on";
  if (reader.read_choice(table + ".idle", idle, Presence::optional, kIdleStates))
    g.idle = idle == "suspend" ? IdleState::suspend : idle == "dvfs-off" ? IdleState::dvfs_off : IdleState::dvfs_on;
  return g;
}

void read_groups(TomlReader& reader, FleetSpec& fleet) {
  std::set<std::string> names;
  for (const std::string& table : reader.table_array("group", Presence::required)) {
    DeviceGroupSpec g = read_group(reader, table);
    if (!g.name.empty() && !names.insert(g.name).second)
      reader.add_error(table + ".name", fmt::format("group \"{}\" is defined twice", g.name));
    fleet.groups.push_back(std::move(g));
  }
}

// Inline [network.<name>] tables, then a file networks/<name>.toml for every other class a
// group names.
void read_networks(TomlReader& reader, FleetSpec& fleet, const std::filesystem::path& file) {
  const auto inline_names = reader.table_names("network", Presence::optional);
  for (const std::string& name : inline_names) {
    NetworkSpec net;
    net.name = name;
    read_network_rates(reader, "network." + name, net);
    fleet.networks.emplace(name, net);
  }
  if (!inline_names.empty()) {
    Provenance shared;
    if (read_provenance(reader, "provenance.network", shared))
      for (const auto& name : inline_names) fleet.networks[name].provenance = shared;
  }
  for (const DeviceGroupSpec& g : fleet.groups) {
    if (g.network.empty() || fleet.networks.contains(g.network)) continue;
    const auto candidate = networks_dir_of(file) / (g.network + ".toml");
    std::error_code missing;
    if (!std::filesystem::exists(std::filesystem::symlink_status(candidate, missing))) {
      reader.add_error(g.key + ".network",
                       fmt::format("unknown network class \"{}\": no [network.{}] table in this file and no {}", g.network,
                                   g.network, candidate.string()));
      continue;
    }
    try {
      NetworkSpec net = load_network(candidate);
      net.name = g.network;
      fleet.networks.emplace(g.network, net);
    } catch (const ConfigError& e) {
      // A file that cannot be read at all (not a regular file, say) is one problem at the key.
      const auto placed = placed_at(reader.source_map(), g.key + ".network", e.diagnostics());
      if (std::any_of(placed.begin(), placed.end(), [&](const Diagnostic& d) { return d.file == candidate.string(); }))
        reader.add_error(g.key + ".network", fmt::format("network file {} has problems (reported below)", candidate.string()));
      reader.add_foreign_diagnostics(placed);
    }
  }
}

// "iid", or { kind = "dirichlet", alpha = A }, or { kind = "shards", classes_per_client = k }.
void read_partition(TomlReader& reader, const std::string& key, PartitionSpec& p) {
  if (!reader.contains(key)) return;
  std::string kind;
  const std::string kind_key = reader.contains(key + ".kind") ? key + ".kind" : key;
  if (!reader.read_choice(kind_key, kind, Presence::required, kPartitions)) return;
  if (kind == "dirichlet") {
    p.kind = PartitionSpec::Kind::dirichlet;
    if (kind_key == key) reader.add_error(key, "a label-Dirichlet partition needs its alpha: { kind = \"dirichlet\", alpha = 0.5 }");
    else reader.read_number(key + ".alpha", p.alpha, Presence::required, Bound::positive, "concentration");
  } else if (kind == "shards") {
    p.kind = PartitionSpec::Kind::shards;
    if (kind_key == key)
      reader.add_error(key, "a shards partition needs its classes per client: { kind = \"shards\", classes_per_client = 2 }");
    else
      reader.read_count(key + ".classes_per_client", p.classes_per_client, Presence::required, Bound::positive, "classes");
  } else {
    p.kind = PartitionSpec::Kind::iid;
  }
}

void read_learning(TomlReader& reader, FleetSpec& fleet) {
  if (!reader.has("learning")) return;
  LearningSpec l;
  reader.read_string("learning.data", l.data, Presence::required);
  reader.read_string("learning.format", l.format, Presence::optional);
  reader.read_string("learning.test_data", l.test_data, Presence::optional);
  reader.read_count("learning.max_test_samples", l.max_test_samples, Presence::optional, Bound::non_negative, "samples");
  reader.read_string("learning.torchscript", l.torchscript, Presence::optional);
  reader.read_count("learning.crop_size", l.crop_size, Presence::optional, Bound::positive, "pixels");
  read_partition(reader, "learning.partition", l.partition);
  reader.read_bool("learning.sample_with_replacement", l.sample_with_replacement, Presence::optional);
  reader.read_number("learning.learning_rate", l.learning_rate, Presence::optional, Bound::positive, "learning rate");
  reader.read_number("learning.momentum", l.momentum, Presence::optional, Bound::fraction, "");
  if (l.momentum >= 1) reader.add_error("learning.momentum", fmt::format("expected 0 <= momentum < 1, got {}", l.momentum));
  reader.read_number("learning.proximal_mu", l.proximal_mu, Presence::optional, Bound::non_negative, "");
  reader.read_number("learning.server_learning_rate", l.server_learning_rate, Presence::optional, Bound::positive,
                     "learning rate");
  reader.read_number("learning.server_momentum", l.server_momentum, Presence::optional, Bound::fraction, "");
  if (l.server_momentum >= 1)
    reader.add_error("learning.server_momentum", fmt::format("expected 0 <= momentum < 1, got {}", l.server_momentum));
  reader.read_count("learning.evaluate_every", l.evaluate_every, Presence::optional, Bound::positive, "rounds");
  double target = 0;
  if (reader.contains("learning.target_accuracy") &&
      reader.read_number("learning.target_accuracy", target, Presence::optional, Bound::positive_fraction,
                         "test accuracy"))
    l.target_accuracy = target;
  fleet.learning = std::move(l);
}

void check_clients(TomlReader& reader, const FleetSpec& fleet, std::int64_t max_devices) {
  const std::int64_t devices = fleet_size(fleet);
  if (devices > max_devices)
    reader.add_error("group", fmt::format("the groups hold {} devices, more than --max-devices ({}); lower the counts or "
                                          "raise --max-devices", devices, max_devices));
  if (fleet.round.clients_per_round > devices && devices > 0)
    reader.add_error("round.clients_per_round",
                     fmt::format("expected at most the fleet's {} devices, got {}", devices, fleet.round.clients_per_round));
  if (fleet.round.concurrency && *fleet.round.concurrency > devices && devices > 0)
    reader.add_error("round.concurrency",
                     fmt::format("expected at most the fleet's {} devices, got {}", devices, *fleet.round.concurrency));
}

}  // namespace

Selection selection_named(std::string_view name) {
  if (name == "all") return Selection::all;
  if (name == "fastest") return Selection::fastest;
  if (name == "energy") return Selection::energy;
  if (name == "oort") return Selection::oort;
  return Selection::random;
}

std::optional<Selection> selection_if_named(std::string_view name) {
  for (std::size_t i = 0; i < kSelections.size(); ++i)
    if (kSelections[i] == name) return static_cast<Selection>(i);
  return std::nullopt;
}

std::string selection_names(std::string_view separator) { return fmt::format("{}", fmt::join(kSelections, separator)); }

StalenessWeight staleness_weight_named(std::string_view name) {
  if (name == "constant") return StalenessWeight::constant;
  if (name == "polynomial") return StalenessWeight::polynomial;
  return StalenessWeight::sqrt;
}

std::string to_string(StalenessWeight weight) { return std::string(kStalenessWeights[static_cast<std::size_t>(weight)]); }

std::string to_string(Aggregation aggregation) { return std::string(kAggregations[static_cast<std::size_t>(aggregation)]); }

std::string to_string(Selection selection) { return std::string(kSelections[static_cast<std::size_t>(selection)]); }

std::filesystem::path networks_dir_of(const std::filesystem::path& fleet_file) {
  return fleet_file.parent_path() / "networks";
}

std::int64_t fleet_size(const FleetSpec& fleet) {
  std::int64_t n = 0;
  for (const auto& g : fleet.groups) n += g.count;
  return n;
}

NetworkSpec load_network(const std::filesystem::path& file) {
  TomlReader reader(file);
  NetworkSpec net;
  net.name = file.stem().string();
  if (reader.parsed()) {
    if (!reader.has("network")) reader.add_error("network", "missing required table [network]");
    read_network_rates(reader, "network", net);
    read_provenance(reader, "provenance.network", net.provenance);
  }
  reader.finish();
  return net;
}

FleetSpec load_fleet(const std::filesystem::path& file, std::int64_t max_devices) {
  TomlReader reader(file);
  FleetSpec fleet;
  fleet.source_file = file.string();
  fleet.source = reader.source_map();
  if (reader.parsed()) {
    read_identity(reader, fleet);
    read_round(reader, fleet.round);
    read_server(reader, fleet.server);
    read_groups(reader, fleet);
    read_networks(reader, fleet, file);
    check_clients(reader, fleet, max_devices);
    read_learning(reader, fleet);
    read_provenance(reader, "provenance.fleet", fleet.provenance);
  }
  reader.finish();
  return fleet;
}

}  // namespace edgetwin
