// A TorchScript model a user exported from Python (torch.jit.script / trace, then save),
// trained like the C++ models: train() mode, its parameters given to SGD, forward(input) must
// return the logits tensor. Torch header: include from torch translation units only.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "calibrate/training/trainable_model.hpp"

namespace torch::jit {
struct Module;
}

namespace edgetwin::calibrate {

class ScriptedModel : public TrainableModel {
 public:
  // Throws ConfigError naming the file when it cannot be loaded.
  explicit ScriptedModel(const std::filesystem::path& file);
  ~ScriptedModel() override;
  std::string name() const override { return name_; }
  at::Tensor forward(const at::Tensor& input) override;
  std::vector<at::Tensor> parameters() override;
  std::vector<std::pair<std::string, at::Tensor>> named_parameters() override;
  std::vector<std::pair<std::string, at::Tensor>> named_buffers() override;
  std::string architecture() const override;
  void train(bool on) override;
  void to(c10::Device device) override;

 private:
  std::string name_;
  std::filesystem::path file_;
  std::unique_ptr<torch::jit::Module> module_;
};

}  // namespace edgetwin::calibrate
