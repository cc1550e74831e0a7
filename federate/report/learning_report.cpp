#include "federate/report/learning_report.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

namespace edgetwin::federate {
namespace {

constexpr double kSecondsPerHour = 3600;

std::string partition_text(const PartitionSpec& p) {
  switch (p.kind) {
    case PartitionSpec::Kind::dirichlet: return fmt::format("label-Dirichlet(alpha = {})", p.alpha);
    case PartitionSpec::Kind::shards: return fmt::format("shards ({} classes a device)", p.classes_per_client);
    case PartitionSpec::Kind::iid: break;
  }
  return "iid";
}

std::string partition_kind(const PartitionSpec& p) {
  switch (p.kind) {
    case PartitionSpec::Kind::dirichlet: return "dirichlet";
    case PartitionSpec::Kind::shards: return "shards";
    case PartitionSpec::Kind::iid: break;
  }
  return "iid";
}

nlohmann::json counted_devices(const LearningReport& r, const LearningRunResult& run, int round) {
  nlohmann::json names = nlohmann::json::array();
  for (const TaskOutcome& t : run.outcome.tasks)
    if (t.round == round && t.counted) names.push_back(r.device_names[t.device]);
  return names;
}

int stragglers(const LearningRunResult& run, int round) {
  int n = 0;
  for (const TaskOutcome& t : run.outcome.tasks) n += t.round == round && !t.counted ? 1 : 0;
  return n;
}

std::vector<double> cumulative(const std::vector<double>& values) {
  std::vector<double> out;
  double sum = 0;
  for (const double v : values) out.push_back(sum += v);
  return out;
}

std::string plan_text(const LearningRunResult& run) {
  if (run.buffer_size > 0)
    return fmt::format("objective {}, deadline {:.1f} s per task, buffered aggregation B = {}, {} versions (the rounds "
                       "below), clock {}",
                       to_string(run.objective), run.deadline_s, run.buffer_size, run.rounds_planned, to_string(run.clock));
  return fmt::format("objective {}, deadline {:.1f} s, K = {}, over-commitment {}, {} rounds, clock {}",
                     to_string(run.objective), run.deadline_s, run.clients_per_round, run.over_commitment,
                     run.rounds_planned, to_string(run.clock));
}

std::string run_name(const LearningRunResult& run, std::size_t i) {
  return run.label.empty() ? fmt::format("plan {}", i + 1) : run.label;
}

void write_header(std::ostream& out, const LearningReport& r) {
  const LearningSpec& l = *r.learning;
  fmt::print(out, "edgetwin-federate: {} ({} devices in {} groups), workload {}, model {} ({} parameters)\n", r.fleet,
             r.devices, r.groups, r.workload, r.model, r.parameters);
  fmt::print(out, "accuracy from real LibTorch training on this host ({} {}: {} training, {} test samples); times and "
                  "energy simulated for the fleet's devices\n",
             r.format, r.data, r.train_samples, r.test_samples);
  fmt::print(out, "partition {}; local SGD lr {} momentum {}{}, {}, batch as planned; server {}\n", partition_text(l.partition),
             l.learning_rate, l.momentum, l.proximal_mu > 0 ? fmt::format(", FedProx mu {}", l.proximal_mu) : std::string(),
             r.local_steps > 0 ? fmt::format("{} local steps", r.local_steps) : fmt::format("{} local epoch(s)", r.local_epochs),
             l.server_momentum > 0 || l.server_learning_rate != 1
                 ? fmt::format("FedAvgM (lr {}, momentum {})", l.server_learning_rate, l.server_momentum)
                 : std::string("FedAvg"));
}

std::string target_text(const TargetResult& t, std::optional<double> target) {
  if (!target) return fmt::format("best accuracy {:.4f} at round {}", t.best_accuracy, t.best_round);
  if (!t.reached)
    return fmt::format("target accuracy {}: not reached; best {:.4f} at round {}", *target, t.best_accuracy, t.best_round);
  return fmt::format("target accuracy {}: reached at round {}, {:.1f} s ({:.3f} h), {}", *target, t.round, t.time_s,
                     t.time_s / kSecondsPerHour,
                     t.energy_j ? fmt::format("{:.1f} kJ", *t.energy_j / 1e3) : std::string("energy not modelled (FedScale's clock)"));
}

void write_run(std::ostream& out, const LearningReport& r, const LearningRunResult& run, std::size_t i) {
  fmt::print(out, "\n{}: {}\n", run_name(run, i), plan_text(run));
  fmt::print(out, "{:>5} {:>10} {:>10} {:>8} {:>10} {:>10} {:>9} {:>9} {:>10}\n", "round", "start_s", "end_s", "counted",
             "stragglers", "train_loss", "accuracy", "test_loss", "energy_kJ");
  const auto energy = cumulative(run.energy_j);
  for (std::size_t k = 0; k < run.learning.size(); ++k) {
    const RoundOutcome& o = run.outcome.rounds[k];
    const RoundLearning& l = run.learning[k];
    fmt::print(out, "{:>5} {:>10.1f} {:>10.1f} {:>8} {:>10} {:>10} {:>9} {:>9} {:>10}\n", o.round + 1, o.start_s, o.end_s,
               o.counted, stragglers(run, o.round), l.updates > 0 ? fmt::format("{:.4f}", l.train_loss) : "-",
               l.evaluated ? fmt::format("{:.4f}", l.accuracy) : "-", l.evaluated ? fmt::format("{:.4f}", l.test_loss) : "-",
               energy.empty() ? "-" : fmt::format("{:.1f}", energy[k] / 1e3));
  }
  fmt::print(out, "{}\n", target_text(time_to_target(run, r.learning->target_accuracy), r.learning->target_accuracy));
}

void write_comparison(std::ostream& out, const LearningReport& r) {
  std::size_t width = 4;
  for (std::size_t i = 0; i < r.runs.size(); ++i) width = std::max(width, run_name(r.runs[i], i).size());
  fmt::print(out, "\n{:<{}} {:>9} {:>7} {:>10} {:>8} {:>10} {:>9} {:>9}\n", "plan", width, "clock", "rounds", "time_s",
             "hours", "kJ", "best_acc", "at_round");
  for (std::size_t i = 0; i < r.runs.size(); ++i) {
    const TargetResult t = time_to_target(r.runs[i], r.learning->target_accuracy);
    fmt::print(out, "{:<{}} {:>9} {:>7} {:>10} {:>8} {:>10} {:>9.4f} {:>9}\n", run_name(r.runs[i], i), width,
               to_string(r.runs[i].clock), t.reached ? fmt::format("{}", t.round) : "-",
               t.reached ? fmt::format("{:.1f}", t.time_s) : "-",
               t.reached ? fmt::format("{:.3f}", t.time_s / kSecondsPerHour) : "-",
               t.reached && t.energy_j ? fmt::format("{:.1f}", *t.energy_j / 1e3) : "-", t.best_accuracy, t.best_round);
  }
  if (r.learning->target_accuracy)
    fmt::print(out, "(rounds, hours and kJ to reach test accuracy {}; - where not reached or not modelled)\n",
               *r.learning->target_accuracy);
}

nlohmann::json number_or_null(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json run_json(const LearningReport& r, const LearningRunResult& run) {
  const auto energy = cumulative(run.energy_j);
  nlohmann::json rounds = nlohmann::json::array();
  for (std::size_t k = 0; k < run.learning.size(); ++k) {
    const RoundOutcome& o = run.outcome.rounds[k];
    const RoundLearning& l = run.learning[k];
    rounds.push_back({{"round", o.round + 1},
                      {"start_s", o.start_s},
                      {"end_s", o.end_s},
                      {"selected", o.selected},
                      {"counted", o.counted},
                      {"counted_devices", counted_devices(r, run, o.round)},
                      {"stragglers", stragglers(run, o.round)},
                      {"samples", l.samples},
                      {"train_loss", l.updates > 0 ? nlohmann::json(l.train_loss) : nlohmann::json(nullptr)},
                      {"accuracy", l.evaluated ? nlohmann::json(l.accuracy) : nlohmann::json(nullptr)},
                      {"test_loss", l.evaluated ? nlohmann::json(l.test_loss) : nlohmann::json(nullptr)},
                      {"energy_j", energy.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.energy_j[k])},
                      {"cumulative_energy_j", energy.empty() ? nlohmann::json(nullptr) : nlohmann::json(energy[k])}});
  }
  const TargetResult t = time_to_target(run, r.learning->target_accuracy);
  nlohmann::json target = {{"accuracy", number_or_null(r.learning->target_accuracy)},
                           {"reached", t.reached},
                           {"best_accuracy", t.best_accuracy},
                           {"best_round", t.best_round}};
  if (t.reached) target.update({{"round", t.round}, {"time_s", t.time_s}, {"energy_j", number_or_null(t.energy_j)}});
  return {{"label", run.label},
          {"clock", to_string(run.clock)},
          {"plan", {{"objective", to_string(run.objective)},
                    {"deadline_s", run.deadline_s},
                    {"clients_per_round", run.clients_per_round},
                    {"over_commitment", run.over_commitment},
                    {"rounds", run.rounds_planned}}},
          {"rounds", rounds},
          {"target", target}};
}

nlohmann::json partition_json(const LearningReport& r) {
  nlohmann::json devices = nlohmann::json::array();
  for (std::size_t d = 0; d < r.device_names.size(); ++d)
    devices.push_back({{"name", r.device_names[d]},
                       {"samples", r.partition->indices[d].size()},
                       {"labels", r.partition->histogram[d]}});
  const PartitionSpec& p = r.learning->partition;
  nlohmann::json j = {{"kind", partition_kind(p)}, {"with_replacement", r.learning->sample_with_replacement}, {"devices", devices}};
  if (p.kind == PartitionSpec::Kind::dirichlet) j["alpha"] = p.alpha;
  if (p.kind == PartitionSpec::Kind::shards) j["classes_per_client"] = p.classes_per_client;
  return j;
}

}  // namespace

TargetResult time_to_target(const LearningRunResult& run, std::optional<double> target) {
  TargetResult t;
  double energy = 0;
  for (std::size_t k = 0; k < run.learning.size(); ++k) {
    const RoundLearning& l = run.learning[k];
    if (!run.energy_j.empty()) energy += run.energy_j[k];
    if (!l.evaluated) continue;
    if (t.best_round == 0 || l.accuracy > t.best_accuracy) {
      t.best_accuracy = l.accuracy;
      t.best_round = static_cast<int>(k) + 1;
    }
    if (target && !t.reached && l.accuracy >= *target) {
      t.reached = true;
      t.round = static_cast<int>(k) + 1;
      t.time_s = run.outcome.rounds[k].end_s;
      if (!run.energy_j.empty()) t.energy_j = energy;
    }
  }
  return t;
}

void write_learning_table(std::ostream& out, const LearningReport& r) {
  write_header(out, r);
  for (std::size_t i = 0; i < r.runs.size(); ++i) write_run(out, r, r.runs[i], i);
  if (r.runs.size() > 1) write_comparison(out, r);
}

void write_learning_json(std::ostream& out, const LearningReport& r) {
  const LearningSpec& l = *r.learning;
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& run : r.runs) runs.push_back(run_json(r, run));
  const nlohmann::json j = {
      {"fleet", r.fleet},
      {"devices", r.devices},
      {"workload", r.workload},
      {"model", {{"architecture", r.model}, {"parameters", r.parameters}}},
      {"data", {{"format", r.format}, {"train_dir", r.data}, {"train_samples", r.train_samples},
                {"test_samples", r.test_samples}, {"classes", r.classes}}},
      {"accuracy_source", "real LibTorch training on this host; times and energy simulated for the fleet's devices"},
      {"learning", {{"learning_rate", l.learning_rate},
                    {"momentum", l.momentum},
                    {"proximal_mu", l.proximal_mu},
                    {"server_learning_rate", l.server_learning_rate},
                    {"server_momentum", l.server_momentum},
                    {"local_epochs", r.local_steps > 0 ? 0 : r.local_epochs},
                    {"local_steps", r.local_steps},
                    {"evaluate_every", l.evaluate_every},
                    {"target_accuracy", number_or_null(l.target_accuracy)}}},
      {"partition", partition_json(r)},
      {"runs", runs}};
  out << j.dump(2) << '\n';
}

