#include "calibrate/app/batch_statistics.hpp"

#include "calibrate/profile/measurement.hpp"

namespace edgetwin::calibrate {

std::vector<MeasuredBatch> timed_batches(const std::vector<MeasuredBatch>& batches, std::size_t skip) {
  std::vector<MeasuredBatch> out;
  for (const auto& b : batches) {
    if (static_cast<std::size_t>(b.index) >= skip) out.push_back(b);
  }
  return out.empty() ? batches : out;
}

double per_sample(const std::vector<MeasuredBatch>& batches, BatchField field) {
  double seconds = 0;
  double samples = 0;
  for (const auto& b : batches) {
    seconds += b.*field;
    samples += b.batch_size;
  }
  return samples > 0 ? seconds / samples : 0.0;
}

std::vector<double> field_values(const std::vector<MeasuredBatch>& batches, BatchField field) {
  std::vector<double> values;
  values.reserve(batches.size());
  for (const auto& b : batches) values.push_back(b.*field);
  return values;
}

std::vector<double> per_sample_values(const std::vector<MeasuredBatch>& batches, BatchField field) {
  std::vector<double> values;
  values.reserve(batches.size());
  for (const auto& b : batches) values.push_back(b.batch_size > 0 ? b.*field / b.batch_size : 0.0);
  return values;
}

double mean_of_field(const std::vector<MeasuredBatch>& batches, BatchField field) {
  double sum = 0;
  for (const auto& b : batches) sum += b.*field;
  return batches.empty() ? 0.0 : sum / static_cast<double>(batches.size());
}

double median_of_field(const std::vector<MeasuredBatch>& batches, BatchField field) {
  return median_or_zero(field_values(batches, field));
}

}  // namespace edgetwin::calibrate
