// A device group's availability trace, in the shape FedScale's client availability traces
// have: per device, the times it becomes active and inactive, alternating.
//
// File format (text, docs/reference/schema.md "Availability traces"): one device per line, `#` starts a
// comment; a line is the device's index within its group (0-based) followed by the times, in
// seconds from the start of the first round, at which it becomes active, inactive, active...,
// strictly increasing. Before the first time the device is inactive; after an active time
// with no inactive time following it stays active.
//
// Contract: load_availability_trace reports every bad line (not a number, a negative or
// repeated index, times out of order, an index outside 0..devices-1, a device without a line)
// with file:line:column and throws one ConfigError. active_at(t) is true inside [on, off).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

namespace edgetwin {

class AvailabilityTrace {
 public:
  AvailabilityTrace() = default;
  explicit AvailabilityTrace(std::vector<std::vector<double>> times) : times_(std::move(times)) {}

  bool active_at(std::int64_t device, double t_s) const;
  // Active at both ends and never inactive in between.
  bool active_throughout(std::int64_t device, double from_s, double to_s) const;
  // The first time after t at which the device becomes active; none when it never does again.
  std::optional<double> next_active_after(std::int64_t device, double t_s) const;
  // The span between the device's switches that holds t: active_at(t') for every t' in
  // [from_s, until_s) is `active` (from_s -inf before its first switch, until_s +inf after its last).
  struct Window {
    double from_s = 0;
    double until_s = 0;
    bool active = false;
  };
  Window window_at(std::int64_t device, double t_s) const;
  std::size_t devices() const { return times_.size(); }

 private:
  std::vector<std::vector<double>> times_;  // per device: on, off, on, off...
};

AvailabilityTrace load_availability_trace(const std::filesystem::path& file, std::int64_t devices);

}  // namespace edgetwin
