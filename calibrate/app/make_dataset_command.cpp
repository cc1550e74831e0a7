#include "calibrate/app/make_dataset_command.hpp"

#include <iostream>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "sim/config/config_error.hpp"
#include "calibrate/datasets/dataset_format.hpp"
#include "calibrate/datasets/synthetic_dataset.hpp"

namespace edgetwin::calibrate {

CLI::App* add_make_dataset_command(CLI::App& app, MakeDatasetOptions& o) {
  CLI::App* c = app.add_subcommand("make-dataset", "write a synthetic dataset in a real on-disk format");
  c->add_option("--format", o.format, "mnist, cifar10 or jpeg-folder")->required();
  c->add_option("--samples", o.samples, "number of samples")->required();
  c->add_option("--image-size", o.image_size, "image side in pixels (default: 28 MNIST, 32 CIFAR-10, 256 JPEG)");
  c->add_option("--out", o.out, "directory to write")->required();
  c->add_option("--seed", o.seed, "seed of the generator")->capture_default_str();
  c->add_option("--classes", o.classes, "number of classes")->capture_default_str();
  return c;
}

int run_make_dataset(const MakeDatasetOptions& o) {
  DatasetFormat format{};
  try {
    format = parse_dataset_format(o.format);
  } catch (const std::invalid_argument& e) {
    throw ConfigError({Diagnostic{"", 0, 0, "--format", e.what()}});
  }
  DatasetSummary summary;
  try {
    summary = make_dataset(format, o.samples, o.image_size, o.out, o.seed, o.classes);
  } catch (const std::invalid_argument& e) {
    throw ConfigError({Diagnostic{"", 0, 0, "make-dataset", e.what()}});
  }
  std::cout << fmt::format("wrote {} {} samples ({}x{} px, {} classes) to {}: {} files, {} bytes\n", summary.samples,
                           to_string(summary.format), summary.image_size, summary.image_size, summary.classes,
                           o.out.string(), summary.files.size(), summary.bytes_written);
  return 0;
}

}  // namespace edgetwin::calibrate
