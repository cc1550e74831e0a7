#include "calibrate/training/model_factory.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/utils.h>

#include "sim/config/config_error.hpp"
#include "calibrate/training/lenet5.hpp"
#include "calibrate/training/lenet_lecture.hpp"
#include "calibrate/training/mobilenet_v3_large.hpp"
#include "calibrate/training/model_names.hpp"
#include "calibrate/training/native_model.hpp"
#include "calibrate/training/resnet18_cifar.hpp"
#include "calibrate/training/scripted_model.hpp"

namespace edgetwin::calibrate {

std::unique_ptr<TrainableModel> make_model(const std::string& name, const std::filesystem::path& torchscript_file,
                                           int classes, std::uint64_t seed) {
  if (!torchscript_file.empty()) return std::make_unique<ScriptedModel>(torchscript_file);
  torch::manual_seed(seed);
  const std::string canonical = canonical_model_name(name);
  if (canonical == "lenet5") return std::make_unique<NativeModel>(canonical, "LeNet5", std::make_shared<LeNet5>(classes));
  if (canonical == "resnet18-cifar")
    return std::make_unique<NativeModel>(canonical, "ResNet18Cifar", std::make_shared<ResNet18Cifar>(classes));
  if (canonical == "lenet-lecture")
    return std::make_unique<NativeModel>(canonical, "LeNet", std::make_shared<LeNetLecture>(classes));
  if (canonical == "mobilenetv3-large")
    return std::make_unique<NativeModel>(canonical, "MobileNetV3Large", std::make_shared<MobileNetV3Large>(classes));
  throw ConfigError({Diagnostic{"", 0, 0, "--model",
                                fmt::format("unknown model \"{}\"; valid: {}, or a TorchScript file (.pt)", name,
                                            fmt::join(model_names(), ", "))}});
}

}  // namespace edgetwin::calibrate
