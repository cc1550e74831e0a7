// The error the hardware helpers throw: a path that cannot be read or written, a value that
// is not one the device offers, a sysfs file with unexpected content.
//
// Contract: what() names the path (and the value and the valid choices where there are any).
// The app turns it into exit code 2.
#pragma once

#include <stdexcept>
#include <string>

namespace edgetwin::calibrate {

class HardwareError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace edgetwin::calibrate
