// The plausible range of every unit a number in an input may have: one table for the file
// loaders (sim/config/toml_reader.hpp), the importers and the command line.
//
// Why: a finite, positive value can still be absurd (a clock of 1e-300 Hz, a bandwidth of
// 1e308 bytes/s) and turn into infinities, zeros or hours of simulation downstream. Each
// unit gets a range wide enough for any edge device and any workload the tool models, so
// that what passes is a number a person could mean. A value of 0 is judged by the key's
// Bound (non-negative keys allow it); the range applies to the magnitude of non-zero values.
//
// Contract: physical_range(unit) gives the unit's range; a unit missing from the table is a
// programming error (std::logic_error), so every new key has to say what it may hold. The
// unit "" has no range (values for people, seeds): only finiteness applies.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace edgetwin {

struct PhysicalRange {
  std::string_view unit;
  double smallest;                // smallest magnitude of a non-zero value
  double largest;                 // largest magnitude
  std::string_view smallest_text;  // "1 MHz"
  std::string_view largest_text;   // "10 GHz"
  std::string_view why;           // what the bounds stand for, for messages
};

const PhysicalRange& physical_range(std::string_view unit);

// nullopt when value is 0 or within the unit's range; otherwise the problem, worded to follow
// "expected <kind> (<unit>)": "of at most 10 GHz (no edge device clocks faster)".
std::optional<std::string> outside_physical_range(double value, std::string_view unit);

}  // namespace edgetwin
