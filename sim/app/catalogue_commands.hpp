// `edgetwin devices`, `edgetwin workloads`, `edgetwin modes`: what ships, one line each, and
// a device's power modes with the size of its custom mode space.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace edgetwin {

struct CatalogueOptions {
  std::string device = "agx-xavier";
  std::string idle_device = "agx-xavier";
  double idle_period_s = 3600;
};

void add_catalogue_commands(CLI::App& app, CatalogueOptions& options);
// Runs the catalogue command that was given; returns false when none was.
bool run_catalogue_command(const CLI::App& app, const CatalogueOptions& options);

}  // namespace edgetwin
