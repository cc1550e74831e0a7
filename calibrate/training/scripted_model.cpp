#include "calibrate/training/scripted_model.hpp"

#include <torch/script.h>

#include "sim/config/config_error.hpp"

namespace edgetwin::calibrate {

ScriptedModel::ScriptedModel(const std::filesystem::path& file)
    : name_("torchscript:" + file.filename().string()), file_(file) {
  try {
    module_ = std::make_unique<torch::jit::Module>(torch::jit::load(file.string()));
  } catch (const c10::Error& e) {
    throw ConfigError({Diagnostic{file.string(), 0, 0, "--model",
                                  "cannot load TorchScript model: " + std::string(e.what_without_backtrace())}});
  }
  if (module_->parameters().size() == 0) {
    throw ConfigError({Diagnostic{file.string(), 0, 0, "--model", "TorchScript model has no parameters to train"}});
  }
}

ScriptedModel::~ScriptedModel() = default;

at::Tensor ScriptedModel::forward(const at::Tensor& input) {
  const auto output = module_->forward({input});
  if (!output.isTensor()) {
    throw ConfigError({Diagnostic{file_.string(), 0, 0, "--model",
                                  "forward() must return one tensor of logits, got " + output.tagKind()}});
  }
  return output.toTensor();
}

std::vector<at::Tensor> ScriptedModel::parameters() {
  std::vector<at::Tensor> out;
  for (const auto& p : module_->parameters()) out.push_back(p);
  return out;
}

std::vector<std::pair<std::string, at::Tensor>> ScriptedModel::named_parameters() {
  std::vector<std::pair<std::string, at::Tensor>> out;
  for (const auto& p : module_->named_parameters()) out.emplace_back(p.name, p.value);
  return out;
}

std::vector<std::pair<std::string, at::Tensor>> ScriptedModel::named_buffers() {
  std::vector<std::pair<std::string, at::Tensor>> out;
  for (const auto& b : module_->named_buffers()) out.emplace_back(b.name, b.value);
  return out;
}

// "__torch__.LeNet" -> "LeNet".
std::string ScriptedModel::architecture() const {
  std::string name = module_->type()->name() ? module_->type()->name()->name() : name_;
  return name;
}

void ScriptedModel::train(bool on) { module_->train(on); }

void ScriptedModel::to(c10::Device device) { module_->to(device); }

}  // namespace edgetwin::calibrate
