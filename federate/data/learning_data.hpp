// The data a learning run trains and tests on, as the fleet's [learning] table names it.
//
// Contract: open_learning_data resolves learning.data and learning.test_data against the fleet
// file's directory, opens them with calibrate's readers in learning.format (IDX files plain or
// gzip'ed, CIFAR-10 binary, a JPEG folder; the test split defaults to the same directory's
// held-out files, which a JPEG folder has not: it needs test_data), reads every training label,
// and reports every problem at the key that named it: an unknown format (listing the valid
// ones), a missing, unreadable or corrupt file (the reader's file, byte offset and reason), a
// JPEG folder without test_data, a test split of other classes than the training set's, and
// max_test_samples beyond the test split.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include "calibrate/datasets/dataset.hpp"
#include "sim/config/fleet_specs.hpp"

namespace edgetwin::federate {

struct LearningData {
  calibrate::DatasetFormat format = calibrate::DatasetFormat::mnist;
  std::filesystem::path train_dir;
  std::filesystem::path test_dir;
  std::unique_ptr<calibrate::Dataset> train;
  std::unique_ptr<calibrate::Dataset> test;
  std::vector<int> train_labels;
  int classes = 0;
  std::int64_t test_samples = 0;  // evaluated: the first ones of the test split
};

LearningData open_learning_data(const FleetSpec& fleet);

// A path from the fleet file, relative to its directory unless absolute.
std::filesystem::path fleet_relative(const FleetSpec& fleet, const std::string& path);

}  // namespace edgetwin::federate
