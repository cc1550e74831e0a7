#include "calibrate/import/host_watch_check.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <cmath>
#include <optional>
#include <system_error>
#include <sstream>

#include <fmt/format.h>

#include "calibrate/import/csv_table.hpp"
#include "sim/config/config_error.hpp"

namespace edgetwin::calibrate {
namespace {

// A probe is about 1 ms of arithmetic; one of over 10 s is no probe of that loop.
constexpr double kLongestProbe_s = 10;
constexpr double kHighestCpu = 4095;

// A time on the steady clock (seconds since boot), >= 0; NaN with a problem recorded otherwise.
double clock_time(const CsvTable& t, std::size_t row, const std::string& column, std::vector<Diagnostic>& problems) {
  const std::size_t before = problems.size();
  const double value = t.number(row, column, problems);
  if (problems.size() > before) return value;
  if (value < 0) {
    problems.push_back(t.diagnostic(row, column, fmt::format("expected a steady-clock time >= 0 s, got {}", value)));
    return std::nan("");
  }
  return value;
}

std::vector<HostProbe> read_probes(const std::filesystem::path& file, std::vector<Diagnostic>& problems) {
  const CsvTable t = CsvTable::read(file);
  t.require_columns({"at_s", "cpu", "seconds"});
  std::vector<HostProbe> probes;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    HostProbe p;
    p.at_s = clock_time(t, r, "at_s", problems);
    p.cpu = static_cast<int>(t.whole_number(r, "cpu", 0, kHighestCpu, problems));
    const std::size_t before = problems.size();
    p.seconds = t.number(r, "seconds", problems);
    if (problems.size() == before && !(p.seconds > 0 && p.seconds <= kLongestProbe_s))
      problems.push_back(t.diagnostic(r, "seconds", fmt::format("expected a probe's time in (0, {:g}] s, got {}",
                                                                kLongestProbe_s, p.seconds)));
    probes.push_back(p);
  }
  return probes;
}

std::vector<int> cpu_list(const CsvTable& t, std::size_t row, std::vector<Diagnostic>& problems) {
  std::vector<int> cpus;
  std::istringstream words(t.text(row, "cpus"));
  for (std::string word; words >> word;) {
    int cpu = -1;
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), cpu);
    if (ec != std::errc{} || end != word.data() + word.size() || cpu < 0 || cpu > kHighestCpu) {
      problems.push_back(t.diagnostic(row, "cpus", fmt::format("expected CPU numbers separated by spaces, got \"{}\"",
                                                               t.text(row, "cpus"))));
      return {};
    }
    cpus.push_back(cpu);
  }
  return cpus;
}

// The file a trace names, for matching a run (the runs file names it as given, or by the absolute
// path edgetwin_trace records) to the trace as the import was given it; the name itself where the
// file system cannot say.
std::filesystem::path file_named(const std::string& trace) {
  std::error_code error;
  const auto file = std::filesystem::weakly_canonical(trace, error);
  return error ? std::filesystem::path(trace) : file;
}

// traces: this import's, as given; nullopt: every run is judged (a watched session's summary).
std::vector<WatchedRun> read_runs(const std::filesystem::path& file, const std::optional<std::vector<std::string>>& traces,
                                  std::vector<Diagnostic>& problems) {
  const CsvTable t = CsvTable::read(file);
  t.require_columns({"trace", "from_s", "to_s", "cpus"});
  std::vector<std::filesystem::path> given_files;
  if (traces) std::transform(traces->begin(), traces->end(), std::back_inserter(given_files), file_named);
  std::vector<WatchedRun> runs;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    WatchedRun run{t.text(r, "trace"), clock_time(t, r, "from_s", problems), clock_time(t, r, "to_s", problems),
                   cpu_list(t, r, problems)};
    if (run.to_s < run.from_s)
      problems.push_back(t.diagnostic(r, "to_s", fmt::format("the run ends ({}) before it starts ({})", run.to_s,
                                                             run.from_s)));
    // The file may record a whole session's runs: all of them give the session's rate of slow
    // probes, and this import judges its own.
    if (!traces) {
      run.given = run.trace;
    } else {
      const auto given = std::find(given_files.begin(), given_files.end(), file_named(run.trace));
      if (given != given_files.end()) run.given = (*traces)[static_cast<std::size_t>(given - given_files.begin())];
    }
    runs.push_back(std::move(run));
  }
  if (traces && t.rows() > 0 && std::none_of(runs.begin(), runs.end(), [](const WatchedRun& r) { return r.judged(); }))
    problems.push_back({file.string(), 0, 0, "trace",
                        fmt::format("none of its runs is a trace of this import (expected the --trace, --share-trace "
                                    "or --cold-then-warm-trace files as given, such as {})",
                                    traces->empty() ? std::string("none") : traces->front())});
  return runs;
}

HostWatch read_watch(const HostWatchFiles& files, const std::optional<std::vector<std::string>>& traces) {
  std::vector<Diagnostic> problems;
  HostWatch watch{read_probes(files.probes, problems), read_runs(files.runs, traces, problems)};
  if (!problems.empty()) throw ConfigError(std::move(problems));
  return watch;
}

}  // namespace

HostWatch read_host_watch(const HostWatchFiles& files, const std::vector<std::string>& traces) {
  return read_watch(files, traces);
}

HostWatch read_watched_session(const HostWatchFiles& files) { return read_watch(files, std::nullopt); }

std::vector<std::string> unwatched_traces(const HostWatch& watch, const std::vector<std::string>& traces) {
  std::vector<std::filesystem::path> watched;
  for (const auto& run : watch.runs)
    if (run.judged()) watched.push_back(file_named(run.given));
  std::vector<std::string> out;
  for (const auto& given : traces)
    if (std::find(watched.begin(), watched.end(), file_named(given)) == watched.end()) out.push_back(given);
  return out;
}

std::vector<Disturbance> host_disturbances(const HostWatch& watch, const HostWatchFiles& files) {
  const auto reference = reference_probe_s(watch.probes);
  if (!reference) return {};
  std::vector<HostSlowdown> slowdowns;
  for (const auto& run : watch.runs)
    slowdowns.push_back(host_slowdown(probes_within(watch.probes, run.from_s, run.to_s), run.cpus, *reference));
  std::vector<Disturbance> found;
  for (std::size_t i = 0; i < watch.runs.size(); ++i) {
    const HostSlowdown& s = slowdowns[i];
    const auto rate = session_slow_probe_rate(slowdowns, i);
    if (!watch.runs[i].judged() || !rate || !slower_than_rate(s, *rate)) continue;
    found.push_back({watch.runs[i].given, "host", describe_slow_run(s, *rate) + " (" + files.probes.string() + ")"});
  }
  return found;
}

}  // namespace edgetwin::calibrate
