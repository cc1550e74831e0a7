#include "validate/report_plot.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/app/gnuplot.hpp"

namespace edgetwin::validate {

namespace {

// Removes the temp files however rendering ends.
class TempFiles {
 public:
  ~TempFiles() {
    std::error_code ignored;
    for (const auto& f : files_) std::filesystem::remove(f, ignored);
  }
  std::filesystem::path add(std::filesystem::path file) {
    files_.push_back(file);
    return file;
  }

 private:
  std::vector<std::filesystem::path> files_;
};

void write_text(const std::filesystem::path& file, const std::string& text) {
  std::ofstream out(file);
  out << text;
  if (!out.flush()) throw std::runtime_error(file.string() + ": cannot write");
}

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

std::string plot_script(const std::filesystem::path& data_file, const std::filesystem::path& png_file,
                        const std::string& title, double axis_max_s) {
  return fmt::format(
      "set terminal pngcairo size 1000,800 font 'sans,10'\n"
      "set output '{1}'\n"
      "set title '{2}'\n"
      "set xlabel 'measured E2E per epoch, median of repeats (s)'\n"
      "set ylabel 'predicted E2E per epoch (s)'\n"
      "set xrange [0:{3}]\nset yrange [0:{3}]\nset size square\nset grid\nset key top left\n"
      "plot x title 'y = x' with lines lc rgb 'gray40', \\\n"
      "  '{0}' using ($5==0?$1:1/0):2:3:4 with xerrorbars pt 7 lc rgb '#1f77b4' title 'epoch 0 (range of repeats)', \\\n"
      "  '{0}' using ($5>0?$1:1/0):2:3:4 with xerrorbars pt 5 lc rgb '#d62728' title 'epoch 1+ (range of repeats)', \\\n"
      "  '{0}' using 1:2:6 with labels offset char 1,0.6 left font 'sans,8' notitle\n",
      data_file.string(), png_file.string(), title, axis_max_s);
}

void render_plot(const std::vector<ComparisonPoint>& points, const std::string& title,
                 const std::filesystem::path& png_file) {
  TempFiles temps;
  const std::string stem = png_file.string() + fmt::format(".{}", ::getpid());
  const auto data = temps.add(stem + ".dat");
  write_text(data, plot_data(points));
  run_gnuplot(plot_script(data, png_file, title, axis_max(points)), png_file);
}

}  // namespace edgetwin::validate
