// Integers read from JSON files (reports, run journals, shard headers) without nlohmann's
// unchecked casts.
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <nlohmann/json.hpp>

namespace edgetwin {

// A JSON value as an integer of type T, or std::out_of_range / std::invalid_argument: only a
// JSON integer within T's range. nlohmann's own conversion casts a float such as
// 18446744073709551616 (past any 64-bit integer, so parsed as a float) to the integer type,
// which is undefined (found by report_json_fuzzer,
// fuzz/corpus/report_json/finding-integer-past-int64.json, and by shard_file_fuzzer,
// fuzz/corpus/shard_file/finding-chunks-1e30.etshard).
template <typename T>
T integer_of(const nlohmann::json& v) {
  if (!v.is_number_integer())
    throw std::invalid_argument(std::string("expected an integer, got a ") + v.type_name() +
                                (v.is_number() ? " (" + v.dump() + ")" : std::string()));
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
      throw std::out_of_range("integer " + std::to_string(u) + " out of range");
    return static_cast<T>(u);
  }
  const auto i = v.get<std::int64_t>();
  if constexpr (std::is_unsigned_v<T>) {
    if (i < 0) throw std::out_of_range("expected a non-negative integer, got " + std::to_string(i));
  } else {
    if (i < std::numeric_limits<T>::min() || i > std::numeric_limits<T>::max())
      throw std::out_of_range("integer " + std::to_string(i) + " out of range");
  }
  return static_cast<T>(i);
}

}  // namespace edgetwin
