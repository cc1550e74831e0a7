#include "calibrate/census/census_chart.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/app/gnuplot.hpp"

namespace edgetwin::calibrate {

std::optional<std::string> chart_terminal(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == ".png") return "pngcairo";
  if (ext == ".svg") return "svg";
  return std::nullopt;
}

std::string working_set_chart_script(const Census& c, const std::filesystem::path& output, const std::string& terminal) {
  double largest = 0;
  for (const auto& l : c.layers) largest = std::max(largest, l.working_set_bytes());
  const bool mib = largest >= 4.0 * 1024 * 1024;
  const double unit = mib ? 1024.0 * 1024.0 : 1024.0;
  std::string data;
  for (const auto& l : c.layers)
    data += fmt::format("\"{}\" {:.6g} {:.6g} {:.6g}\n", l.name, l.input_bytes / unit, l.output_bytes / unit,
                        l.weight_bytes / unit);
  const int width = std::clamp(200 + 28 * static_cast<int>(c.layers.size()), 640, 3000);
  return fmt::format(
      "set terminal {0} size {1},600 font 'sans,10'\n"
      "set output '{2}'\n"
      "set title '{3}: working set per layer (input and output activations, weights), batch {4}'\n"
      "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.85 border -1\n"
      "set boxwidth 0.8\nset ylabel '{5}'\nset grid ytics\nset key top left\n"
      "set xtics rotate by -60 font 'sans,8' nomirror\nset yrange [0:*]\n"
      "$census << EOD\n{6}EOD\n"
      "plot $census using 2:xtic(1) title 'input activations' lc rgb '#1f77b4', \\\n"
      "  '' using 3 title 'output activations' lc rgb '#ff7f0e', \\\n"
      "  '' using 4 title 'weights' lc rgb '#2ca02c'\n",
      terminal, width, output.string(), c.model, c.batch_size, mib ? "MiB" : "KiB", data);
}

void draw_working_set_chart(const Census& census, const std::filesystem::path& file) {
  const auto terminal = chart_terminal(file);
  if (!terminal) throw std::runtime_error(file.string() + ": expected a .png or .svg file");
  const std::filesystem::path temp = file.string() + fmt::format(".tmp-{}{}", ::getpid(), file.extension().string());
  try {
    run_gnuplot(working_set_chart_script(census, temp, *terminal), temp);
    std::filesystem::rename(temp, file);
  } catch (const std::exception& e) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw std::runtime_error(file.string() + ": " + e.what());
  }
}

}  // namespace edgetwin::calibrate
