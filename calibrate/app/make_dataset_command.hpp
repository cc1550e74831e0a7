// `edgetwin-calibrate make-dataset`: writes a synthetic dataset in a real on-disk format
// (MNIST IDX, CIFAR-10 binary, JPEG ImageFolder), since real ones cannot be downloaded here.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace CLI {
class App;
}

namespace edgetwin::calibrate {

struct MakeDatasetOptions {
  std::string format;
  std::int64_t samples = 0;
  int image_size = 0;  // 0 = the format's default
  std::filesystem::path out;
  std::uint64_t seed = 1;
  int classes = 10;
};

CLI::App* add_make_dataset_command(CLI::App& app, MakeDatasetOptions& options);
int run_make_dataset(const MakeDatasetOptions& options);

}  // namespace edgetwin::calibrate
