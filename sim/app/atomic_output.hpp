// Output files that are whole or absent: what every command that writes a file uses.
//
// Contract: write_atomically writes text to <path>.partial beside path and renames it to
// path only when every byte was written and the file closed; on any failure the partial file
// is removed and std::runtime_error names the path. draw_atomically writes `data` to a temp
// file, has gnuplot run script(data file, <path>.partial) (sim/app/gnuplot.hpp), removes the
// data file however that ends, and renames the figure to path once it is complete.
#pragma once

#include <functional>
#include <string>

namespace edgetwin {

void write_atomically(const std::string& path, const std::string& text);

void draw_atomically(const std::string& path, const std::string& data,
                     const std::function<std::string(const std::string& data_file, const std::string& output)>& script);

}  // namespace edgetwin
