#include "sim/config/number_check.hpp"

#include <cmath>

#include <fmt/format.h>

#include "sim/config/physical_range.hpp"

namespace edgetwin {
namespace {

std::string bounded(std::string_view noun, Bound bound) {
  switch (bound) {
    case Bound::positive: return fmt::format("positive {}", noun);
    case Bound::non_negative: return fmt::format("non-negative {}", noun);
    case Bound::fraction: return fmt::format("{} from 0 to 1", noun);
    case Bound::positive_fraction: return fmt::format("positive {} at most 1", noun);
    case Bound::any: break;
  }
  return std::string(noun);
}

std::string with_unit(std::string text, std::string_view unit) {
  return unit.empty() ? text : fmt::format("{} ({})", text, unit);
}

}  // namespace

bool within(double value, Bound bound) {
  switch (bound) {
    case Bound::positive: return value > 0;
    case Bound::non_negative: return value >= 0;
    case Bound::fraction: return value >= 0 && value <= 1;
    case Bound::positive_fraction: return value > 0 && value <= 1;
    case Bound::any: break;
  }
  return true;
}

std::string with_article(std::string text) {
  bool vowel = !text.empty() && std::string_view("aeiou").find(text.front()) != std::string_view::npos;
  return (vowel ? "an " : "a ") + text;
}

std::string expected_scalar(std::string_view noun, Bound bound, std::string_view unit) {
  return with_unit(with_article(bounded(noun, bound)), unit);
}

std::string expected_array(std::string_view noun, Bound bound, std::string_view unit) {
  return with_unit(fmt::format("an array of {}", bounded(fmt::format("{}s", noun), bound)), unit);
}

std::string number_text(double value) { return fmt::format("{}", value); }

std::optional<std::string> number_problem(double value, Bound bound, std::string_view unit, std::string_view noun) {
  const std::string expected = expected_scalar(noun, bound, unit);
  if (!std::isfinite(value) || !within(value, bound)) return fmt::format("expected {}, got {}", expected, number_text(value));
  if (const auto outside = outside_physical_range(value, unit)) {
    return fmt::format("expected {} {}, got {}", expected, *outside, number_text(value));
  }
  return std::nullopt;
}

}  // namespace edgetwin
