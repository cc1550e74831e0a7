// What one real training run does: model, dataset, DataLoader settings, optimizer, threads.
//
// Contract: plain data, no torch header, so the app and validate include it freely. The
// DataLoader settings are the simulator's LoaderSpec (sim/config/specs.hpp, where their
// defaults live); the optimizer's are the Jetson study's (docs/reference/catalogue.md): SGD lr 0.01
// momentum 0.9. validate_run_spec() lists every bad field at once as a ConfigError (the
// app's exit code 2), loader fields in the simulator's wording (check_loader).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "calibrate/datasets/dataset_format.hpp"
#include "sim/config/specs.hpp"

namespace edgetwin::calibrate {

// Where the batches come from.
enum class InputMode {
  dataset,             // every batch fetched, decoded and transformed by the loader
  repeat_first_batch,  // the loader prepares batch 0 once and the trainer steps on it again and
                       // again: compute(batch size) without paying for loading (calibration)
  load_only,           // the loader runs as usual and the trainer takes each batch without a
                       // step: fetch, preprocess, worker start-up without paying for compute
};

struct RunSpec {
  // Model: one of model_names() (model_factory.hpp), or a TorchScript file when set.
  std::string model = "lenet5";
  std::filesystem::path torchscript_file;
  int num_classes = 0;  // 0 = the dataset's

  DatasetFormat format = DatasetFormat::mnist;
  std::filesystem::path dataset_dir;
  std::int64_t max_samples = 0;  // use samples [0, max_samples) only; 0 = all
  int crop_size = 224;           // RandomResizedCrop output side (jpeg-folder only)

  // DataLoader (torch.utils.data.DataLoader semantics): the simulator's spec and defaults.
  // Workers are threads started anew every epoch: persistent_workers must stay false.
  LoaderSpec loader;
  std::uint64_t seed = 1;

  int epochs = 1;
  std::int64_t max_batches_per_epoch = 0;  // stop an epoch after this many steps; 0 = all
  InputMode input = InputMode::dataset;

  double learning_rate = 0.01;
  double momentum = 0.9;

  // LibTorch intra-op threads of the trainer; 0 = one per CPU this process may use. Default 1,
  // deliberately: (1) the trainer then holds one core, as the Python trainer's main thread
  // does on a Jetson where the step itself runs on the GPU; (2) OpenMP's spinning barriers
  // collapse when loader workers share the cores: on the 2-core dev VM a LeNet step at batch
  // 16 took 2.5 ms with 1 thread and 11-37 ms with 2 threads (w = 0..2); (3) it is what
  // LibTorch 1.13 picks by itself there. Workers always compute with one thread, as PyTorch
  // sets torch.set_num_threads(1) in each DataLoader worker. The value is recorded in results.
  int intra_op_threads = 1;
  std::string device = "auto";  // "auto" (CUDA when LibTorch has it), "cpu", "cuda"
  std::vector<int> cpus;        // pin the trainer and its workers to these CPUs; empty = as is

  // Page cache of the dataset files before epoch 0: evict them (the study's drop_caches,
  // limited to this dataset) or leave them as they are.
  bool evict_before_first_epoch = false;
  bool measure_residency = false;  // mincore over the dataset files at each epoch's start and end
};

void validate_run_spec(const RunSpec& spec);

}  // namespace edgetwin::calibrate
