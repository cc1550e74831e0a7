#include "validate/report_plot.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/app/gnuplot.hpp"

namespace edgetwin::validate {

namespace {

double axis_max(const std::vector<ComparisonPoint>& points) {
  double top = 0;
  for (const auto& p : points) top = std::max({top, p.e2e_s.max, p.predicted.e2e_s});
  return top > 0 ? top * 1.1 : 1.0;
}

}  // namespace

std::string plot_data(const std::vector<ComparisonPoint>& points) {
  std::string out = "# measured_median_s predicted_s measured_min_s measured_max_s epoch label\n";
  for (const auto& p : points) {
    out += fmt::format("{:.6f} {:.6f} {:.6f} {:.6f} {} \"{}/e{}\"\n", p.e2e_s.median, p.predicted.e2e_s, p.e2e_s.min,
                       p.e2e_s.max, p.epoch, p.config.name, p.epoch);
  }
  return out;
}

Figure report_figure(const std::vector<ComparisonPoint>& points, const std::string& title) {
  Figure figure;
  figure.terminal = "pngcairo size 1000,800 font 'sans,10'";
  figure.data = plot_data(points);
  figure.commands = fmt::format(
      "set title {0}\n"
      "set xlabel 'measured E2E per epoch, median of repeats (s)'\n"
      "set ylabel 'predicted E2E per epoch (s)'\n"
      "set xrange [0:{1}]\nset yrange [0:{1}]\nset size square\nset grid\nset key top left\n"
      "plot x title 'y = x' with lines lc rgb 'gray40', \\\n"
      "  $data using ($5==0?$1:1/0):2:3:4 with xerrorbars pt 7 lc rgb '#1f77b4' title 'epoch 0 (range of repeats)', \\\n"
      "  $data using ($5>0?$1:1/0):2:3:4 with xerrorbars pt 5 lc rgb '#d62728' title 'epoch 1+ (range of repeats)', \\\n"
      "  $data using 1:2:6 with labels offset char 1,0.6 left font 'sans,8' notitle\n",
      gnuplot_quoted(title), axis_max(points));
  return figure;
}

void render_plot(const std::vector<ComparisonPoint>& points, const std::string& title,
                 const std::filesystem::path& png_file) {
  draw_figure(png_file, report_figure(points, title));
}

}  // namespace edgetwin::validate
