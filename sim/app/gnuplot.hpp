// Drawing a figure with gnuplot, for every command that writes one (`edgetwin sweep --plot`,
// edgetwin-validate's report.png).
//
// Contract: draw_figure writes `output` whole or not at all (sim/app/output_file.hpp). The
// figure's rows travel inside the script as the datablock $data (no data file anywhere);
// `commands` plot from it. gnuplot runs as a registered child (a signal to edgetwin ends it,
// sim/app/termination.hpp) that dies with edgetwin, reads the script on its stdin and writes
// the temporary file; the figure is renamed into place only when gnuplot exited 0 and the
// file ends as a PNG or SVG file ends. Throws OutputError naming `output` when gnuplot cannot
// be started, is not installed, fails, or leaves a cut file (a full disk).
#pragma once

#include <filesystem>
#include <string>

namespace edgetwin {

struct Figure {
  std::string terminal;  // gnuplot's "set terminal" argument: "pngcairo size 1000,700"
  std::string data;      // whitespace-separated rows; strings in double quotes
  std::string commands;  // everything after the data: labels, ranges, plot '$data' ...
};

void draw_figure(const std::filesystem::path& output, const Figure& figure);

// The script gnuplot reads, drawing into file; for tests.
std::string figure_script(const Figure& figure, const std::filesystem::path& file);

// text in a gnuplot single-quoted string (a quote doubled).
std::string gnuplot_quoted(const std::string& text);

}  // namespace edgetwin
