// Reads the epochs of a real run as `edgetwin-calibrate measure --json` writes them (the shape of
// `edgetwin predict --json`: "epochs": [{"epoch", "e2e_s", "batches", ...}], with "energy_j"
// where power was measured), for `edgetwin estimate --measured`.
//
// Contract: the epochs in file order, which must be 0, 1, 2, ...; a missing file, bad JSON, or
// an epoch without a positive e2e_s or batches is a ConfigError naming the file and the key.
#pragma once

#include <filesystem>
#include <vector>

#include "sim/report/training_estimate.hpp"

namespace edgetwin {

std::vector<EpochSample> read_measured_epochs(const std::filesystem::path& file);

}  // namespace edgetwin
