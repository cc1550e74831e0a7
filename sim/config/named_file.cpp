#include "sim/config/named_file.hpp"

namespace edgetwin {

std::vector<Diagnostic> placed_at(const SourceMap& source, std::string_view key, const std::vector<Diagnostic>& problems) {
  const std::string naming_file = source.at(key, "").file;
  std::vector<Diagnostic> out;
  for (const Diagnostic& d : problems) {
    if (d.file.empty()) out.push_back(source.at(key, d.message));
    else if (d.line == 0 && d.file != naming_file) out.push_back(source.at(key, d.file + ": " + d.message));
    else out.push_back(d);
  }
  return out;
}

}  // namespace edgetwin
