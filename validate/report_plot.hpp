// The report's figure: predicted vs measured E2E, one point per configuration and epoch, the
// measured run-to-run range as a horizontal bar, and the y = x line a perfect model lies on.
//
// Contract: render_plot writes a PNG (gnuplot's pngcairo terminal) to `png_file` and nothing
// else: gnuplot's data goes to a temp file next to it, removed afterwards. Throws
// std::runtime_error when gnuplot is missing or fails; the caller writes `png_file` under a
// temp name and renames it only once the whole report is ready.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "validate/validation_stats.hpp"

namespace edgetwin::validate {

// gnuplot's data (one row per point) and script, exposed for tests.
std::string plot_data(const std::vector<ComparisonPoint>& points);
std::string plot_script(const std::filesystem::path& data_file, const std::filesystem::path& png_file,
                        const std::string& title, double axis_max_s);

void render_plot(const std::vector<ComparisonPoint>& points, const std::string& title,
                 const std::filesystem::path& png_file);

}  // namespace edgetwin::validate
