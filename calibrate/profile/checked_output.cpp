#include "calibrate/profile/checked_output.hpp"

#include <vector>

#include "sim/app/output_file.hpp"
#include "sim/config/config_error.hpp"

namespace edgetwin::calibrate {

namespace {

// The loader's problems name the file as it would be written: the temporary file beside it is
// gone by the time anyone reads the message.
ConfigError relabelled(const ConfigError& error, const std::filesystem::path& temporary,
                       const std::filesystem::path& file) {
  std::vector<Diagnostic> problems = error.diagnostics();
  for (Diagnostic& d : problems)
    if (d.file == temporary.string()) d.file = file.string() + " (not written)";
  return ConfigError(std::move(problems));
}

}  // namespace

void write_loaded_back(const std::filesystem::path& file, const std::string& text,
                       const std::function<void(const std::filesystem::path&)>& load) {
  OutputFile out(file);
  out.write(text);
  out.flush();
  try {
    load(out.temporary());
  } catch (const ConfigError& error) {
    throw relabelled(error, out.temporary(), file);
  }
  out.commit();
}

}  // namespace edgetwin::calibrate
