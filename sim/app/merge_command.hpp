// `edgetwin merge SHARD... [-- OPTION...]`: combines the shard files of a `--shard K/N` sweep
// or plan-round into exactly what the single-process run writes (sim/app/shard_files.hpp).
//
// Contract: reads and checks every shard file, then runs the shards' command again with
// their identifying arguments and the OPTIONs after `--` (where its outputs go: --csv,
// --json, --plot; --gantt, --client-configs), its split batch taken from the files instead
// of simulated. Its stdout, files and exit code are the single-process run's.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace edgetwin {

// arguments: what follows "merge"; run_command runs an edgetwin command line (argv[0] first).
int run_merge(const std::vector<std::string>& arguments,
              const std::function<int(const std::vector<std::string>&)>& run_command);

}  // namespace edgetwin
