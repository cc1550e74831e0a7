#include "sim/app/gnuplot.hpp"

#include <sys/wait.h>

#include <cstdio>
#include <stdexcept>

#include <fmt/format.h>

namespace edgetwin {

void run_gnuplot(const std::string& script, const std::filesystem::path& output) {
  FILE* gnuplot = ::popen("gnuplot", "w");
  if (gnuplot == nullptr) throw std::runtime_error("cannot start gnuplot");
  std::fputs(script.c_str(), gnuplot);
  const int status = ::pclose(gnuplot);
  const int code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 127) throw std::runtime_error("gnuplot not found (install gnuplot-nox)");
  if (code != 0) throw std::runtime_error(fmt::format("gnuplot failed (exit status {})", code));
  if (!std::filesystem::exists(output)) throw std::runtime_error("gnuplot wrote no figure");
}

}  // namespace edgetwin
