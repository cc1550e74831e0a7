#include "calibrate/training/transform_factory.hpp"

#include "calibrate/training/augment_transform.hpp"
#include "calibrate/training/normalize_transform.hpp"

namespace edgetwin::calibrate {

std::unique_ptr<SampleTransform> make_transform(DatasetFormat format, int crop_size) {
  switch (format) {
    case DatasetFormat::mnist:
      return std::make_unique<NormalizeTransform>(std::vector<double>{0.1307}, std::vector<double>{0.3081});
    case DatasetFormat::cifar10:
      return std::make_unique<NormalizeTransform>(std::vector<double>{0.4914, 0.4822, 0.4465},
                                                  std::vector<double>{0.2023, 0.1994, 0.2010});
    case DatasetFormat::jpeg_folder:
      return std::make_unique<AugmentTransform>(crop_size, 16);
  }
  return nullptr;
}

}  // namespace edgetwin::calibrate
