// The bad-input errors of the LibTorch-side programs (edgetwin-calibrate, edgetwin-validate)
// beyond the simulator's: a dataset that cannot be read, hardware that cannot be driven.
#pragma once

#include <optional>
#include <string>

namespace edgetwin::calibrate {

// Call inside a catch block: the message of the exception being handled if it is a
// DatasetError or HardwareError ("dataset: ..." / "hardware: ..."), else nullopt.
std::optional<std::string> dataset_or_hardware_error();

}  // namespace edgetwin::calibrate
