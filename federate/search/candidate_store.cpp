#include "federate/search/candidate_store.hpp"

#include <fmt/format.h>

#include "sim/app/output_file.hpp"
#include "sim/app/sealed_file.hpp"
#include "sim/config/config_error.hpp"

namespace edgetwin::federate {
namespace {

constexpr const char* kKind = "edgetwin-federate search candidate";
constexpr std::size_t kMaxCandidateBytes = std::size_t{1} << 30;  // as a learning checkpoint

// A plan's text as a file name: characters a shell or another file system might mangle become
// '_' (two plans that then share a name are told apart by the identity inside).
std::string file_name(const std::string& label) {
  std::string out;
  for (const char c : label) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '=' || c == ',' || c == ':' || c == '-' || c == '_';
    out += plain ? c : '_';
  }
  return out + ".etsearch";
}

}  // namespace

std::filesystem::path CandidateStore::file_of(const std::string& label) const { return dir_ / file_name(label); }

std::optional<std::string> CandidateStore::finished(const std::string& label, const std::string& identity) const {
  if (!enabled()) return std::nullopt;
  const auto file = file_of(label);
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return std::nullopt;
  Unsealed sealed = read_sealed_file(file, kKind, kMaxCandidateBytes);
  if (sealed.identity != identity)
    throw ConfigError({Diagnostic{file.string(), 0, 0, "--search-dir",
                                  fmt::format("a finished candidate of another run (other inputs, options, build or "
                                              "plan than \"{}\"); remove it or name another directory",
                                              label)}});
  return std::move(sealed.body);
}

void CandidateStore::keep(const std::string& label, const std::string& identity, const std::string& result) const {
  if (!enabled()) return;
  OutputFile file(file_of(label));
  file.write(seal_bytes(kKind, identity, result));
  file.commit();
}

}  // namespace edgetwin::federate
