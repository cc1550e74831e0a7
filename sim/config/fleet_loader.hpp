// Loads a fleet file (fleets/*.toml, docs/reference/schema.md "Fleet files") and the network classes it
// names.
//
// Contract: load_fleet collects every problem of the fleet file (unknown keys, bad values,
// missing tables, names given twice, K larger than the fleet, a group naming a network class
// that exists neither in the file's [network.<name>] tables nor as <fleet dir>/networks/
// <name>.toml) and throws one ConfigError; problems of a network file carry that file's own
// place. Devices, workloads, power modes and availability traces are named, not opened: the
// planner checks them against the catalogue and reports at the fleet key that named them.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "sim/config/fleet_specs.hpp"
#include "sim/config/input_limits.hpp"

namespace edgetwin {

// max_devices bounds the devices over all groups (plan-round's --max-devices).
FleetSpec load_fleet(const std::filesystem::path& file, std::int64_t max_devices = limits::fleet_devices);

// A network class file: [network] with the five rates and powers, [provenance].network.
NetworkSpec load_network(const std::filesystem::path& file);

// <directory of the fleet file>/networks.
std::filesystem::path networks_dir_of(const std::filesystem::path& fleet_file);

// The names of round.selection ("random", "all", "fastest", "energy", "oort").
Selection selection_named(std::string_view name);
// The same for any text: nothing for a name that is not one.
std::optional<Selection> selection_if_named(std::string_view name);
// "random, all, fastest, energy, oort" (or joined by another separator), for a message.
std::string selection_names(std::string_view separator = ", ");
std::string to_string(Selection selection);
// "constant", "sqrt" or "polynomial" (what the loader lets through).
StalenessWeight staleness_weight_named(std::string_view name);
std::string to_string(StalenessWeight weight);
std::string to_string(Aggregation aggregation);

// Devices in the fleet, over all groups.
std::int64_t fleet_size(const FleetSpec& fleet);

}  // namespace edgetwin
