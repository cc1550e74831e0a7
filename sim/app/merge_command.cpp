#include "sim/app/merge_command.hpp"

#include <algorithm>
#include <filesystem>

#include "sim/app/plan_round_command.hpp"
#include "sim/app/scale_out.hpp"
#include "sim/app/sweep_command.hpp"
#include "sim/app/shard_files.hpp"
#include "sim/config/config_error.hpp"

namespace edgetwin {

int run_merge(const std::vector<std::string>& arguments,
              const std::function<int(const std::vector<std::string>&)>& run_command) {
  const auto separator = std::find(arguments.begin(), arguments.end(), "--");
  const std::vector<std::filesystem::path> files(arguments.begin(), separator);
  for (const auto& file : files)
    if (file.string().starts_with("-"))
      throw ConfigError({Diagnostic{"", 0, 0, "merge",
                                    "expected shard files, then `--` and the options saying where outputs go, got " +
                                        file.string()}});
  auto shards = read_shard_set(files);
  const auto outputs = shards->identity().command == "sweep" ? sweep_output_options() : plan_round_output_options();
  const std::vector<std::string> extras(separator == arguments.end() ? separator : separator + 1, arguments.end());
  if (const auto changing = identifying_arguments(extras, outputs); !changing.empty())
    throw ConfigError({Diagnostic{"", 0, 0, "merge",
                                  "after -- only options saying where outputs go; \"" + changing.front() +
                                      "\" would change what the shards computed"}});
  std::vector<std::string> command{"edgetwin", shards->identity().command};
  const auto& stored = shards->identity().arguments;
  command.insert(command.end(), stored.begin(), stored.end());
  command.insert(command.end(), extras.begin(), extras.end());
  use_merged_shards(std::move(shards));
  return run_command(command);
}

}  // namespace edgetwin
