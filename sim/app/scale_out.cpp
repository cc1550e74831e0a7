#include "sim/app/scale_out.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "sim/app/mpi_distribution.hpp"
#include "sim/app/shard_files.hpp"
#include "sim/config/config_error.hpp"

namespace edgetwin {
namespace {

std::unique_ptr<ChunkDistribution>& merged_shards() {
  static std::unique_ptr<ChunkDistribution> merged;
  return merged;
}

const std::vector<OutputOption> kScaleOutOptions{
    {"--shard", true}, {"--shard-dir", true}, {"--mpi", false}, {"--mpi-handout", true}};

}  // namespace

void add_scale_out_options(CLI::App& command, ScaleOutOptions& o) {
  command.add_option("--shard", o.shard,
                     "Run part K of N (K/N) and write it to a shard file for `edgetwin merge`; a finished part is "
                     "skipped");
  command.add_option("--shard-dir", o.shard_dir, "Directory of the shard files")->capture_default_str();
  command.add_flag("--mpi", o.mpi, "Split the work over the ranks of an MPI job (mpirun -np N edgetwin ... --mpi)");
  command.add_option("--mpi-handout", o.handout, "With --mpi: dynamic (chunks from a counter on rank 0) or static")
      ->check(CLI::IsMember({"dynamic", "static"}))
      ->capture_default_str();
}

std::vector<std::string> identifying_arguments(const std::vector<std::string>& arguments,
                                               const std::vector<OutputOption>& outputs) {
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string& a = arguments[i];
    bool skipped = false;
    for (const auto* list : {&outputs, &kScaleOutOptions})
      for (const OutputOption& o : *list) {
        if (a == o.name) {
          skipped = true;
          if (o.takes_value) ++i;
        } else if (a.starts_with(std::string(o.name) + "=")) {
          skipped = true;
        }
      }
    if (!skipped) kept.push_back(a);
  }
  return kept;
}

void use_merged_shards(std::unique_ptr<ChunkDistribution> merged) { merged_shards() = std::move(merged); }

ScaleOut::ScaleOut(std::string command, const ScaleOutOptions& o, std::vector<OutputOption> outputs) {
  if (!o.shard.empty() && o.mpi)
    throw ConfigError({Diagnostic{"", 0, 0, "--shard", "--shard and --mpi split the work two ways; give one of them"}});
  if (merged_shards()) {
    distribution_ = std::move(merged_shards());
  } else if (!o.shard.empty()) {
    const auto [k, n] = parse_shard(o.shard);
    distribution_ = std::make_unique<ShardRecorder>(command, identifying_arguments(o.arguments, outputs), k, n, o.shard_dir);
  } else if (o.mpi) {
    auto mpi = make_mpi_distribution(o.handout == "dynamic", command == "plan-round");
    root_ = mpi->rank() == 0;
    distribution_ = std::move(mpi);
  }
}

ScaleOut::~ScaleOut() = default;

bool ScaleOut::writes_outputs() const { return root_; }

int ScaleOut::run_scaled(const std::function<int()>& command) const {
  try {
    return command();
  } catch (const ShardFinished& finished) {
    fmt::print("{}\n", finished.what());
    return 0;
  }
}

}  // namespace edgetwin
