// Every bound on the size of what edgetwin reads, in one place (the ranges of numbers by unit
// are in sim/config/physical_range.hpp). docs/reference/reliability.md lists them for users.
//
// Why: the tool plans from files people edit by hand; a file that is large, deep or wide by
// mistake must give a message, not exhaust the stack, the memory or the user's patience.
// Each bound is orders of magnitude beyond the shipped catalogue; raise one here if a real
// input needs more (and say why beside it).
#pragma once

#include <cstddef>
#include <cstdint>

namespace edgetwin::limits {

// A device, medium, workload, profile or grid file; the largest shipped is 7.6 kB.
inline constexpr std::size_t toml_file_bytes = 1 << 20;
// Tables, dotted-key segments, arrays and inline tables around one value; shipped files
// nest 5 deep. toml++ recurses once per level.
inline constexpr int toml_nesting = 32;
// Elements of one array, tables of one [[array]] and tables under one [table]: a Jetson lists
// fewer than 30 clock steps and 20 power modes.
inline constexpr std::size_t array_elements = 1024;
// Problems listed for one file: past these, a file is the wrong file, not a few typos.
inline constexpr std::size_t diagnostics_per_file = 100;
// A name (device, workload, mode, medium, configuration): one line, as on a command line.
inline constexpr std::size_t name_bytes = 128;
// Any other string (descriptions, provenance sources, the calibrate command line): one line.
inline constexpr std::size_t text_bytes = 16384;

// A training log CSV (edgetwin-calibrate import): 5 epochs of 80,000 batches are 20 MB.
inline constexpr std::size_t csv_file_bytes = 64 << 20;
// An edgetwin-validate report.json or run journal.
inline constexpr std::size_t json_file_bytes = 64 << 20;
// A shard file `edgetwin merge` reads back: about 150 bytes an epoch, so a shard of a whole
// sweep of the default bound (1,000,000 configurations) at 10 epochs is 1.5 GB.
inline constexpr std::size_t shard_file_bytes = std::size_t{16} << 30;

// Configurations one sweep simulates unless --max-configurations says more: every custom
// mode of the AGX Xavier (29,232) times 34 worker/batch/storage combinations.
inline constexpr std::int64_t sweep_configurations = 1'000'000;
// Devices of one fleet unless plan-round's --max-devices says more: FedScale's largest
// client traces hold about 100,000 devices per round's pool; the planner keeps a row of
// figures per device and configuration.
inline constexpr std::int64_t fleet_devices = 100'000;
// Device-configuration pairs one plan weighs (devices x the configurations their group may
// choose): the planner holds nothing per pair (sim/plan/candidate_table.hpp) but visits each a
// few times; 500,000 devices of the worked example are 16.5 million pairs
// (docs/explanation/performance.md, "Planning federated rounds").
inline constexpr std::int64_t plan_pairs = 50'000'000;
// An availability trace (plain text, a line per device).
inline constexpr std::size_t trace_file_bytes = 64 << 20;

// Batches one run simulates (epochs x batches per epoch, or the windows of them): 80,000
// batches take about a second (docs/explanation/performance.md), so this is hours.
inline constexpr std::int64_t simulated_batches = 100'000'000;

}  // namespace edgetwin::limits
