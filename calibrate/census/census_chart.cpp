#include "calibrate/census/census_chart.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "sim/app/gnuplot.hpp"
#include "sim/app/output_file.hpp"

namespace edgetwin::calibrate {

std::optional<std::string> chart_terminal(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == ".png") return "pngcairo";
  if (ext == ".svg") return "svg";
  return std::nullopt;
}

Figure working_set_chart(const Census& c, const std::string& terminal) {
  double largest = 0;
  for (const auto& l : c.layers) largest = std::max(largest, l.working_set_bytes());
  const bool mib = largest >= 4.0 * 1024 * 1024;
  const double unit = mib ? 1024.0 * 1024.0 : 1024.0;
  Figure figure;
  for (const auto& l : c.layers)
    figure.data += fmt::format("\"{}\" {:.6g} {:.6g} {:.6g}\n", l.name, l.input_bytes / unit, l.output_bytes / unit,
                               l.weight_bytes / unit);
  const int width = std::clamp(200 + 28 * static_cast<int>(c.layers.size()), 640, 3000);
  figure.terminal = fmt::format("{} size {},600 font 'sans,10'", terminal, width);
  figure.commands = fmt::format(
      "set title {}\n"
      "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.85 border -1\n"
      "set boxwidth 0.8\nset ylabel '{}'\nset grid ytics\nset key top left\n"
      "set xtics rotate by -60 font 'sans,8' nomirror\nset yrange [0:*]\n"
      "plot $data using 2:xtic(1) title 'input activations' lc rgb '#1f77b4', \\\n"
      "  '' using 3 title 'output activations' lc rgb '#ff7f0e', \\\n"
      "  '' using 4 title 'weights' lc rgb '#2ca02c'\n",
      gnuplot_quoted(fmt::format("{}: working set per layer (input and output activations, weights), batch {}", c.model,
                                 c.batch_size)),
      mib ? "MiB" : "KiB");
  return figure;
}

void draw_working_set_chart(const Census& census, const std::filesystem::path& file) {
  const auto terminal = chart_terminal(file);
  if (!terminal) throw OutputError(file.string() + ": expected a .png or .svg file");
  draw_figure(file, working_set_chart(census, *terminal));
}

}  // namespace edgetwin::calibrate
