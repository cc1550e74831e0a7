#include "calibrate/training/model_names.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace edgetwin::calibrate {

std::vector<std::string> model_names() { return {"lenet5", "resnet18-cifar", "mobilenetv3-large", "lenet-lecture"}; }

std::string canonical_model_name(const std::string& name) {
  // Aliases: the `model` strings of workloads/*.toml and the study's spellings.
  static const std::map<std::string, std::string> aliases = {
      {"lenet5", "lenet5"},
      {"lenet-5", "lenet5"},
      {"lenet", "lenet5"},
      {"resnet18-cifar", "resnet18-cifar"},
      {"resnet-18", "resnet18-cifar"},
      {"resnet18", "resnet18-cifar"},
      {"mobilenetv3-large", "mobilenetv3-large"},
      {"mobilenetv3", "mobilenetv3-large"},
      {"mobilenet_v3_large", "mobilenetv3-large"},
      {"lenet-lecture", "lenet-lecture"},
  };
  // Workload files add notes in parentheses ("ResNet-18 (CIFAR)"): the name is what precedes.
  std::string key = name.substr(0, name.find('('));
  while (!key.empty() && std::isspace(static_cast<unsigned char>(key.back()))) key.pop_back();
  std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return std::tolower(c); });
  const auto it = aliases.find(key);
  return it == aliases.end() ? "" : it->second;
}

}  // namespace edgetwin::calibrate
