#include "sim/app/data_dir.hpp"

#include <cstdlib>

namespace edgetwin {
namespace {

// The installed layout of GNU install dirs: bin/<program> beside share/edgetwin.
std::filesystem::path installed_data_dir() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const std::filesystem::path dir = exe.parent_path().parent_path() / "share" / "edgetwin";
  return std::filesystem::is_directory(dir / "devices", ec) ? dir : std::filesystem::path();
}

}  // namespace

std::filesystem::path data_dir() {
  if (const char* dir = std::getenv("EDGETWIN_DATA_DIR"); dir != nullptr && *dir != '\0') return dir;
  if (auto installed = installed_data_dir(); !installed.empty()) return installed;
  return EDGETWIN_SOURCE_DATA_DIR;
}

}  // namespace edgetwin
