#include "federate/data/learning_data.hpp"

#include <fmt/format.h>

#include "calibrate/datasets/dataset_error.hpp"
#include "calibrate/datasets/dataset_factory.hpp"
#include "sim/config/config_error.hpp"

namespace edgetwin::federate {
namespace {

[[noreturn]] void refuse(const FleetSpec& fleet, std::string_view key, std::string message) {
  throw ConfigError({fleet.source.at(key, std::move(message))});
}

calibrate::DatasetFormat format_of(const FleetSpec& fleet, const LearningSpec& l) {
  try {
    return calibrate::parse_dataset_format(l.format);
  } catch (const std::invalid_argument& e) {
    refuse(fleet, "learning.format", e.what());
  }
}

std::unique_ptr<calibrate::Dataset> open(const FleetSpec& fleet, std::string_view key, calibrate::DatasetFormat format,
                                         const std::filesystem::path& dir, calibrate::DatasetSplit split) {
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error))
    refuse(fleet, key, fmt::format("{}: not a directory (a data set's directory is expected)", dir.string()));
  try {
    return calibrate::open_dataset(format, dir, split);
  } catch (const calibrate::DatasetError& e) {
    refuse(fleet, key, e.what());
  }
}

std::vector<int> labels_of(const FleetSpec& fleet, const calibrate::Dataset& data, int classes) {
  std::vector<int> labels;
  labels.reserve(data.size());
  for (std::size_t i = 0; i < data.size(); ++i) {
    const std::int64_t label = data.fetch(i).label;
    if (label < 0 || label >= classes)
      refuse(fleet, "learning.data", fmt::format("sample {} has label {}, outside the data set's {} classes", i, label, classes));
    labels.push_back(static_cast<int>(label));
  }
  return labels;
}

}  // namespace

std::filesystem::path fleet_relative(const FleetSpec& fleet, const std::string& path) {
  const std::filesystem::path p(path);
  return p.is_absolute() ? p : std::filesystem::path(fleet.source_file).parent_path() / p;
}

LearningData open_learning_data(const FleetSpec& fleet) {
  const LearningSpec& l = *fleet.learning;
  LearningData d;
  d.format = format_of(fleet, l);
  d.train_dir = fleet_relative(fleet, l.data);
  d.train = open(fleet, "learning.data", d.format, d.train_dir, calibrate::DatasetSplit::train);
  if (l.test_data.empty() && d.format == calibrate::DatasetFormat::jpeg_folder)
    refuse(fleet, "learning.data", "a JPEG folder holds no test split of its own: name one with learning.test_data");
  const bool own = !l.test_data.empty();
  d.test_dir = own ? fleet_relative(fleet, l.test_data) : d.train_dir;
  d.test = open(fleet, own ? "learning.test_data" : "learning.data", d.format, d.test_dir,
                own ? calibrate::DatasetSplit::train : calibrate::DatasetSplit::test);
  d.classes = d.train->num_classes();
  if (d.test->num_classes() != d.classes)
    refuse(fleet, "learning.test_data", fmt::format("the test split has {} classes, the training set {}",
                                                    d.test->num_classes(), d.classes));
  d.train_labels = labels_of(fleet, *d.train, d.classes);
  const auto test_size = static_cast<std::int64_t>(d.test->size());
  if (l.max_test_samples > test_size)
    refuse(fleet, "learning.max_test_samples",
           fmt::format("expected at most the test split's {} samples, got {}", test_size, l.max_test_samples));
  d.test_samples = l.max_test_samples > 0 ? l.max_test_samples : test_size;
  if (d.test_samples == 0) refuse(fleet, "learning.test_data", "the test split holds no samples");
  return d;
}

}  // namespace edgetwin::federate
