#include "federate/search/search_report.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "federate/report/learning_report.hpp"
#include "sim/config/fleet_loader.hpp"

namespace edgetwin::federate {
namespace {

constexpr double kSecondsAnHour = 3600;

// The same point, one earlier in grid order, or one that does at least as well on both and
// strictly better on one.
bool dominates(const SearchPoint& a, std::size_t ia, const SearchPoint& b, std::size_t ib) {
  if (a.time_s == b.time_s && a.energy_j == b.energy_j) return ia < ib;
  return a.time_s <= b.time_s && a.energy_j <= b.energy_j;
}

std::vector<SearchPoint> points_of(const SearchReport& r) {
  std::vector<SearchPoint> out;
  for (const LearningRunResult& run : r.runs) {
    const TargetResult t = time_to_target(run, r.target_accuracy);
    out.push_back({t.reached && t.energy_j.has_value(), t.time_s, t.energy_j.value_or(0)});
  }
  return out;
}

bool within(const SearchPoint& p, std::optional<double> bound_s) { return p.reached && (!bound_s || p.time_s <= *bound_s); }

std::string bound_text(std::optional<double> bound_s) {
  return bound_s ? fmt::format("within {:.1f} s ({:.3f} h)", *bound_s, *bound_s / kSecondsAnHour) : "with no time bound";
}

// One word per plan setting, as the JSON and CSV name them.
std::string aggregation_text(const LearningRunResult& run) {
  return run.buffer_size > 0 ? fmt::format("buffered:{}", run.buffer_size) : "sync";
}

// What the search found, computed once for every writer.
struct Findings {
  std::vector<SearchPoint> points;
  std::vector<std::size_t> frontier;
  std::optional<std::size_t> best;
  bool on_frontier(std::size_t i) const { return std::find(frontier.begin(), frontier.end(), i) != frontier.end(); }
};

Findings findings_of(const SearchReport& r) {
  Findings f;
  f.points = points_of(r);
  f.frontier = energy_time_frontier(f.points);
  f.best = least_energy_within(f.points, r.time_bound_s);
  return f;
}

std::string choice_text(const SearchReport& r, const Findings& f) {
  if (!f.best)
    return fmt::format("no candidate reached test accuracy {} {}", r.target_accuracy, bound_text(r.time_bound_s));
  const SearchPoint& p = f.points[*f.best];
  return fmt::format("least energy to test accuracy {} {}: {} ({:.1f} kJ in {:.1f} s)", r.target_accuracy,
                     bound_text(r.time_bound_s), r.runs[*f.best].label, p.energy_j / 1e3, p.time_s);
}

nlohmann::json candidate_json(const SearchReport& r, const Findings& f, std::size_t i) {
  const LearningRunResult& run = r.runs[i];
  const TargetResult t = time_to_target(run, r.target_accuracy);
  nlohmann::json target = {{"reached", t.reached}, {"best_accuracy", t.best_accuracy}, {"best_round", t.best_round}};
  if (t.reached) target.update({{"round", t.round}, {"time_s", t.time_s}, {"energy_j", t.energy_j.value_or(0)}});
  return {{"label", run.label},
          {"plan", {{"objective", to_string(run.objective)},
                    {"deadline_s", run.deadline_s},
                    {"clients_per_round", run.clients_per_round},
                    {"over_commitment", run.over_commitment},
                    {"aggregation", aggregation_text(run)},
                    {"selection", to_string(run.selection)},
                    {"rounds", run.rounds_planned}}},
          {"target", target},
          {"within_bound", within(f.points[i], r.time_bound_s)},
          {"on_frontier", f.on_frontier(i)}};
}

std::string or_dash(bool present, const std::string& text) { return present ? text : "-"; }

}  // namespace

std::vector<std::size_t> energy_time_frontier(const std::vector<SearchPoint>& points) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!points[i].reached) continue;
    bool dominated = false;
    for (std::size_t j = 0; j < points.size() && !dominated; ++j)
      dominated = j != i && points[j].reached && dominates(points[j], j, points[i], i);
    if (!dominated) out.push_back(i);
  }
  std::stable_sort(out.begin(), out.end(), [&](std::size_t a, std::size_t b) { return points[a].time_s < points[b].time_s; });
  return out;
}

std::optional<std::size_t> least_energy_within(const std::vector<SearchPoint>& points, std::optional<double> bound_s) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!within(points[i], bound_s)) continue;
    const auto key = [&](std::size_t k) { return std::pair(points[k].energy_j, points[k].time_s); };
    if (!best || key(i) < key(*best)) best = i;
  }
  return best;
}

void write_search_table(std::ostream& out, const SearchReport& r) {
  const Findings f = findings_of(r);
  std::size_t width = 9;
  for (const auto& run : r.runs) width = std::max(width, run.label.size());
  fmt::print(out, "edgetwin-federate --search: {}, {} candidates; target test accuracy {}, {}\n", r.fleet, r.runs.size(),
             r.target_accuracy, bound_text(r.time_bound_s));
  fmt::print(out, "{:<{}} {:>7} {:>10} {:>8} {:>10} {:>9} {:>9} {:>8}\n", "candidate", width, "rounds", "time_s", "hours",
             "kJ", "best_acc", "at_round", "frontier");
  for (std::size_t i = 0; i < r.runs.size(); ++i) {
    const TargetResult t = time_to_target(r.runs[i], r.target_accuracy);
    const SearchPoint& p = f.points[i];
    fmt::print(out, "{:<{}} {:>7} {:>10} {:>8} {:>10} {:>9.4f} {:>9} {:>8}\n", r.runs[i].label, width,
               or_dash(p.reached, fmt::format("{}", t.round)), or_dash(p.reached, fmt::format("{:.1f}", p.time_s)),
               or_dash(p.reached, fmt::format("{:.3f}", p.time_s / kSecondsAnHour)),
               or_dash(p.reached, fmt::format("{:.1f}", p.energy_j / 1e3)), t.best_accuracy, t.best_round,
               f.on_frontier(i) ? (f.best == i ? "yes, best" : "yes") : "");
  }
  fmt::print(out, "(rounds, hours and kJ to reach the target; - where not reached)\n{}\n", choice_text(r, f));
}

