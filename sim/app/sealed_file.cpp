#include "sim/app/sealed_file.hpp"

#include <xxhash.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <memory>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/config/config_error.hpp"
#include "sim/config/input_file.hpp"

namespace edgetwin {
namespace {

constexpr std::string_view kMagic = "edgetwin sealed file ";
constexpr std::string_view kFormat = "1";
constexpr std::string_view kChecksumField = "; xxh3 ";
constexpr std::size_t kChecksumDigits = 16;
// A header is about 100 bytes and a name: past this, the first line is not a header.
constexpr std::size_t kMaxHeaderBytes = 1024;
// Lengths of at most 18 digits, so that header + identity + body cannot overflow.
constexpr std::size_t kMaxLengthDigits = 18;
// What a message shows of text read from a damaged file.
constexpr std::size_t kShownBytes = 60;

[[noreturn]] void refuse(const std::filesystem::path& file, const std::string& message) {
  throw ConfigError({Diagnostic{file.string(), 0, 0, "", message}});
}

// Text from a file as a message shows it: printable ASCII, at most kShownBytes.
std::string shown(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, kShownBytes)) out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  return text.size() > kShownBytes ? out + "..." : out;
}

std::string expected_header(std::string_view kind) {
  return fmt::format("{}{}: {}; identity <bytes> bytes; body <bytes> bytes{}<16 hex digits>", kMagic, kFormat, kind,
                     kChecksumField);
}

// The header's fields in order; each read fails (nothing) where the text is not as written.
class HeaderCursor {
 public:
  explicit HeaderCursor(std::string_view line) : rest_(line) {}
  bool literal(std::string_view text) {
    if (!rest_.starts_with(text)) return false;
    rest_.remove_prefix(text.size());
    return true;
  }
  std::string_view until(char end) {
    const std::string_view field = rest_.substr(0, rest_.find(end));
    rest_.remove_prefix(field.size());
    return field;
  }
  // Decimal digits as written by seal_bytes: no sign, no leading zero.
  std::optional<std::size_t> length() {
    const std::size_t digits = std::min(rest_.find_first_not_of("0123456789"), rest_.size());
    if (digits == 0 || digits > kMaxLengthDigits || (digits > 1 && rest_.front() == '0')) return std::nullopt;
    std::size_t value = 0;
    std::from_chars(rest_.data(), rest_.data() + digits, value);
    rest_.remove_prefix(digits);
    return value;
  }
  // Lowercase only: a flipped case bit must not pass.
  std::optional<std::uint64_t> checksum() {
    if (rest_.size() != kChecksumDigits || rest_.find_first_not_of("0123456789abcdef") != std::string_view::npos)
      return std::nullopt;
    std::uint64_t value = 0;
    std::from_chars(rest_.data(), rest_.data() + rest_.size(), value, 16);
    rest_ = {};
    return value;
  }

 private:
  std::string_view rest_;
};

struct Header {
  std::size_t size = 0;             // bytes of the header line, its newline included
  std::size_t checksum_at = 0;      // offset of the checksum's digits
  std::size_t identity_bytes = 0;
  std::size_t body_bytes = 0;
  std::uint64_t checksum = 0;
};

Header parse_header(const std::filesystem::path& file, std::string_view bytes, std::string_view kind) {
  const std::size_t end = bytes.substr(0, kMaxHeaderBytes).find('\n');
  if (!bytes.starts_with(kMagic) || end == std::string_view::npos)
    refuse(file, fmt::format("not a sealed edgetwin file (expected a first line \"{}\")", expected_header(kind)));
  HeaderCursor cursor(bytes.substr(0, end));
  cursor.literal(kMagic);
  const std::string_view format = cursor.until(':');
  if (format != kFormat)
    refuse(file, fmt::format("a sealed file of format \"{}\"; this edgetwin reads format {} (written by another "
                             "version of edgetwin)", shown(format), kFormat));
  cursor.literal(": ");
  const std::string_view written_kind = cursor.until(';');
  if (written_kind != kind) refuse(file, fmt::format("a sealed \"{}\" file, not a \"{}\" file", shown(written_kind), kind));
  Header h;
  h.size = end + 1;
  std::optional<std::size_t> identity, body;
  std::optional<std::uint64_t> checksum;
  const bool parsed = cursor.literal("; identity ") && (identity = cursor.length()) && cursor.literal(" bytes; body ") &&
                      (body = cursor.length()) && cursor.literal(" bytes") && cursor.literal(kChecksumField) &&
                      (checksum = cursor.checksum());
  if (!parsed) refuse(file, fmt::format("damaged header (expected \"{}\")", expected_header(kind)));
  h.identity_bytes = *identity;
  h.body_bytes = *body;
  h.checksum = *checksum;
  h.checksum_at = end - kChecksumDigits;
  return h;
}

