#include "calibrate/training/run_spec.hpp"

#include <string>
#include <vector>

#include "sim/config/config_error.hpp"
#include "sim/config/run_validator.hpp"

namespace edgetwin::calibrate {

namespace {

void require(std::vector<Diagnostic>& out, bool ok, const std::string& option, const std::string& message) {
  if (!ok) out.push_back(Diagnostic{"", 0, 0, option, message});
}

}  // namespace

void validate_run_spec(const RunSpec& s) {
  std::vector<Diagnostic> d;
  for (const LoaderProblem& problem : check_loader(s.loader, 0))
    d.push_back(Diagnostic{"", 0, 0, option_name(problem.field), problem.message});
  require(d, !s.loader.persistent_workers, "--persistent-workers",
          "the LibTorch loader starts its worker threads every epoch; persistent workers are not supported");
  require(d, s.epochs >= 1, "--epochs", "expected 1 or more epochs, got " + std::to_string(s.epochs));
  require(d, s.max_samples >= 0, "--max-samples",
          "expected 0 (all) or a positive count, got " + std::to_string(s.max_samples));
  require(d, s.max_batches_per_epoch >= 0, "--max-batches",
          "expected 0 (all) or a positive count, got " + std::to_string(s.max_batches_per_epoch));
  require(d, s.learning_rate > 0, "--lr", "expected a positive learning rate, got " + std::to_string(s.learning_rate));
  require(d, s.momentum >= 0 && s.momentum < 1, "--momentum",
          "expected a momentum in [0, 1), got " + std::to_string(s.momentum));
  require(d, s.intra_op_threads >= 0, "--intra-op-threads",
          "expected 0 (all allowed CPUs) or a positive count, got " + std::to_string(s.intra_op_threads));
  require(d, s.device == "auto" || s.device == "cpu" || s.device == "cuda", "--torch-device",
          "unknown device \"" + s.device + "\"; valid: auto, cpu, cuda");
  require(d, s.crop_size > 0, "--crop-size", "expected a positive side in pixels, got " + std::to_string(s.crop_size));
  require(d, s.num_classes >= 0, "--classes",
          "expected 0 (the dataset's) or a positive count, got " + std::to_string(s.num_classes));
  if (!d.empty()) throw ConfigError(std::move(d));
}

}  // namespace edgetwin::calibrate
