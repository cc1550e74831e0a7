#include "sim/app/sweep_plan.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/app/output_file.hpp"
#include "sim/config/operating_point.hpp"
#include "sim/config/option_checks.hpp"
#include "sim/config/toml_reader.hpp"

namespace edgetwin {
namespace {

struct Lists {
  std::vector<int> workers;
  std::vector<int> batch_sizes;
  std::vector<std::string> storages;
};

struct ModeChoice {
  std::string name;  // the mode's name, "custom" or "max"
  OperatingPoint point;
};

void check_settings(const SweepOptions& o, std::vector<Diagnostic>& problems) {
  check_count_option(problems, "--jobs", o.settings.chunks.jobs, Bound::positive, "processes");
  check_count_option(problems, "--window", o.settings.window_batches, Bound::non_negative, "batches");
  check_count_option(problems, "--chunk-size", static_cast<std::int64_t>(o.settings.chunks.chunk_size), Bound::positive,
                     "configurations");
  check_count_option(problems, "--max-configurations", o.max_configurations, Bound::positive, "configurations");
  if (o.max_power_w) check_number_option(problems, "--max-power", *o.max_power_w, Bound::positive, "W");
  if (o.max_epoch_time_s) check_number_option(problems, "--max-epoch-time", *o.max_epoch_time_s, Bound::positive, "s");
  if (o.energy_budget_j) check_number_option(problems, "--energy-budget", *o.energy_budget_j, Bound::positive, "J");
}

// Each value of a list once: a repeated one would only repeat rows.
template <typename T>
void check_unique(const std::vector<T>& values, std::string_view option, std::vector<Diagnostic>& problems) {
  std::set<T> seen;
  for (const T& value : values) {
    if (!seen.insert(value).second) {
      problems.push_back(option_problem(option, fmt::format("{} is listed twice; list each value once", value)));
      return;
    }
  }
}

Lists checked_lists(const SweepOptions& o, const LoadedInputs& in, std::vector<Diagnostic>& problems) {
  Lists lists{o.workers.empty() ? std::vector<int>{in.workload.loader.workers} : o.workers,
              o.batch_sizes.empty() ? std::vector<int>{in.workload.loader.batch_size} : o.batch_sizes,
              o.storages.empty() ? std::vector<std::string>{in.device.default_storage} : o.storages};
  for (const int w : lists.workers) check_count_option(problems, "--workers", w, Bound::non_negative, "worker processes");
  for (const int b : lists.batch_sizes) check_count_option(problems, "--batch-size", b, Bound::positive, "samples");
  for (const auto& s : o.storages) {
    check_name_option(problems, "--storage", s, "a storage name");
    if (!s.empty() && !in.device.find_storage(s)) {
      problems.push_back(option_problem("--storage", unknown_choice_message("storage", s, in.device.storage_names())));
    }
  }
  check_unique(lists.workers, "--workers", problems);
  check_unique(lists.batch_sizes, "--batch-size", problems);
  check_unique(lists.storages, "--storage", problems);
  return lists;
}

// --modes NAME,NAME,...: each a mode's name or id, once.
std::vector<ModeChoice> listed_modes(const DeviceSpec& device, const std::string& list,
                                     std::vector<Diagnostic>& problems) {
  std::vector<ModeChoice> modes;
  std::set<std::string> seen;
  for (const std::string& item : split_on_commas(list)) {
    if (item.empty()) {
      problems.push_back(option_problem("--modes", fmt::format("expected mode names or ids separated by commas, got "
                                                               "an empty one in \"{}\"", list)));
      continue;
    }
    const PowerModeSpec* mode = find_power_mode(device, item);
    if (!mode) {
      try {
        (void)resolve_operating_point(device, {.power_mode = item});  // says why, with the valid modes
      } catch (const ConfigError& e) {
        problems.push_back(option_problem("--modes", e.diagnostics().front().message));
      }
      continue;
    }
    if (!seen.insert(mode->name).second) {
      problems.push_back(option_problem("--modes", fmt::format("{} is listed twice; list each mode once", mode->name)));
      continue;
    }
    modes.push_back({mode->name, mode_operating_point(device, *mode)});
  }
  return modes;
}

std::int64_t mode_count(const DeviceSpec& device, const std::string& modes) {
  if (modes == "all") return custom_mode_count(device);
  if (modes == "named") return std::max<std::int64_t>(1, static_cast<std::int64_t>(device.power_modes.size()));
  return static_cast<std::int64_t>(split_on_commas(modes).size());
}

// "all" is enumerated only once its size is known to be within the limit.
std::vector<ModeChoice> chosen_modes(const DeviceSpec& device, const std::string& modes,
                                     std::vector<Diagnostic>& problems) {
  std::vector<ModeChoice> out;
  if (modes == "named") {
    for (const auto& m : device.power_modes) out.push_back({m.name, mode_operating_point(device, m)});
    if (out.empty()) out.push_back({"max", max_operating_point(device)});
  } else if (modes != "all") {
    out = listed_modes(device, modes, problems);
  }
  return out;
}

std::vector<ModeChoice> all_custom_modes(const DeviceSpec& device) {
  std::vector<ModeChoice> out;
  for (const auto& p : enumerate_custom_modes(device)) out.push_back({"custom", p});
  return out;
}

// Counted in doubles: lists of thousands times every custom mode must not overflow.
void check_size(const SweepOptions& o, const DeviceSpec& device, const Lists& lists, std::vector<Diagnostic>& problems) {
  const double modes = static_cast<double>(mode_count(device, o.modes));
  const double total = modes * static_cast<double>(lists.workers.size()) *
                       static_cast<double>(lists.batch_sizes.size()) * static_cast<double>(lists.storages.size());
  if (total <= static_cast<double>(o.max_configurations)) return;
  problems.push_back(option_problem(
      "--modes", fmt::format("the sweep has {:.0f} configurations ({:.0f} modes x {} worker counts x {} batch sizes x {} "
                             "storage media), more than --max-configurations ({}); narrow the lists or raise "
                             "--max-configurations",
                             total, modes, lists.workers.size(), lists.batch_sizes.size(), lists.storages.size(),
                             o.max_configurations)));
}

}  // namespace

std::vector<std::string> split_on(const std::string& text, char separator) {
  std::vector<std::string> items;
  for (std::size_t start = 0;;) {
    const std::size_t at = text.find(separator, start);
    items.push_back(text.substr(start, at - start));
    if (at == std::string::npos) return items;
    start = at + 1;
  }
}

std::vector<std::string> split_on_commas(const std::string& text) { return split_on(text, ','); }

std::vector<SweepPoint> plan_sweep(const SweepOptions& o, const LoadedInputs& in) {
  std::vector<Diagnostic> problems;
  check_settings(o, problems);
  const Lists lists = checked_lists(o, in, problems);
  for (auto& p : output_targets_problems({{"--csv", o.csv}, {"--json", o.json}, {"--plot", o.plot}})) {
    problems.push_back(std::move(p));
  }
  std::vector<ModeChoice> modes = chosen_modes(in.device, o.modes, problems);
  check_size(o, in.device, lists, problems);
  throw_if_any(std::move(problems));
  if (o.modes == "all") modes = all_custom_modes(in.device);
  std::vector<SweepPoint> points;
  for (const auto& mode : modes)
    for (const int w : lists.workers)
      for (const int b : lists.batch_sizes)
        for (const auto& s : lists.storages) points.push_back({mode.name, mode.point, w, b, s});
  return points;
}

}  // namespace edgetwin
