// What every fuzz target shares: a scratch directory for the input as a file (the loaders read
// files), the shipped catalogue, and the invariants a target checks beyond "did not crash".
//
// Contract: FUZZ_CHECK(condition, message) prints the message and aborts (libFuzzer saves the
// input as a finding). check_diagnostics() holds for every ConfigError a loader throws: at
// least one problem, each one line with a message, placed in a file the load read (or on
// the command line) at a line the text has. check_engine_inputs_complete() holds for a run
// the model accepted: every speed and amount of work SimGrid would get is finite and in its
// bounds (sim/model/engine_inputs.hpp), recomputed here from the model's own objects.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/config_error.hpp"
#include "sim/config/specs.hpp"

#define FUZZ_CHECK(condition, message) ::edgetwin::fuzz::check((condition), #condition, (message))

namespace edgetwin::fuzz {

void check(bool condition, const char* expression, const std::string& message);

// One directory per fuzzing process, with a copy of the shipped media (device files name them).
const std::filesystem::path& scratch_dir();
// Writes the input to scratch_dir()/name and returns its path.
std::filesystem::path write_input(const std::string& name, const std::uint8_t* data, std::size_t size);
std::string text_of(const std::uint8_t* data, std::size_t size);
// An input of several files: its parts between lines "%%", at most max_parts (the last keeps
// the rest); write_part writes one to scratch_dir()/name.
std::vector<std::string> parts_of(const std::string& text, std::size_t max_parts);
void write_part(const std::string& name, const std::string& text);

// Shipped files, loaded once (EDGETWIN_SOURCE_DIR).
const DeviceSpec& shipped_device(const std::string& name);
const WorkloadSpec& shipped_workload(const std::string& name);
std::filesystem::path shipped_file(const std::string& relative);

void check_diagnostics(const ConfigError& error, const std::vector<std::filesystem::path>& inputs,
                       std::string_view text);

// Every number finite, every value within the range its loader promises (docs/reference/schema.md).
void check_device(const DeviceSpec& device);
void check_workload(const WorkloadSpec& workload);
void check_costs(const CostSpec& costs);

// Adds the member to a Simulation (no engine runs): ConfigError or acceptance, then for an
// accepted run the engine inputs recomputed and checked.
void check_member(const DeviceSpec& device, const WorkloadSpec& workload, const RunConfig& run);
// check_member for the workload's own loader settings, one epoch, a sweep's window.
void check_default_run(const DeviceSpec& device, const WorkloadSpec& workload);

}  // namespace edgetwin::fuzz
