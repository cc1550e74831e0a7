#include "sim/config/specs.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>

namespace edgetwin {

const StorageSpec* DeviceSpec::find_storage(const std::string& storage_name) const {
  auto it = std::find_if(storage.begin(), storage.end(),
                         [&](const StorageSpec& medium) { return medium.name == storage_name; });
  return it == storage.end() ? nullptr : &*it;
}

std::vector<std::string> DeviceSpec::storage_names() const {
  std::vector<std::string> names;
  names.reserve(storage.size());
  for (const StorageSpec& medium : storage) names.push_back(medium.name);
  return names;
}

namespace {

// A batch never takes zero or negative time, but a steep end segment extrapolated far enough
// would say so; the curve then answers this fraction of its nearest measured point instead.
constexpr double kSmallestFractionOfNearestPoint = 1e-3;

double line_through(double x0, double y0, double x1, double y1, double x) {
  return y0 + (y1 - y0) * (x - x0) / (x1 - x0);
}

// Index i of the segment [i, i + 1] used for x: the one containing it, or the end segment
// on the side x lies beyond.
std::size_t segment_for(const std::vector<double>& xs, double x) {
  auto upper = std::upper_bound(xs.begin(), xs.end(), x);
  auto index = static_cast<std::size_t>(std::distance(xs.begin(), upper));
  return std::clamp<std::size_t>(index, 1, xs.size() - 1) - 1;
}

std::size_t nearest_point(const std::vector<double>& xs, double x) {
  std::size_t nearest = 0;
  for (std::size_t i = 1; i < xs.size(); ++i) {
    if (std::abs(xs[i] - x) < std::abs(xs[nearest] - x)) nearest = i;
  }
  return nearest;
}

}  // namespace

double ComputeCurve::at(double batch_size) const {
  if (batch_sizes.empty() || batch_sizes.size() != seconds.size()) {
    throw std::logic_error("ComputeCurve::at: the curve needs as many seconds as batch sizes, and at least one");
  }
  double value = 0;
  if (batch_sizes.size() == 1) {
    // One measurement only: assume a constant cost per sample.
    value = seconds.front() * batch_size / batch_sizes.front();
  } else {
    std::size_t i = segment_for(batch_sizes, batch_size);
    value = line_through(batch_sizes[i], seconds[i], batch_sizes[i + 1], seconds[i + 1], batch_size);
  }
  double floor = kSmallestFractionOfNearestPoint * seconds[nearest_point(batch_sizes, batch_size)];
  return std::max(value, floor);
}

}  // namespace edgetwin