// Every byte of the file but the checksum's digits.
std::uint64_t contents_checksum(std::string_view bytes, std::size_t checksum_at) {
  const std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(), &XXH3_freeState);
  if (!state || XXH3_64bits_reset(state.get()) != XXH_OK) throw std::bad_alloc();
  XXH3_64bits_update(state.get(), bytes.data(), checksum_at);
  const std::string_view after = bytes.substr(checksum_at + kChecksumDigits);
  XXH3_64bits_update(state.get(), after.data(), after.size());
  return XXH3_64bits_digest(state.get());
}

std::string hex(std::uint64_t value) { return fmt::format("{:016x}", value); }

}  // namespace

std::string xxh3_hex(std::string_view bytes) { return hex(XXH3_64bits(bytes.data(), bytes.size())); }

std::string seal_bytes(std::string_view kind, std::string_view identity, std::string_view body) {
  const bool printable = std::all_of(kind.begin(), kind.end(), [](char c) { return std::isprint(static_cast<unsigned char>(c)); });
  if (kind.empty() || !printable || kind.find(';') != std::string_view::npos)
    throw std::invalid_argument(fmt::format("seal_bytes: a kind is one line of printable text without ';', got \"{}\"", kind));
  std::string bytes = fmt::format("{}{}: {}; identity {} bytes; body {} bytes{}", kMagic, kFormat, kind, identity.size(),
                                  body.size(), kChecksumField);
  const std::size_t checksum_at = bytes.size();
  bytes.append(kChecksumDigits, '0');
  bytes += '\n';
  bytes.append(identity);
  bytes += '\n';
  bytes.append(body);
  const std::string checksum = hex(contents_checksum(bytes, checksum_at));
  bytes.replace(checksum_at, kChecksumDigits, checksum);
  return bytes;
}

Unsealed unseal_bytes(const std::filesystem::path& file, std::string_view bytes, std::string_view kind) {
  const Header h = parse_header(file, bytes, kind);
  const std::size_t expected = h.size + h.identity_bytes + 1 + h.body_bytes;
  if (bytes.size() < expected)
    refuse(file, fmt::format("cut short: its header gives {} bytes in all, the file has {}", expected, bytes.size()));
  if (bytes.size() > expected)
    refuse(file, fmt::format("{} bytes after its end (its header gives {} bytes in all)", bytes.size() - expected, expected));
  if (bytes[h.size + h.identity_bytes] != '\n') refuse(file, "damaged: its identity does not end where its header says");
  const std::uint64_t actual = contents_checksum(bytes, h.checksum_at);
  if (actual != h.checksum)
    refuse(file, fmt::format("checksum mismatch: the contents were changed or damaged after they were written (xxh3 {} "
                             "in the header, {} of the contents)", hex(h.checksum), hex(actual)));
  return {std::string(bytes.substr(h.size, h.identity_bytes)), std::string(bytes.substr(h.size + h.identity_bytes + 1))};
}

Unsealed read_sealed_file(const std::filesystem::path& file, std::string_view kind, std::size_t max_bytes) {
  std::string bytes;
  try {
    bytes = read_input_file(file, max_bytes, fmt::format("a sealed \"{}\" file", kind), InputDigest::not_an_input);
  } catch (const InputFileError& e) {
    refuse(file, e.what());
  }
  return unseal_bytes(file, bytes, kind);
}

}  // namespace edgetwin