void write_learning_csv(std::ostream& out, const LearningReport& r) {
  fmt::print(out, "plan,clock,round,start_s,end_s,selected,counted,stragglers,samples,train_loss,accuracy,test_loss,"
                  "energy_j,cumulative_energy_j\n");
  for (std::size_t i = 0; i < r.runs.size(); ++i) {
    const LearningRunResult& run = r.runs[i];
    const auto energy = cumulative(run.energy_j);
    for (std::size_t k = 0; k < run.learning.size(); ++k) {
      const RoundOutcome& o = run.outcome.rounds[k];
      const RoundLearning& l = run.learning[k];
      fmt::print(out, "\"{}\",{},{},{:.9g},{:.9g},{},{},{},{},{},{},{},{},{}\n", run_name(run, i), to_string(run.clock),
                 o.round + 1, o.start_s, o.end_s, o.selected, o.counted, stragglers(run, o.round), l.samples,
                 l.updates > 0 ? fmt::format("{:.9g}", l.train_loss) : "", l.evaluated ? fmt::format("{:.9g}", l.accuracy) : "",
                 l.evaluated ? fmt::format("{:.9g}", l.test_loss) : "",
                 energy.empty() ? "" : fmt::format("{:.9g}", run.energy_j[k]),
                 energy.empty() ? "" : fmt::format("{:.9g}", energy[k]));
    }
  }
}

