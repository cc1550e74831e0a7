// Helpers for the training tests: a temp directory removed at the end.
#pragma once

#include "tests/support/test_files.hpp"

namespace edgetwin::calibrate::training_testing {

using ScratchDir = test_support::TempDir;

}  // namespace edgetwin::calibrate::training_testing
