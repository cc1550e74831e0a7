// Reductions of a run's per-batch records that the calibration plan uses.
//
// Contract: `skip` leading batches of each epoch are left out (allocator and cache warm-up);
// if that would leave nothing, none are skipped. Empty input gives 0.
#pragma once

#include <cstddef>
#include <vector>

#include "calibrate/training/run_result.hpp"

namespace edgetwin::calibrate {

using BatchField = double MeasuredBatch::*;

std::vector<MeasuredBatch> timed_batches(const std::vector<MeasuredBatch>& batches, std::size_t skip);
// sum(field) / sum(batch_size): seconds per sample.
double per_sample(const std::vector<MeasuredBatch>& batches, BatchField field);
double mean_of_field(const std::vector<MeasuredBatch>& batches, BatchField field);
double median_of_field(const std::vector<MeasuredBatch>& batches, BatchField field);
std::vector<double> field_values(const std::vector<MeasuredBatch>& batches, BatchField field);
std::vector<double> per_sample_values(const std::vector<MeasuredBatch>& batches, BatchField field);

}  // namespace edgetwin::calibrate
