// The report's figure: predicted vs measured E2E, one point per configuration and epoch, the
// measured run-to-run range as a horizontal bar, and the y = x line a perfect model lies on.
//
// Contract: render_plot writes a PNG (gnuplot's pngcairo terminal) to `png_file`, whole or not
// at all (sim/app/gnuplot.hpp: the data travels inside the script, no file besides the
// figure). Throws OutputError when gnuplot is missing or fails.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "sim/app/gnuplot.hpp"
#include "validate/validation_stats.hpp"

namespace edgetwin::validate {

// gnuplot's data (one row per point) and the whole figure, exposed for tests.
std::string plot_data(const std::vector<ComparisonPoint>& points);
Figure report_figure(const std::vector<ComparisonPoint>& points, const std::string& title);

void render_plot(const std::vector<ComparisonPoint>& points, const std::string& title,
                 const std::filesystem::path& png_file);

}  // namespace edgetwin::validate
