// The lecture's working-set chart: one stacked bar per layer (input activations, output
// activations, weights), drawn with gnuplot (sim/app/gnuplot.hpp).
//
// Contract: the figure's format follows the file's extension, .png or .svg (chart_format
// checks it before anything runs); the figure is drawn under a temp name beside `file` and
// renamed when complete, so a failure leaves no file. Throws std::runtime_error when gnuplot
// fails.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "calibrate/census/census.hpp"

namespace edgetwin::calibrate {

// "pngcairo" or "svg" for a .png or .svg file; nullopt for any other extension.
std::optional<std::string> chart_terminal(const std::filesystem::path& file);
std::string working_set_chart_script(const Census& census, const std::filesystem::path& output, const std::string& terminal);
void draw_working_set_chart(const Census& census, const std::filesystem::path& file);

}  // namespace edgetwin::calibrate
