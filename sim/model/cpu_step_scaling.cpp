#include "sim/model/cpu_step_scaling.hpp"

#include <algorithm>

#include "sim/model/held_linear.hpp"

namespace edgetwin {

namespace {

std::vector<StepScalingPoint> points_at(const std::vector<StepScalingPoint>& points, int threads, int busy_cores) {
  std::vector<StepScalingPoint> out;
  for (const auto& p : points) {
    if (p.threads == threads && p.busy_cores == busy_cores) out.push_back(p);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.batch_size < b.batch_size; });
  return out;
}

int most_busy_measured(const std::vector<StepScalingPoint>& points, int threads, int busy_cores) {
  int best = -1;
  for (const auto& p : points) {
    if (p.threads == threads && p.busy_cores <= busy_cores) best = std::max(best, p.busy_cores);
  }
  return best;
}

}  // namespace

StepFactor cpu_step_factor(const std::vector<StepScalingPoint>& points, int threads, int busy_cores, double batch_size) {
  const int busy = most_busy_measured(points, threads, busy_cores);
  if (busy < 0) return {};
  return {held_linear(points_at(points, threads, busy), &StepScalingPoint::batch_size, &StepScalingPoint::factor,
                      batch_size),
          busy, true};
}

double step_thread_share(int cores, int threads, int busy_cores) {
  return std::min(1.0, static_cast<double>(cores) / (threads + busy_cores));
}

bool StepContention::measured() const {
  return std::any_of(points.begin(), points.end(), [&](const StepScalingPoint& p) { return p.threads == threads; });
}

namespace {

// Per unit of the step's work beside `busy` workers: the wall time and the engine amount.
struct StretchCost {
  double wall = 1;
  double amount = 1;
};

StretchCost stretch_cost(const StepContention& step, int busy) {
  busy = std::min(busy, step.most_busy);
  const StepFactor f = cpu_step_factor(step.points, step.threads, busy, step.batch_size);
  const double measured_share = step_thread_share(step.measured_cores, step.threads, f.busy_cores);
  return {f.factor * measured_share / step_thread_share(step.cores, step.threads, busy), f.factor * measured_share};
}

}  // namespace

double step_cycles_beside(const StepContention& step, double step_cycles, std::vector<double> worker_cycles_left) {
  std::sort(worker_cycles_left.begin(), worker_cycles_left.end());
  double work_left = step_cycles;
  double amount = 0;
  double now = 0;
  std::size_t done = 0;  // workers finished by `now`
  while (true) {
    while (done < worker_cycles_left.size() && worker_cycles_left[done] <= now) ++done;
    const StretchCost cost = stretch_cost(step, static_cast<int>(worker_cycles_left.size() - done));
    const double work_in_stretch =
        done < worker_cycles_left.size() ? (worker_cycles_left[done] - now) / cost.wall : work_left;
    if (work_in_stretch >= work_left) return amount + work_left * cost.amount;
    amount += work_in_stretch * cost.amount;
    work_left -= work_in_stretch;
    now = worker_cycles_left[done];
  }
}

}  // namespace edgetwin
