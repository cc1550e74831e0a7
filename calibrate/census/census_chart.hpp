// The lecture's working-set chart: one stacked bar per layer (input activations, output
// activations, weights), drawn with gnuplot (sim/app/gnuplot.hpp).
//
// Contract: the figure's format follows the file's extension, .png or .svg (chart_terminal
// checks it before anything runs); draw_figure writes the file whole or not at all
// (sim/app/output_file.hpp) and throws OutputError naming it when gnuplot fails.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "calibrate/census/census.hpp"
#include "sim/app/gnuplot.hpp"

namespace edgetwin::calibrate {

// "pngcairo" or "svg" for a .png or .svg file; nullopt for any other extension.
std::optional<std::string> chart_terminal(const std::filesystem::path& file);
// The chart as a figure for draw_figure (terminal "pngcairo" or "svg").
Figure working_set_chart(const Census& census, const std::string& terminal);
void draw_working_set_chart(const Census& census, const std::filesystem::path& file);

}  // namespace edgetwin::calibrate