// Hours once the runs last two of them, seconds before.
double time_unit_s(const LearningReport& r) {
  double last = 0;
  for (const auto& run : r.runs) last = std::max(last, run.outcome.rounds.empty() ? 0.0 : run.outcome.rounds.back().end_s);
  return last >= 2 * kSecondsPerHour ? kSecondsPerHour : 1.0;
}

Figure learning_figure(const LearningReport& r, bool svg) {
  Figure f;
  f.terminal = (svg ? "svg size 1200,500 dynamic" : "pngcairo size 1200,500") + std::string(" noenhanced");
  const double unit_s = time_unit_s(r);
  std::string plot_hours, plot_energy;
  for (std::size_t i = 0; i < r.runs.size(); ++i) {
    const LearningRunResult& run = r.runs[i];
    const auto energy = cumulative(run.energy_j);
    for (std::size_t k = 0; k < run.learning.size(); ++k) {
      if (!run.learning[k].evaluated) continue;
      f.data += fmt::format("{} {:.9g} {:.9g} {}\n", i, run.outcome.rounds[k].end_s / unit_s,
                            run.learning[k].accuracy, energy.empty() ? "NaN" : fmt::format("{:.9g}", energy[k] / 1e3));
    }
    f.data += "\n\n";  // one gnuplot index per plan
    const std::string title = gnuplot_quoted(fmt::format("{} ({})", run_name(run, i), to_string(run.clock)));
    plot_hours += fmt::format("{}$data index {} using 2:3 with linespoints title {}", plot_hours.empty() ? "" : ", ", i, title);
    if (!energy.empty())
      plot_energy += fmt::format("{}$data index {} using 4:3 with linespoints title {}", plot_energy.empty() ? "" : ", ", i, title);
  }
  const std::string target = r.learning->target_accuracy
                                 ? fmt::format(", {} with lines dashtype 2 lc rgb 'gray' title 'target'", *r.learning->target_accuracy)
                                 : std::string();
  f.commands = fmt::format(
      "set multiplot layout 1,2 title {}\n"
      "set key bottom right\nset grid\nset ylabel 'test accuracy'\n"
      "set xlabel 'simulated time ({})'\nplot {}{}\n"
      "set xlabel 'fleet energy (kJ)'\n{}\n"
      "unset multiplot\n",
      gnuplot_quoted(fmt::format("{}: accuracy from real training, time and energy simulated", r.fleet)),
      unit_s == 1.0 ? "s" : "h", plot_hours, target,
      plot_energy.empty() ? "set label 1 'no plan on an energy clock' at graph 0.3,0.5\nplot 0 notitle"
                          : "plot " + plot_energy + target);
  return f;
}

}  // namespace edgetwin::federate
