#include "federate/app/federate_command.hpp"

#include <sched.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "federate/data/learning_data.hpp"
#include "federate/report/learning_report.hpp"
#include "federate/run/learning_run.hpp"
#include "federate/search/candidate_store.hpp"
#include "federate/search/search_grid.hpp"
#include "federate/search/search_report.hpp"
#include "sim/app/catalogue.hpp"
#include "sim/app/child_process.hpp"
#include "sim/app/mpi_distribution.hpp"
#include "sim/app/output_file.hpp"
#include "sim/app/scale_out.hpp"
#include "sim/app/shard_files.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/fleet_loader.hpp"
#include "sim/config/input_file.hpp"
#include "sim/config/option_checks.hpp"
#include "sim/config/seeded_random.hpp"

namespace edgetwin::federate {
namespace {

using WallClock = std::chrono::steady_clock;

// Options that say where results go or how the work is spread, not what is computed: left out
// of a checkpoint's identity.
// A search's grid, directory and bound are left out too: a candidate's identity is its own
// plan's (its label), so that a grown grid reuses the candidates it shares.
const std::vector<OutputOption> kOutputOptions{{"--json", false},       {"--csv", false},     {"--plot", true},
                                               {"--jobs", true},        {"--checkpoint", true}, {"--mpi", false},
                                               {"--quiet", false},      {"--search", true},   {"--search-dir", true},
                                               {"--time-bound", true}};

// One plan of a comparison: the command line's settings with some of them changed.
struct PlanVariant {
  std::string label;
  Objective objective = Objective::energy;
  Clock clock = Clock::edgetwin;
  FleetSpec spec;
};

int default_jobs() {
  cpu_set_t set;
  return sched_getaffinity(0, sizeof set, &set) == 0 ? std::max(1, CPU_COUNT(&set)) : 1;
}

PartitionSpec partition_option(const std::string& text) {
  const auto colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  const std::string value = colon == std::string::npos ? "" : text.substr(colon + 1);
  PartitionSpec p;
  try {
    if (kind == "iid" && value.empty()) return p;
    if (kind == "dirichlet" && !value.empty()) {
      p.kind = PartitionSpec::Kind::dirichlet;
      p.alpha = std::stod(value);
      if (p.alpha > 0) return p;
    }
    if (kind == "shards" && !value.empty()) {
      p.kind = PartitionSpec::Kind::shards;
      p.classes_per_client = std::stoi(value);
      if (p.classes_per_client > 0) return p;
    }
  } catch (const std::exception&) {
  }
  throw option_error("--partition", fmt::format("expected iid, dirichlet:ALPHA (ALPHA > 0) or shards:K (K > 0), got \"{}\"", text));
}

void apply_overrides(const FederateOptions& o, FleetSpec& spec) {
  std::vector<Diagnostic> problems;
  apply_round_overrides(o.round, spec, problems);
  if (spec.round.aggregation == Aggregation::buffered && !o.checkpoint.empty())
    problems.push_back(option_problem("--checkpoint", "holds synchronous rounds; not with aggregation = \"buffered\""));
  LearningSpec& l = *spec.learning;
  if (!o.partition.empty()) l.partition = partition_option(o.partition);
  if (o.target_accuracy) {
    check_number_option(problems, "--target-accuracy", *o.target_accuracy, Bound::positive_fraction, "test accuracy");
    l.target_accuracy = *o.target_accuracy;
  }
  if (o.evaluate_every) {
    check_count_option(problems, "--evaluate-every", *o.evaluate_every, Bound::positive, "rounds");
    l.evaluate_every = *o.evaluate_every;
  }
  if (o.max_test_samples) {
    check_count_option(problems, "--max-test-samples", *o.max_test_samples, Bound::non_negative, "samples");
    l.max_test_samples = *o.max_test_samples;
  }
  throw_if_any(std::move(problems));
}

void check_directory_option(std::vector<Diagnostic>& problems, std::string_view option, const std::string& dir) {
  std::error_code ec;
  if (!dir.empty() && std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
    problems.push_back(option_problem(option, fmt::format("{} is not a directory", dir)));
}

// A search compares plans by energy on edgetwin's clock, and keeps finished candidates its own way.
void check_search_options(const FederateOptions& o, std::vector<Diagnostic>& problems) {
  if (o.search.empty()) {
    for (const auto& [given, option] : {std::pair(!o.search_dir.empty(), "--search-dir"), std::pair(o.time_bound_s.has_value(), "--time-bound")})
      if (given) problems.push_back(option_problem(option, "only with --search"));
    return;
  }
  if (!o.compare.empty()) problems.push_back(option_problem("--search", "runs its own plans; not with --compare"));
  if (o.fedscale || o.clock == "fedscale")
    problems.push_back(option_problem("--search", "compares energy, which FedScale's clock has not; not with --fedscale or --clock fedscale"));
  if (!o.checkpoint.empty())
    problems.push_back(option_problem("--checkpoint", "not with --search: --search-dir keeps every finished candidate"));
  if (o.time_bound_s) check_number_option(problems, "--time-bound", *o.time_bound_s, Bound::positive, "s");
  check_directory_option(problems, "--search-dir", o.search_dir);
}

FleetSpec load_base_spec(const FederateOptions& o) {
  std::vector<Diagnostic> problems;
  check_count_option(problems, "--max-devices", o.max_devices, Bound::positive, "");
  check_count_option(problems, "--jobs", o.jobs, Bound::non_negative, "processes");
  if (!o.plot.empty())
    if (auto problem = output_target_problem(o.plot, "--plot")) problems.push_back(std::move(*problem));
  check_directory_option(problems, "--checkpoint", o.checkpoint);
  check_search_options(o, problems);
  throw_if_any(std::move(problems));
  FleetSpec spec = load_fleet(resolve_catalogue_file("fleets", o.fleet), o.max_devices);
  if (!spec.learning)
    throw ConfigError({Diagnostic{spec.source_file, 0, 0, "learning",
                                  "missing required table; edgetwin-federate learns what [learning] names (the data "
                                  "set, its partition, the optimizer, the target): docs/reference/schema.md"}});
  apply_overrides(o, spec);
  if (!o.search.empty() && !spec.learning->target_accuracy)
    throw option_error("--search", fmt::format("needs a target accuracy to search for: learning.target_accuracy in {} "
                                               "or --target-accuracy", spec.source_file));
  return spec;
}

// "sync", "buffered" (the fleet file's B) or "buffered:B" (B > 0 updates).
void read_aggregation(const std::string& value, RoundOverrides& round) {
  round.aggregation = value.starts_with("buffered") ? "buffered" : value;
  if (value == "sync" || value == "buffered") return;
  if (!value.starts_with("buffered:")) throw std::invalid_argument(value);
  const std::string b = value.substr(std::string_view("buffered:").size());
  std::size_t used = 0;
  round.buffer_size = std::stoi(b, &used);
  if (used != b.size() || *round.buffer_size <= 0) throw std::invalid_argument(value);
}

Selection selection_value(const std::string& value) {
  if (const auto selection = selection_if_named(value)) return *selection;
  throw std::invalid_argument(value);
}

// One key=value of a plan into v (objective, clock) or o's round overrides; throws on a bad one.
void read_plan_setting(const std::string& key, const std::string& value, PlanVariant& v, FederateOptions& o) {
  if (key == "objective" && (value == "energy" || value == "time" || value == "balanced")) v.objective = objective_named(value);
  else if (key == "clock" && (value == "edgetwin" || value == "fedscale")) v.clock = value == "fedscale" ? Clock::fedscale : Clock::edgetwin;
  else if (key == "deadline") o.round.deadline_s = std::stod(value);
  else if (key == "clients_per_round" || key == "k") o.round.clients_per_round = std::stoi(value);
  else if (key == "over_commitment") o.round.over_commitment = std::stod(value);
  else if (key == "aggregation") read_aggregation(value, o.round);
  else if (key == "selection") o.round.selection = selection_value(value);
  else throw std::invalid_argument(key);
}

// "objective=time,deadline=300,clients_per_round=20,over_commitment=1.0,clock=fedscale", from
// `option` (--compare, or --search's candidates).
PlanVariant variant_of(const std::string& text, const PlanVariant& base, const std::string& option) {
  PlanVariant v = base;
  v.label = text;
  FederateOptions o;
  std::string rest = text;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string item = rest.substr(0, comma);
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    const auto eq = item.find('=');
    try {
      read_plan_setting(item.substr(0, eq), eq == std::string::npos ? "" : item.substr(eq + 1), v, o);
    } catch (const std::exception&) {
      throw option_error(option, fmt::format("\"{}\" in \"{}\": expected objective=energy|time|balanced, "
                                             "clock=edgetwin|fedscale, deadline=SECONDS, clients_per_round=K, "
                                             "over_commitment=F, aggregation=sync|buffered|buffered:B (B > 0 updates) "
                                             "or selection={}, joined by commas",
                                             item, text, selection_names("|")));
    }
  }
  apply_overrides(o, v.spec);
  return v;
}

// The plans' texts: --compare's, or the candidates of --search's grid.
std::vector<std::string> plan_texts(const FederateOptions& o) {
  return o.search.empty() ? o.compare : search_candidates(parse_search_axes(o.search));
}

std::vector<PlanVariant> plan_variants(const FederateOptions& o, FleetSpec base_spec) {
  PlanVariant base{"", objective_named(o.objective), o.clock == "fedscale" ? Clock::fedscale : Clock::edgetwin,
                   std::move(base_spec)};
  std::vector<PlanVariant> out;
  for (const std::string& text : plan_texts(o)) out.push_back(variant_of(text, base, o.search.empty() ? "--compare" : "--search"));
  if (out.empty()) out.push_back(base);
  if (o.fedscale) {
    const std::size_t n = out.size();
    for (std::size_t i = 0; i < n; ++i) {
      PlanVariant twin = out[i];
      twin.clock = Clock::fedscale;
      twin.label = (out[i].label.empty() ? std::string("plan") : out[i].label) + " (FedScale's clock)";
      if (out[i].label.empty()) out[i].label = "plan";
      out.push_back(std::move(twin));
    }
  }
  for (const PlanVariant& v : out) {
    if (v.spec.round.aggregation != Aggregation::buffered) continue;
    if (v.clock == Clock::fedscale)
      throw ConfigError({v.spec.source.at("round.aggregation", "FedScale's clock has synchronous rounds only; learn "
                                                               "buffered aggregation on edgetwin's clock")});
    if (!o.checkpoint.empty())  // a plan of --compare may choose buffered aggregation itself
      throw option_error("--checkpoint", fmt::format("holds synchronous rounds; not with plan \"{}\", buffered", v.label));
  }
  return out;
}

Partition partition_of(const FleetSpec& spec, const FleetInstance& fleet, const LearningData& data) {
  std::vector<std::int64_t> sizes;
  for (const FleetDevice& d : fleet.devices) sizes.push_back(d.samples);
  const LearningSpec& l = *spec.learning;
  try {
    return partition_dataset(data.train_labels, data.classes, sizes, l.partition, l.sample_with_replacement,
                             mixed_seed(spec.seed, 0x7061727469ULL));
  } catch (const PartitionError& e) {
    throw ConfigError({spec.source.at("learning.partition", e.what())});
  }
}

ModelSource model_source(const FleetSpec& spec, const FleetInstance& fleet, const LearningData& data) {
  const LearningSpec& l = *spec.learning;
  ModelSource m;
  m.name = fleet.groups.front().inputs.workload.model;
  if (!l.torchscript.empty()) m.torchscript = fleet_relative(spec, l.torchscript);
  m.classes = data.classes;
  m.seed = spec.seed;
  m.format = data.format;
  m.crop_size = l.crop_size;
  return m;
}

// The model as built once, in a child (this process never runs LibTorch): its initial state,
// or why it does not fit the data, placed at the key that chose the model.
ModelFacts initial_model(const FleetSpec& spec, const LocalLearning& learning, ClientPool& pool) {
  std::vector<std::string> bytes;
  try {
    bytes = pool.run(1, [&](std::size_t) {
      const ModelFacts facts = learning.initial_model();
      std::string out;
      append_records(out, facts.initial_state);
      append_records(out, std::vector<std::int64_t>{facts.parameters});
      append_text(out, facts.architecture);
      return out;
    });
  } catch (const ConfigError& e) {
    const std::string key = spec.learning->torchscript.empty() ? "round.workload" : "learning.torchscript";
    throw ConfigError({spec.source.at(key, e.what())});
  }
  ChildBytesReader reader(bytes.front());
  ModelFacts facts;
  facts.initial_state = reader.records<float>();
  facts.parameters = reader.records<std::int64_t>().at(0);
  facts.architecture = reader.text();
  return facts;
}

LearningSettings learning_settings(const FleetSpec& spec, const LearningData& data, bool stop_at_target) {
  const LearningSpec& l = *spec.learning;
  LearningSettings s;
  s.client = {l.learning_rate, l.momentum, l.proximal_mu};
  s.server_learning_rate = l.server_learning_rate;
  s.server_momentum = l.server_momentum;
  s.local_epochs = std::max(1, spec.round.local_epochs);
  s.local_steps = spec.round.local_steps;
  s.rounds = spec.round.rounds;
  s.evaluate_every = l.evaluate_every;
  s.test_samples = data.test_samples;
  s.target_accuracy = l.target_accuracy;
  s.stop_at_target = stop_at_target;
  s.seed = spec.seed;
  return s;
}

// What a checkpoint must match to be resumed: the program's build, every input file read, the
// data set's files, the identifying options and the plan.
std::string run_identity(const FederateOptions& o, const LearningData& data, const PlanVariant& v) {
  std::string files;
  for (const auto* set : {data.train.get(), data.test.get()})
    for (const auto& f : set->files()) {
      std::error_code ec;
      files += fmt::format("{}:{};", f.string(), std::filesystem::file_size(f, ec));
    }
  return fmt::format("edgetwin {} build {} inputs {:016x} data {} arguments {} plan {} clock {}", EDGETWIN_VERSION,
                     build_digest(), inputs_digest(), files, fmt::join(identifying_arguments(o.arguments, kOutputOptions), " "),
                     v.label, to_string(v.clock));
}

std::string checkpoint_name(std::size_t i) { return fmt::format("plan-{}.etckpt", i + 1); }

void write_outputs(const FederateOptions& o, const LearningReport& report) {
  if (!o.plot.empty()) draw_figure(o.plot, learning_figure(report, o.plot.ends_with(".svg")));
  if (o.json) write_learning_json(std::cout, report);
  else if (o.csv) write_learning_csv(std::cout, report);
  else write_learning_table(std::cout, report);
}

LearningReport report_of(const FleetSpec& spec, const PlannedFleet& plan, const LearningData& data,
                         const ModelFacts& model, const Partition& partition) {
  LearningReport r;
  const FleetInstance& fleet = *plan.fleet;
  r.fleet = spec.name;
  r.devices = fleet.devices.size();
  r.groups = fleet.groups.size();
  r.workload = spec.round.workload;
  r.model = model.architecture;
  r.parameters = model.parameters;
  r.data = data.train_dir.string();
  r.format = spec.learning->format;
  r.train_samples = static_cast<std::int64_t>(data.train->size());
  r.test_samples = data.test_samples;
  r.classes = data.classes;
  r.learning = &*spec.learning;
  r.local_epochs = std::max(1, spec.round.local_epochs);
  r.local_steps = spec.round.local_steps;
  r.partition = &partition;
  for (const FleetDevice& d : fleet.devices) r.device_names.push_back(d.name);
  return r;
}

// What every plan of a run learns from: the partition, the model and its initial state.
struct SharedLearning {
  Partition partition;
  std::unique_ptr<LocalLearning> learning;
  ModelFacts model;
};

SharedLearning shared_learning(const FleetSpec& spec, const FleetInstance& fleet, const LearningData& data, ClientPool& pool) {
  SharedLearning s;
  s.partition = partition_of(spec, fleet, data);
  s.learning = std::make_unique<LocalLearning>(model_source(spec, fleet, data), *data.train, *data.test);
  s.model = initial_model(spec, *s.learning, pool);
  return s;
}

// A plan's learning run; a search's candidates stop at the target (what follows cannot change
// their time or energy to it).
LearningRunInputs run_inputs(const FederateOptions& o, const LearningData& data, const SharedLearning& shared,
                             const PlanVariant& v, const PlannedFleet& plan) {
  LearningRunInputs in;
  in.plan = &plan;
  in.learning = shared.learning.get();
  in.partition = &shared.partition;
  in.settings = learning_settings(v.spec, data, o.stop_at_target || !o.search.empty());
  in.initial_state = shared.model.initial_state;
  in.clock = v.clock;
  in.label = v.label;
  in.identity = run_identity(o, data, v);
  return in;
}

class ProgressLine {
 public:
  explicit ProgressLine(bool quiet) : quiet_(quiet) {}
  void say(const std::string& text) const {
    if (!quiet_) fmt::print(stderr, "edgetwin-federate: {}\n", text);
  }

