// Drawing a figure with gnuplot, for every command that writes one (`edgetwin sweep --plot`,
// edgetwin-validate's report.png).
//
// Contract: run_gnuplot feeds `script` to gnuplot on its stdin (gnuplot's own messages go to
// this process's stderr); the script must write `output`. Throws std::runtime_error when
// gnuplot cannot be started, is not installed, fails, or writes no `output`. Callers write
// under a temp name, rename once everything is complete, and name their file in messages.
#pragma once

#include <filesystem>
#include <string>

namespace edgetwin {

void run_gnuplot(const std::string& script, const std::filesystem::path& output);

}  // namespace edgetwin
