// Problems of a file that another input names (a workload's costs.device, a fleet's device,
// profile, network class or availability trace), placed where that input names it, so that a
// person sees which line sent edgetwin to the file.
//
// Contract: placed_at(source, key, problems) keeps a problem inside the named file (it has a
// line) where it is; a problem about the named file as a whole (no line: it cannot be opened,
// is not a regular file such as /dev/stdin, a directory or a FIFO, is too large) moves to
// `key` of `source` as "<path>: <reason>"; a problem without a file (a name that is neither
// shipped nor a file) moves to `key` as it is. load_named runs load and rethrows its
// ConfigError so placed:
//   workloads/w.toml:31:10: costs.device: /dev/stdin: cannot read file: a character device
#pragma once

#include <string_view>
#include <vector>

#include "sim/config/config_error.hpp"
#include "sim/config/source_map.hpp"

namespace edgetwin {

std::vector<Diagnostic> placed_at(const SourceMap& source, std::string_view key, const std::vector<Diagnostic>& problems);

template <typename Load>
auto load_named(const SourceMap& source, std::string_view key, Load&& load) {
  try {
    return load();
  } catch (const ConfigError& e) {
    throw ConfigError(placed_at(source, key, e.diagnostics()));
  }
}

}  // namespace edgetwin