 private:
  bool quiet_;
};

}  // namespace

void add_federate_options(CLI::App& app, FederateOptions& o) {
  app.add_option("--fleet", o.fleet, "Fleet with a [learning] table: a shipped name (see fleets/) or a TOML file")->required();
  app.add_option("--objective", o.objective, "The plan's objective: energy, time or balanced (as plan-round)")
      ->check(CLI::IsMember({"energy", "time", "balanced"}))
      ->capture_default_str();
  add_round_override_options(app, o.round);
  app.add_option("--partition", o.partition, "iid, dirichlet:ALPHA or shards:K (default: the fleet file's)");
  app.add_option("--target-accuracy", o.target_accuracy, "Test accuracy in (0, 1] to report the time and energy to");
  app.add_option("--evaluate-every", o.evaluate_every, "Evaluate the global model every N rounds (and at the last)");
  app.add_option("--max-test-samples", o.max_test_samples, "Evaluate on the first N test samples (0: all)");
  app.add_flag("--stop-at-target", o.stop_at_target, "End the run at the first evaluation that reaches the target");
  app.add_option("--clock", o.clock, "edgetwin (the round engine) or fedscale (FedScale's round-time formula)")
      ->check(CLI::IsMember({"edgetwin", "fedscale"}))
      ->capture_default_str();
  app.add_flag("--fedscale", o.fedscale, "Also learn each plan on FedScale's clock, side by side");
  app.add_option("--compare", o.compare,
                 "A plan to run side by side, as key=value pairs joined by commas (objective, deadline, "
                 "clients_per_round, over_commitment, aggregation, selection, clock); repeat for each plan")
      ->take_all();
  app.add_option("--search", o.search,
                 "A grid axis to search for the least energy to the target, KEY=V1|V2|... (deadline, clients_per_round, "
                 "over_commitment, objective, aggregation: sync|buffered:B, selection); repeat for each axis")
      ->allow_extra_args(false);
  app.add_option("--search-dir", o.search_dir, "Keep each finished search candidate in this directory; a rerun skips it");
  app.add_option("--time-bound", o.time_bound_s,
                 "Search: the least energy among candidates reaching the target within this many simulated seconds");
  auto* json = app.add_flag("--json", o.json, "Write the whole report as JSON instead of a table");
  app.add_flag("--csv", o.csv, "Write one CSV row per plan and round instead of a table")->excludes(json);
  app.add_option("--plot", o.plot, "Draw accuracy against simulated hours and kJ, one curve per plan (PNG or SVG)");
  app.add_option("--checkpoint", o.checkpoint,
                 "Keep a checkpoint per plan in this directory after every round, and resume from it");
  app.add_option("--jobs", o.jobs, "Clients trained at once (0: one per CPU)")->capture_default_str();
  app.add_flag("--mpi", o.mpi, "Spread each round's clients over the ranks of an MPI job (mpirun -np N ... --mpi)");
  app.add_option("--max-devices", o.max_devices, "Refuse a fleet of more devices than this")->capture_default_str();
  app.add_flag("--quiet", o.quiet, "No progress lines on stderr");
}

namespace {

double wall_seconds_since(WallClock::time_point start) { return std::chrono::duration<double>(WallClock::now() - start).count(); }

std::function<void(const RoundLearning&)> round_progress(const ProgressLine& progress, const LearningRunInputs& in) {
  return [&progress, rounds = in.settings.rounds, label = in.label, start = WallClock::now()](const RoundLearning& l) {
    progress.say(fmt::format("{}round {}/{}: {} update{}{}, {:.1f} s", label.empty() ? "" : label + ": ", l.round + 1,
                             rounds, l.updates, l.updates == 1 ? "" : "s",
                             l.evaluated ? fmt::format(", test accuracy {:.4f}", l.accuracy) : "", wall_seconds_since(start)));
  };
}

void say_learned(const ProgressLine& progress, const LearningRunResult& run) {
  progress.say(fmt::format("{}{} rounds learned in {:.1f} s{} (the clock took {:.2f} s)",
                           run.label.empty() ? "" : run.label + ": ", run.learning.size(), run.learning_wall_s,
                           run.resumed_rounds > 0 ? fmt::format(", {} replayed from the checkpoint", run.resumed_rounds) : "",
                           run.clock_wall_s));
}

// A single plan, or --compare's and --fedscale's side by side, each on after the other; returns
// the seconds spent planning (bench/federate_bench.sh reads them from the last progress line).
double learn_plans(const FederateOptions& o, const FleetSpec& spec, const std::vector<PlanVariant>& variants,
                 const LearningData& data, MpiDistribution* mpi, const ChunkSettings& chunks, const ProgressLine& progress) {
  const bool root = mpi == nullptr || mpi->rank() == 0;
  std::vector<PlannedFleet> plans;
  const auto start = WallClock::now();
  for (const PlanVariant& v : variants) plans.push_back(plan_for_learning(v.spec, v.objective, chunks));
  const double planning_s = wall_seconds_since(start);
  progress.say(fmt::format("planned {} plan{} in {:.1f} s", plans.size(), plans.size() == 1 ? "" : "s", planning_s));
  ClientPool pool(chunks.jobs, mpi);
  const SharedLearning shared = shared_learning(spec, *plans.front().fleet, data, pool);
  if (!o.checkpoint.empty() && root) std::filesystem::create_directories(o.checkpoint);
  LearningReport report = report_of(spec, plans.front(), data, shared.model, shared.partition);
  for (std::size_t i = 0; i < plans.size(); ++i) {
    LearningRunInputs in = run_inputs(o, data, shared, variants[i], plans[i]);
    if (!o.checkpoint.empty()) in.checkpoint = std::filesystem::path(o.checkpoint) / checkpoint_name(i);
    in.writes_checkpoint = root;
    in.on_learned = round_progress(progress, in);
    report.runs.push_back(plans.size() == 1 ? run_learning(in, pool) : run_learning_in_child(in, pool));
    say_learned(progress, report.runs.back());
  }
  if (root) write_outputs(o, report);
  return planning_s;
}

// A kept candidate's bytes onto its described result; bytes a checksum let through but that do
// not read as a result are the file's fault, named.
void read_kept(const CandidateStore& store, const std::string& bytes, LearningRunResult& run) {
  try {
    read_learning_result(bytes, run);
  } catch (const ChildProcessError& e) {
    throw ConfigError({Diagnostic{store.file_of(run.label).string(), 0, 0, "--search-dir",
                                  fmt::format("a damaged finished candidate: {}", e.what())}});
  }
}

// The candidates not kept yet, each learning in a child (--jobs at once, over the ranks), its
// clients in that child's own children; each child keeps its candidate once learned.
struct SearchState {
  const FleetInstance& fleet;            // the base plan's: the partition's sizes
  std::vector<std::string> identities;   // per candidate
  std::vector<std::size_t> pending;      // not kept yet
};

double learn_candidates(const FederateOptions& o, const FleetSpec& spec, const std::vector<PlanVariant>& variants,
                      const SearchState& search, const LearningData& data, MpiDistribution* mpi,
                      const ChunkSettings& chunks, const CandidateStore& store, const ProgressLine& progress,
                      SearchReport& report) {
  const std::vector<std::size_t>& pending = search.pending;
  std::vector<PlannedFleet> plans;
  const auto start = WallClock::now();
  for (const std::size_t i : pending) plans.push_back(plan_for_learning(variants[i].spec, variants[i].objective, chunks));
  const double planning_s = wall_seconds_since(start);
  ClientPool pool(chunks.jobs, mpi);
  const SharedLearning shared = shared_learning(spec, search.fleet, data, pool);
  // The CPUs a candidate's clients may use: what the candidates at once leave.
  const int client_jobs = std::max(1, chunks.jobs / static_cast<int>(std::min<std::size_t>(chunks.jobs, pending.size())));
  const auto results = pool.run(pending.size(), [&](std::size_t j) {
    const auto start = WallClock::now();
    ClientPool clients(client_jobs, nullptr);
    const LearningRunInputs in = run_inputs(o, data, shared, variants[pending[j]], plans[j]);
    const std::string bytes = learning_result_bytes(run_learning(in, clients));
    store.keep(in.label, search.identities[pending[j]], bytes);
    progress.say(fmt::format("candidate {}: learned in {:.1f} s", in.label, wall_seconds_since(start)));
    return bytes;
  });
  for (std::size_t j = 0; j < pending.size(); ++j) read_learning_result(results[j], report.runs[pending[j]]);
  return planning_s;
}

void write_search_outputs(const FederateOptions& o, const SearchReport& report) {
  if (!o.plot.empty()) draw_figure(o.plot, search_figure(report, o.plot.ends_with(".svg")));
  if (o.json) write_search_json(std::cout, report);
  else if (o.csv) write_search_csv(std::cout, report);
  else write_search_table(std::cout, report);
}

// --search: every candidate of the grid, read back where --search-dir keeps it finished. The
// identities are taken once every input file is read (the fleet instantiated), before anything
// is planned, so that a rerun compares them before planning too. Returns the seconds planning.
double search_plans(const FederateOptions& o, const FleetSpec& spec, const std::vector<PlanVariant>& variants,
                  const LearningData& data, MpiDistribution* mpi, const ChunkSettings& chunks, const ProgressLine& progress) {
  const CandidateStore store(o.search_dir);
  if (store.enabled()) std::filesystem::create_directories(o.search_dir);  // every rank's children keep candidates
  const FleetInstance fleet = instantiate_fleet(spec);
  SearchState search{fleet, {}, {}};
  SearchReport report{spec.name, *spec.learning->target_accuracy, o.time_bound_s, {}};
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const PlanVariant& v = variants[i];
    report.runs.push_back(described(v.spec, v.objective, v.clock, v.label));
    search.identities.push_back(run_identity(o, data, v));
    if (const auto kept = store.finished(v.label, search.identities.back())) read_kept(store, *kept, report.runs.back());
    else search.pending.push_back(i);
  }
  progress.say(fmt::format("search: {} candidates, {} finished in an earlier run{}, {} to learn", variants.size(),
                           variants.size() - search.pending.size(), store.enabled() ? " (" + o.search_dir + ")" : "",
                           search.pending.size()));
  const double planning_s =
      search.pending.empty() ? 0 : learn_candidates(o, spec, variants, search, data, mpi, chunks, store, progress, report);
  if (mpi == nullptr || mpi->rank() == 0) write_search_outputs(o, report);
  return planning_s;
}

}  // namespace

int run_federate(const FederateOptions& o) {
  const auto start = WallClock::now();
  const ProgressLine progress(o.quiet);
  const FleetSpec spec = load_base_spec(o);
  const std::vector<PlanVariant> variants = plan_variants(o, spec);
  if (o.mpi && variants.size() > 1 && o.search.empty())
    throw option_error("--mpi", "runs one plan (its round engine is each rank's one engine); run --compare or "
                                "--fedscale without --mpi, or one mpirun per plan");
  const LearningData data = open_learning_data(spec);
  std::unique_ptr<MpiDistribution> mpi = o.mpi ? make_mpi_distribution(false, true) : nullptr;
  ChunkSettings chunks;
  chunks.jobs = o.jobs > 0 ? o.jobs : default_jobs();
  const double planning_s = o.search.empty() ? learn_plans(o, spec, variants, data, mpi.get(), chunks, progress)
                                             : search_plans(o, spec, variants, data, mpi.get(), chunks, progress);
  progress.say(fmt::format("wall time {:.1f} s (planning {:.1f} s)", wall_seconds_since(start), planning_s));
  return 0;
}

}  // namespace edgetwin::federate
