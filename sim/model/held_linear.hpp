// The lookup every list of measured points the model reads shares (costs.cpu_step_scaling by
// batch size, costs.placement_idle by workers, costs.step_share by batch size): linear between
// the points, held at the first and last beyond them, since a measurement is not extrapolated.
//
// Contract: `row` is non-empty and strictly ascending in `x`. At a point's own x the result is
// that point's y exactly.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace edgetwin {

template <class Point, class X, class Y>
double held_linear(std::span<const Point> row, X Point::*x, Y Point::*y, double at) {
  if (at <= row.front().*x) return row.front().*y;
  for (std::size_t i = 1; i < row.size(); ++i) {
    if (at < row[i].*x) {
      const Point& below = row[i - 1];
      const double t = (at - below.*x) / static_cast<double>(row[i].*x - below.*x);
      return below.*y + t * (row[i].*y - below.*y);
    }
  }
  return row.back().*y;
}

template <class Point, class X, class Y>
double held_linear(const std::vector<Point>& row, X Point::*x, Y Point::*y, double at) {
  return held_linear(std::span<const Point>(row), x, y, at);
}

}  // namespace edgetwin