void write_search_json(std::ostream& out, const SearchReport& r) {
  const Findings f = findings_of(r);
  nlohmann::json candidates = nlohmann::json::array();
  for (std::size_t i = 0; i < r.runs.size(); ++i) candidates.push_back(candidate_json(r, f, i));
  nlohmann::json frontier = nlohmann::json::array();
  for (const std::size_t i : f.frontier) frontier.push_back(r.runs[i].label);
  const nlohmann::json j = {
      {"fleet", r.fleet},
      {"target_accuracy", r.target_accuracy},
      {"time_bound_s", r.time_bound_s ? nlohmann::json(*r.time_bound_s) : nlohmann::json(nullptr)},
      {"candidates", candidates},
      {"frontier", frontier},
      {"best", f.best ? nlohmann::json(r.runs[*f.best].label) : nlohmann::json(nullptr)},
      {"finding", choice_text(r, f)}};
  out << j.dump(2) << '\n';
}

void write_search_csv(std::ostream& out, const SearchReport& r) {
  const Findings f = findings_of(r);
  fmt::print(out, "candidate,objective,deadline_s,clients_per_round,over_commitment,aggregation,selection,reached,round,"
                  "time_s,energy_j,best_accuracy,within_bound,on_frontier,best\n");
  for (std::size_t i = 0; i < r.runs.size(); ++i) {
    const LearningRunResult& run = r.runs[i];
    const TargetResult t = time_to_target(run, r.target_accuracy);
    const SearchPoint& p = f.points[i];
    fmt::print(out, "\"{}\",{},{:.9g},{},{:.9g},{},{},{},{},{},{},{:.9g},{},{},{}\n", run.label, to_string(run.objective),
               run.deadline_s, run.clients_per_round, run.over_commitment, aggregation_text(run), to_string(run.selection),
               p.reached, p.reached ? fmt::format("{}", t.round) : "", p.reached ? fmt::format("{:.9g}", p.time_s) : "",
               p.reached ? fmt::format("{:.9g}", p.energy_j) : "", t.best_accuracy, within(p, r.time_bound_s),
               f.on_frontier(i), f.best == i);
  }
}

Figure search_figure(const SearchReport& r, bool svg) {
  const Findings f = findings_of(r);
  Figure fig;
  fig.terminal = (svg ? "svg size 900,600 dynamic" : "pngcairo size 900,600") + std::string(" noenhanced");
  double last_s = r.time_bound_s.value_or(0);
  for (const SearchPoint& p : f.points) last_s = std::max(last_s, p.reached ? p.time_s : 0);
  const double unit_s = last_s >= 2 * kSecondsAnHour ? kSecondsAnHour : 1.0;
  const auto row = [&](std::size_t i) {
    std::string label = r.runs[i].label;
    std::replace(label.begin(), label.end(), '"', '\'');  // a datablock's strings are in double quotes
    return fmt::format("{:.9g} {:.9g} \"{}\"\n", f.points[i].time_s / unit_s, f.points[i].energy_j / 1e3, label);
  };
  for (std::size_t i = 0; i < f.points.size(); ++i) fig.data += f.points[i].reached ? row(i) : "";
  fig.data += "\n\n";
  for (const std::size_t i : f.frontier) fig.data += row(i);
  fig.data += "\n\n";
  if (f.best) fig.data += row(*f.best);
  const std::string bound =
      r.time_bound_s ? fmt::format("set arrow from {:.9g}, graph 0 to {:.9g}, graph 1 nohead dashtype 2 lc rgb 'gray'\n",
                                   *r.time_bound_s / unit_s, *r.time_bound_s / unit_s)
                     : std::string();
  std::string plot = "plot $data index 0 using 1:2 with points pt 6 title 'candidate', "
                     "$data index 1 using 1:2 with linespoints pt 7 title 'frontier', "
                     "$data index 1 using 1:2:3 with labels offset 1,1 left font ',8' notitle";
  if (f.best) plot += ", $data index 2 using 1:2 with points pt 3 ps 3 lc rgb 'red' title 'least energy within the bound'";
  if (f.frontier.empty()) plot = "set label 1 'no candidate reached the target' at graph 0.3,0.5\nplot 0 notitle";
  fig.commands = fmt::format(
      "set title {}\nset grid\nset key top right\nset xlabel 'time to the target, simulated ({})'\n"
      "set ylabel 'fleet energy to the target (kJ)'\nset xrange [0:{:.9g}]\nset yrange [0:*]\n{}{}\n",
      gnuplot_quoted(fmt::format("{}: {} candidates, time and energy to test accuracy {}", r.fleet, r.runs.size(),
                                 r.target_accuracy)),
      unit_s == 1.0 ? "s" : "h", 1.1 * last_s / unit_s, bound, plot);
  return fig;
}

}  // namespace edgetwin::federate
