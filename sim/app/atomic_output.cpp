#include "sim/app/atomic_output.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <unistd.h>

#include "sim/app/gnuplot.hpp"

namespace edgetwin {

void write_atomically(const std::string& path, const std::string& text) {
  const std::string partial = path + ".partial";
  {
    std::ofstream out(partial);
    out << text;
    out.close();
    if (!out.good()) {
      std::error_code ignored;
      std::filesystem::remove(partial, ignored);
      throw std::runtime_error(fmt::format("{}: cannot write", path));
    }
  }
  std::filesystem::rename(partial, path);
}

void draw_atomically(const std::string& path, const std::string& data,
                     const std::function<std::string(const std::string& data_file, const std::string& output)>& script) {
  const auto data_file = std::filesystem::temp_directory_path() / fmt::format("edgetwin-plot-{}.dat", ::getpid());
  const std::string partial = path + ".partial";
  std::error_code ignored;
  try {
    write_atomically(data_file.string(), data);
    run_gnuplot(script(data_file.string(), partial), partial);
  } catch (const std::runtime_error& e) {
    std::filesystem::remove(data_file, ignored);
    std::filesystem::remove(partial, ignored);
    throw std::runtime_error(fmt::format("{}: {}", path, e.what()));
  }
  std::filesystem::remove(data_file, ignored);
  std::filesystem::rename(partial, path);
}

}  // namespace edgetwin
