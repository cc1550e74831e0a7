#include "validate/checksummed_json.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "sim/app/sealed_file.hpp"

namespace edgetwin::validate {
namespace {

// The document's last key, after everything it sums: `"checksum": "xxh3:` then 16 digits.
constexpr std::string_view kChecksumKey = ",\n  \"checksum\": \"xxh3:";
constexpr std::string_view kDocumentEnd = "\"\n}\n";
constexpr std::size_t kDigits = 16;

void check_sum(std::string_view summed, std::string_view written) {
  const std::string actual = xxh3_hex(summed);
  if (written != actual)
    throw std::runtime_error(fmt::format("checksum mismatch: changed or damaged after it was written (xxh3 {} written, "
                                         "{} of the contents)", written, actual));
}

nlohmann::json parsed(std::string_view text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("not JSON under a good checksum: {}", e.what()));
  }
}

}  // namespace

std::string checksummed_document(const nlohmann::json& doc) {
  std::string text = doc.dump(2);
  if (!doc.is_object() || text.size() < 2) throw std::invalid_argument("checksummed_document: a JSON object");
  text.resize(text.size() - 2);  // "\n}": the checksum goes in as the last key
  return text + std::string(kChecksumKey) + xxh3_hex(text) + std::string(kDocumentEnd);
}

nlohmann::json verified_document(std::string_view text) {
  const std::size_t tail = kChecksumKey.size() + kDigits + kDocumentEnd.size();
  if (text.size() < tail || text.substr(text.size() - kDocumentEnd.size()) != kDocumentEnd ||
      text.substr(text.size() - tail, kChecksumKey.size()) != kChecksumKey)
    throw std::runtime_error("no \"checksum\" as its last key (a report written by edgetwin-validate ends with one; "
                             "one edited by hand or cut short does not)");
  const std::string_view summed = text.substr(0, text.size() - tail);
  check_sum(summed, text.substr(summed.size() + kChecksumKey.size(), kDigits));
  return parsed(text);
}

std::string checksummed_line(const nlohmann::json& j) {
  const std::string text = j.dump();
  return text + '\t' + xxh3_hex(text);
}

nlohmann::json verified_line(std::string_view line) {
  const std::size_t tab = line.rfind('\t');
  if (tab == std::string_view::npos || line.size() - tab - 1 != kDigits)
    throw std::runtime_error("no checksum at its end (a tab and 16 hex digits)");
  check_sum(line.substr(0, tab), line.substr(tab + 1));
  return parsed(line.substr(0, tab));
}

}  // namespace edgetwin::validate
