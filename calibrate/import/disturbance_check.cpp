#include "calibrate/import/disturbance_check.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "calibrate/profile/measurement.hpp"

namespace edgetwin::calibrate {
namespace {

// Steps shorter than this are left out of the ratios: their jitter is the clock's and the
// scheduler's, not a neighbour's (the tests' toy steps take tens of microseconds).
constexpr double kMinStepForRatio_s = 1e-3;

std::vector<std::vector<BatchRecord>> rows_by_file(const std::vector<BatchRecord>& rows, std::size_t files,
                                                   int skip_epochs) {
  std::vector<std::vector<BatchRecord>> by_file(files);
  for (const auto& b : rows)
    if (b.epoch >= skip_epochs && !b.timed_alone() && b.file >= 0 && static_cast<std::size_t>(b.file) < files)
      by_file[static_cast<std::size_t>(b.file)].push_back(b);
  return by_file;
}

std::optional<Disturbance> other_processes(const std::vector<BatchRecord>& rows, const std::string& file) {
  double other_s = 0, wall_s = 0;
  for (const auto& b : rows) {
    if (std::isnan(b.other_cpu_s)) return std::nullopt;  // a trace without the column, or a row without it
    other_s += b.other_cpu_s;
    wall_s += b.fetch_s + b.compute_s;
  }
  if (wall_s < kMinWallForOtherCpu_s) return std::nullopt;
  const double cores = other_s / wall_s;
  if (cores <= kMaxOtherCores) return std::nullopt;
  return Disturbance{file, "other_cpu_s",
                     fmt::format("other processes kept {:.2f} cores busy while it ran ({:.2f} s of CPU over {:.2f} s); "
                                 "a quiet machine shows at most {:.2f}",
                                 cores, other_s, wall_s, kMaxOtherCores)};
}

// Rows where the trainer had a core of its own: one intra-op thread, fewer workers than cores.
bool core_of_its_own(const BatchRecord& b) {
  const int cores = b.cores > 0 ? b.cores : 2;  // no cores column: the smallest machine that has a spare core
  return b.threads == 1 && b.workers >= 0 && b.workers < cores && !std::isnan(b.step_cpu_s);
}

std::optional<Disturbance> step_share(const std::vector<BatchRecord>& rows, const std::string& file) {
  double cpu_s = 0, wall_s = 0;
  for (const auto& b : rows) {
    if (!core_of_its_own(b)) return std::nullopt;
    cpu_s += b.step_cpu_s;
    wall_s += b.compute_s;
  }
  if (wall_s < kMinStepForRatio_s * static_cast<double>(rows.size())) return std::nullopt;
  const double share = cpu_s / wall_s;
  if (share >= kMinStepShare) return std::nullopt;
  return Disturbance{file, "step_cpu_s",
                     fmt::format("the step had {:.2f} of a core (its thread's CPU time over its wall time) with a core "
                                 "of its own; a quiet machine gives it at least {:.2f}",
                                 share, kMinStepShare)};
}

double median_step_s(const std::vector<BatchRecord>& rows) {
  std::vector<double> steps;
  for (const auto& b : rows) steps.push_back(b.compute_s);
  return summarize("compute_s", steps, "s").median;
}

// Per file, its rows by (workers, threads, batch size).
using Setting = std::tuple<int, int, int>;
std::map<Setting, std::vector<BatchRecord>> by_setting(const std::vector<BatchRecord>& rows) {
  std::map<Setting, std::vector<BatchRecord>> out;
  for (const auto& b : rows) out[{b.workers, b.threads, b.batch_size}].push_back(b);
  return out;
}

void one_worker_against_none(const std::vector<std::map<Setting, std::vector<BatchRecord>>>& settings,
                             const std::vector<std::string>& files, std::vector<Disturbance>& out) {
  std::map<int, std::vector<BatchRecord>> sequential;  // by batch size, over every file
  for (const auto& file : settings)
    for (const auto& [s, rows] : file)
      if (std::get<0>(s) == 0) sequential[std::get<2>(s)].insert(sequential[std::get<2>(s)].end(), rows.begin(), rows.end());
  for (std::size_t f = 0; f < settings.size(); ++f)
    for (const auto& [s, rows] : settings[f]) {
      const auto alone = sequential.find(std::get<2>(s));
      if (std::get<0>(s) != 1 || alone == sequential.end()) continue;
      const double with_worker_s = median_step_s(rows), without_s = median_step_s(alone->second);
      if (without_s < kMinStepForRatio_s || with_worker_s <= kMaxStepWithWorkerRatio * without_s) continue;
      out.push_back({files[f], "compute_s",
                     fmt::format("its step at batch {} is {:.2f}x the workers=0 step ({:.3g} ms against {:.3g} ms); one "
                                 "worker lengthens it at most {:.1f}x on a quiet machine",
                                 std::get<2>(s), with_worker_s / without_s, with_worker_s * 1e3, without_s * 1e3,
                                 kMaxStepWithWorkerRatio)});
    }
}

void repeats(const std::vector<std::map<Setting, std::vector<BatchRecord>>>& settings,
             const std::vector<std::string>& files, std::vector<Disturbance>& out) {
  std::map<Setting, std::vector<std::pair<double, std::size_t>>> medians;  // per setting: (median, file)
  for (std::size_t f = 0; f < settings.size(); ++f)
    for (const auto& [s, rows] : settings[f]) medians[s].emplace_back(median_step_s(rows), f);
  for (const auto& [s, list] : medians) {
    if (list.size() < 2) continue;
    const auto [fastest, slowest] = std::minmax_element(list.begin(), list.end());
    if (fastest->first < kMinStepForRatio_s || slowest->first <= kMaxRepeatSpread * fastest->first) continue;
    out.push_back({files[slowest->second], "compute_s",
                   fmt::format("its step (workers {}, threads {}, batch {}) is {:.2f}x that of {}, the same setting; "
                               "repeats on a quiet machine agree within {:.1f}x",
                               std::get<0>(s), std::get<1>(s), std::get<2>(s), slowest->first / fastest->first,
                               files[fastest->second], kMaxRepeatSpread)});
  }
}

}  // namespace

std::vector<Disturbance> find_disturbances(const std::vector<BatchRecord>& rows, const std::vector<std::string>& files,
                                           int skip_epochs, bool cpu_only, bool other_processes_only) {
  const auto by_file = rows_by_file(rows, files.size(), skip_epochs);
  std::vector<Disturbance> out;
  std::vector<std::map<Setting, std::vector<BatchRecord>>> settings;
  for (std::size_t f = 0; f < by_file.size(); ++f) {
    settings.push_back(by_setting(by_file[f]));
    if (by_file[f].empty()) continue;
    if (auto d = other_processes(by_file[f], files[f])) out.push_back(std::move(*d));
    if (cpu_only && !other_processes_only)
      if (auto d = step_share(by_file[f], files[f])) out.push_back(std::move(*d));
  }
  if (other_processes_only) return out;
  one_worker_against_none(settings, files, out);
  repeats(settings, files, out);
  return out;
}

}  // namespace edgetwin::calibrate
