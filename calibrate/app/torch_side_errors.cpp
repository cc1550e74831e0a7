#include "calibrate/app/torch_side_errors.hpp"

#include <exception>

#include "calibrate/datasets/dataset_error.hpp"
#include "calibrate/hardware/hardware_error.hpp"

namespace edgetwin::calibrate {

std::optional<std::string> dataset_or_hardware_error() {
  try {
    throw;
  } catch (const DatasetError& e) {
    return std::string("dataset: ") + e.what();
  } catch (const HardwareError& e) {
    return std::string("hardware: ") + e.what();
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace edgetwin::calibrate
