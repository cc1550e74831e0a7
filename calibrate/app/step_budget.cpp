#include "calibrate/app/step_budget.hpp"

#include <algorithm>
#include <cmath>

namespace edgetwin::calibrate {

BatchCount fit_to_budget(double batch_s, double budget_s, std::int64_t min_timed, std::int64_t max_timed,
                         std::int64_t warmup) {
  BatchCount count;
  count.warmup = batch_s > 0.25 ? std::min<std::int64_t>(warmup, 1) : warmup;
  const double fitting = batch_s > 0 ? std::floor(budget_s / batch_s) : static_cast<double>(max_timed);
  count.timed =
      std::clamp(static_cast<std::int64_t>(std::min(fitting, 1e12)), min_timed, std::max(min_timed, max_timed));
  return count;
}

}  // namespace edgetwin::calibrate
