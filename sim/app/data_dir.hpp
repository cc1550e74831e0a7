// Where the shipped catalogue lies (devices/, workloads/, fleets/, validate/), for every
// program, built or installed.
//
// Contract: data_dir() is $EDGETWIN_DATA_DIR when it is set and not empty; else
// <the program's own directory>/../share/edgetwin when that holds devices/ (an installed
// program: `cmake --install`, the .deb); else the source tree the program was built from
// (EDGETWIN_SOURCE_DATA_DIR, fixed at configure time), so that build/sim/edgetwin works from
// any directory.
#pragma once

#include <filesystem>

namespace edgetwin {

std::filesystem::path data_dir();

}  // namespace edgetwin
