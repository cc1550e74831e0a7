// The built-in model names and their aliases, without any torch header (the app lists them in
// --help and validates --model before LibTorch is touched).
//
// Contract: canonical_model_name() maps a name or alias (case-insensitive; a note in
// parentheses after it, as in "ResNet-18 (CIFAR)", is ignored) to one of model_names(), or
// returns "" when it is none of them.
#pragma once

#include <string>
#include <vector>

namespace edgetwin::calibrate {

std::vector<std::string> model_names();
std::string canonical_model_name(const std::string& name);

}  // namespace edgetwin::calibrate
