// The grid of `edgetwin-federate --search`: one axis per `--search KEY=V1|V2|...`, the
// candidates their cartesian product, each a plan as `--compare` spells one
// ("deadline=30,selection=oort"), so that a candidate learns exactly as that comparison would.
//
// Contract: parse_search_axes refuses (ConfigError at --search, exit 2) an axis not among
// kSearchKeys, an axis given twice, and an axis without values or with an empty value (a grid
// with no candidate); the values themselves are checked where every plan's are (the plan's
// overrides). search_candidates gives the product in odometer order: the first axis changes
// slowest, the last fastest, each axis's values in the order given.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace edgetwin::federate {

// What a search may vary: the plan keys of --compare but the clock (FedScale's has no energy).
inline constexpr std::array<std::string_view, 7> kSearchKeys{
    "deadline", "clients_per_round", "k", "over_commitment", "objective", "aggregation", "selection"};

struct SearchAxis {
  std::string key;
  std::vector<std::string> values;
};

std::vector<SearchAxis> parse_search_axes(const std::vector<std::string>& texts);

// "key=value,key=value": the candidates' plans as --compare reads them.
std::vector<std::string> search_candidates(const std::vector<SearchAxis>& axes);

}  // namespace edgetwin::federate
