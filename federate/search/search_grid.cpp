#include "federate/search/search_grid.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/app/sweep_plan.hpp"
#include "sim/config/config_error.hpp"

namespace edgetwin::federate {
namespace {

SearchAxis axis_of(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos)
    throw option_error("--search", fmt::format("\"{}\": expected KEY=V1|V2|..., KEY one of {}", text, fmt::join(kSearchKeys, ", ")));
  SearchAxis axis{text.substr(0, eq), split_on(text.substr(eq + 1), '|')};
  if (std::find(kSearchKeys.begin(), kSearchKeys.end(), axis.key) == kSearchKeys.end())
    throw option_error("--search", fmt::format("\"{}\": unknown axis \"{}\"; valid: {}", text, axis.key, fmt::join(kSearchKeys, ", ")));
  if (std::find(axis.values.begin(), axis.values.end(), "") != axis.values.end())
    throw option_error("--search", fmt::format("\"{}\": an empty value (a grid needs at least one value on every axis, "
                                               "joined by |)", text));
  return axis;
}

// k is clients_per_round's short name: the same axis.
std::string axis_name(const std::string& key) { return key == "k" ? "clients_per_round" : key; }

}  // namespace

std::vector<SearchAxis> parse_search_axes(const std::vector<std::string>& texts) {
  std::vector<SearchAxis> axes;
  for (const std::string& text : texts) {
    SearchAxis axis = axis_of(text);
    for (const SearchAxis& earlier : axes)
      if (axis_name(earlier.key) == axis_name(axis.key))
        throw option_error("--search", fmt::format("axis \"{}\" given twice; give its values once, joined by |", axis.key));
    axes.push_back(std::move(axis));
  }
  return axes;
}

std::vector<std::string> search_candidates(const std::vector<SearchAxis>& axes) {
  std::vector<std::string> out{""};
  for (const SearchAxis& axis : axes) {
    std::vector<std::string> longer;
    for (const std::string& prefix : out)
      for (const std::string& value : axis.values)
        longer.push_back(fmt::format("{}{}{}={}", prefix, prefix.empty() ? "" : ",", axis.key, value));
    out = std::move(longer);
  }
  return axes.empty() ? std::vector<std::string>{} : out;
}

}  // namespace edgetwin::federate
