#include "sim/config/toml_reader.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/config/input_file.hpp"
#include "sim/config/input_limits.hpp"
#include "sim/config/number_check.hpp"
#include "sim/config/physical_range.hpp"
#include "sim/config/toml_nesting.hpp"

namespace edgetwin {
namespace {

constexpr std::array<std::string_view, 4> kProvenanceKinds{"measured", "spec", "counted", "estimate"};

// Arrays in messages are cut after this many values: enough to see the bad one.
constexpr std::size_t kArrayValuesShown = 8;

std::vector<std::string_view> split_key(std::string_view key) {
  std::vector<std::string_view> segments;
  for (std::size_t start = 0;;) {
    std::size_t dot = key.find('.', start);
    segments.push_back(key.substr(start, dot - start));
    if (dot == std::string_view::npos) return segments;
    start = dot + 1;
  }
}

// "power_mode[2]" -> ("power_mode", 2); a segment without a trailing [digits] has no index.
std::pair<std::string_view, std::optional<std::size_t>> split_index(std::string_view segment) {
  std::size_t open = segment.rfind('[');
  if (open == std::string_view::npos || open == 0 || !segment.ends_with(']')) return {segment, std::nullopt};
  std::string_view digits = segment.substr(open + 1, segment.size() - open - 2);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos) {
    return {segment, std::nullopt};
  }
  std::size_t index = 0;
  for (char digit : digits) index = index * 10 + static_cast<std::size_t>(digit - '0');
  return {segment.substr(0, open), index};
}

// The element of an array a [i] segment names; nullptr when node is no array or i is past its end.
const toml::node* element_of(const toml::node* node, std::optional<std::size_t> index) {
  if (!node || !index) return node;
  const toml::array* array = node->as_array();
  return array ? array->get(*index) : nullptr;
}

std::string join_key(std::string_view parent, std::string_view name) {
  return parent.empty() ? std::string(name) : fmt::format("{}.{}", parent, name);
}

bool is_bare_key(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '_';
  });
}

// Keys written in messages the way TOML would need them, so `"a.b"` is not read as a table a.
std::string key_segment(std::string_view name) {
  return is_bare_key(name) ? std::string(name) : fmt::format("\"{}\"", name);
}

// Keeps one diagnostic on one line even when a text spans several.
std::string one_line(std::string_view text) {
  std::string out;
  for (char c : text) out += c == '\n' ? std::string("\\n") : std::string(1, c);
  return out;
}

// A string value as TOML would write it between double quotes.
std::string toml_quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : one_line(text)) out += c == '"' ? std::string("\\\"") : std::string(1, c);
  return out + "\"";
}

// A float as written in TOML: -3.0 stays "-3.0" so it is not mistaken for the integer -3.
std::string float_text(double value) {
  std::string text = fmt::format("{}", value);
  bool looks_integral = text.find_first_not_of("-0123456789") == std::string::npos;
  return looks_integral ? text + ".0" : text;
}

std::string value_text(const toml::node& node);

std::string array_text(const toml::array& array) {
  std::vector<std::string> items;
  for (std::size_t i = 0; i < std::min(array.size(), kArrayValuesShown); ++i) items.push_back(value_text(array[i]));
  if (array.size() > kArrayValuesShown) items.push_back("...");
  return fmt::format("[{}]", fmt::join(items, ", "));
}

// The value as the person wrote it, for "got ..." in messages.
std::string value_text(const toml::node& node) {
  if (const auto* text = node.as_string()) return toml_quoted(text->get());
  if (const auto* integer = node.as_integer()) return fmt::format("{}", integer->get());
  if (const auto* real = node.as_floating_point()) return float_text(real->get());
  if (const auto* boolean = node.as_boolean()) return boolean->get() ? "true" : "false";
  if (const auto* array = node.as_array()) return array_text(*array);
  if (node.is_table()) return "a table";
  std::ostringstream out;  // dates and times: toml++ prints them as TOML does
  if (const auto* date = node.as_date()) out << *date;
  if (const auto* time = node.as_time()) out << *time;
  if (const auto* date_time = node.as_date_time()) out << *date_time;
  return out.str();
}

bool has_control_character(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) { return std::iscntrl(static_cast<unsigned char>(c)) != 0; });
}

std::optional<double> real_in(const toml::node& node, Bound bound) {
  std::optional<double> value;
  if (const auto* integer = node.as_integer()) value = static_cast<double>(integer->get());
  if (const auto* real = node.as_floating_point()) value = real->get();
  if (!value || !std::isfinite(*value) || !within(*value, bound)) return std::nullopt;
  return value;
}

std::optional<std::int64_t> integer_in(const toml::node& node, Bound bound) {
  const auto* integer = node.as_integer();
  if (!integer || !within(integer->get(), bound)) return std::nullopt;
  return integer->get();
}

std::string lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitution});
    }
  }
  return row[b.size()];
}

// The known key a typo most likely meant; none when every candidate is too different to be
// a typo: more edits than a third of the name (at least one), or every character changed.
std::optional<std::string> closest_key(std::string_view name, const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = std::min(std::max<std::size_t>(1, name.size() / 3) + 1, name.size());
  for (const std::string& candidate : candidates) {
    std::size_t distance = edit_distance(lowercase(name), lowercase(candidate));
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

// toml++ keeps tables sorted by key; messages read better in the order of the file.
std::vector<std::pair<const toml::key*, const toml::node*>> in_file_order(const toml::table& table) {
  std::vector<std::pair<const toml::key*, const toml::node*>> entries;
  for (const auto& [key, node] : table) entries.emplace_back(&key, &node);
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    const toml::source_position& pa = a.first->source().begin;
    const toml::source_position& pb = b.first->source().begin;
    return std::pair(pa.line, pa.column) < std::pair(pb.line, pb.column);
  });
  return entries;
}

}  // namespace

TomlReader::TomlReader(const std::filesystem::path& file) : file_name_(file.string()) { load(file); }

// Reads the text itself rather than through toml::parse_file, whose error for a missing file
// does not carry the operating system's reason, and measures its nesting before toml++
// recurses into it.
void TomlReader::load(const std::filesystem::path& file) {
  std::string text;
  try {
    text = read_input_file(file, limits::toml_file_bytes, "a device, medium, workload, profile or grid file");
  } catch (const InputFileError& error) {
    record({}, "", error.what());
    return;
  }
  if (const auto deep = toml_nesting_deeper_than(text, limits::toml_nesting)) {
    record({static_cast<toml::source_index>(deep->line), static_cast<toml::source_index>(deep->column)}, "",
           fmt::format("nested deeper than {} levels (tables, dotted keys, arrays and inline tables together; edgetwin "
                       "files need 5)", limits::toml_nesting));
    return;
  }
  parse(text);
}

void TomlReader::parse(const std::string& text) {
#if TOML_EXCEPTIONS
  try {
    root_ = toml::parse(std::string_view(text), std::string_view(file_name_));
    parsed_ = true;
  } catch (const toml::parse_error& error) {
    record(error.source().begin, "", fmt::format("syntax error: {}", one_line(error.description())));
  }
#else
  toml::parse_result result = toml::parse(std::string_view(text), std::string_view(file_name_));
  if (!result) {
    const toml::parse_error& error = result.error();
    record(error.source().begin, "", fmt::format("syntax error: {}", one_line(error.description())));
    return;
  }
  root_ = std::move(result).table();
  parsed_ = true;
#endif
}

bool TomlReader::has(std::string_view key) {
  mark_asked_table(key);
  return find(key, Presence::optional, "").node != nullptr;
}

std::vector<std::string> TomlReader::table_names(std::string_view key, Presence presence) {
  mark_asked_table(key);
  const std::string expected = fmt::format("at least one [{}.<name>] table", key);
  Found found = find(key, presence, expected);
  if (!found.node) return {};
  const toml::table* table = found.node->as_table();
  if (!table) {
    report_bad_value(key, *found.node, expected);
    return {};
  }
  if (table->empty() && presence == Presence::required) {
    record(found.node->source().begin, key, fmt::format("expected {}, got none", expected));
  }
  if (!within_element_limit(key, *found.node, table->size(), fmt::format("[{}.<name>] tables", key))) {
    mark_asked_value(key);
    return {};
  }
  std::vector<std::string> names;
  for (const auto& [name, node] : in_file_order(*table)) {
    const std::string child = join_key(key, key_segment(name->str()));
    if (!node->is_table()) {
      mark_asked_value(child);
      report_bad_value(child, *node, fmt::format("a table [{}]", child));
    } else if (!is_bare_key(name->str())) {
      mark_asked_value(child);
      record(name->source().begin, child, "expected a name of letters, digits, '-' and '_' only");
    } else if (name->str().size() > limits::name_bytes) {
      mark_asked_value(child);
      record(name->source().begin, child, fmt::format("expected a name of at most {} bytes, got {} bytes",
                                                      limits::name_bytes, name->str().size()));
    } else {
      names.emplace_back(name->str());
    }
  }
  return names;
}

bool TomlReader::contains(std::string_view key) const { return parsed_ && lookup(key) != nullptr; }

std::vector<std::string> TomlReader::table_array(std::string_view key, Presence presence) {
  const std::string expected = fmt::format("at least one [[{}]] table", key);
  Found found = find(key, presence, expected);
  const toml::array* array = found.node ? found.node->as_array() : nullptr;
  if (found.node && (!array || (!array->empty() && !array->is_array_of_tables()))) {
    mark_asked_value(key);  // its contents are not walked for unknown keys: this is the problem to fix
    report_bad_value(key, *found.node, fmt::format("an array of tables [[{}]]", key));
    return {};
  }
  if (array && !within_element_limit(key, *found.node, array->size(), fmt::format("[[{}]] tables", key))) {
    mark_asked_value(key);  // as above: the count is the problem, not the keys of a thousand tables
    return {};
  }
  mark_asked_table(key);
  asked_table_arrays_.emplace(key);
  if (!array) return {};
  if (array->empty() && presence == Presence::required) {
    record(found.node->source().begin, key, fmt::format("expected {}, got none", expected));
  }
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < array->size(); ++i) {
    keys.push_back(fmt::format("{}[{}]", key, i));
    mark_asked_table(keys.back());
  }
  return keys;
}

bool TomlReader::read_string(std::string_view key, std::string& out, Presence presence) {
  return read_text(key, out, presence, limits::text_bytes);
}

bool TomlReader::read_name(std::string_view key, std::string& out, Presence presence) {
  return read_text(key, out, presence, limits::name_bytes);
}

bool TomlReader::read_text(std::string_view key, std::string& out, Presence presence, std::size_t max_bytes) {
  mark_asked_value(key);
  const std::string expected = presence == Presence::required ? "a non-empty string" : "a string";
  Found found = find(key, presence, expected);
  if (!found.node) return found.usable;
  const auto* text = found.node->as_string();
  if (!text || (presence == Presence::required && text->get().empty())) {
    return report_bad_value(key, *found.node, expected);
  }
  if (text->get().size() > max_bytes) {
    record(found.node->source().begin, key,
           fmt::format("expected {} of at most {} bytes, got {} bytes", expected, max_bytes, text->get().size()));
    return false;
  }
  if (has_control_character(text->get())) {
    return report_bad_value(key, *found.node, fmt::format("{} on one line, without control characters", expected));
  }
  out = text->get();
  return true;
}

bool TomlReader::read_bool(std::string_view key, bool& out, Presence presence) {
  mark_asked_value(key);
  Found found = find(key, presence, "true or false");
  if (!found.node) return found.usable;
  const auto* boolean = found.node->as_boolean();
  if (!boolean) return report_bad_value(key, *found.node, "true or false");
  out = boolean->get();
  return true;
}

bool TomlReader::read_choice(std::string_view key, std::string& out, Presence presence,
                             std::span<const std::string_view> valid) {
  mark_asked_value(key);
  const std::string expected = fmt::format("one of {}", fmt::join(valid, ", "));
  Found found = find(key, presence, expected);
  if (!found.node) return found.usable;
  const auto* text = found.node->as_string();
  if (!text) return report_bad_value(key, *found.node, expected);
  if (std::find(valid.begin(), valid.end(), text->get()) == valid.end()) {
    std::string_view what = split_key(key).back();
    record(found.node->source().begin, key,
           unknown_choice_message(what, text->get(), std::vector<std::string>(valid.begin(), valid.end())));
    return false;
  }
  out = text->get();
  return true;
}

bool TomlReader::read_number(std::string_view key, double& out, Presence presence, Bound bound,
                             std::string_view unit) {
  mark_asked_value(key);
  const std::string expected = expected_scalar("number", bound, unit);
  Found found = find(key, presence, expected);
  if (!found.node) return found.usable;
  std::optional<double> value = real_in(*found.node, bound);
  if (!value) return report_bad_value(key, *found.node, expected);
  if (!within_physical_range(key, *found.node, *value, expected, unit)) return false;
  out = *value;
  return true;
}

bool TomlReader::read_count(std::string_view key, std::int64_t& out, Presence presence, Bound bound,
                            std::string_view unit) {
  const toml::node* node = nullptr;
  std::int64_t value = out;
  if (!read_integer(key, value, node, presence, bound, unit)) return false;
  if (node && !within_physical_range(key, *node, static_cast<double>(value), expected_scalar("integer", bound, unit),
                                     unit)) {
    return false;
  }
  out = value;
  return true;
}

bool TomlReader::read_count(std::string_view key, int& out, Presence presence, Bound bound, std::string_view unit) {
  const toml::node* node = nullptr;
  std::int64_t wide = out;
  if (!read_integer(key, wide, node, presence, bound, unit)) return false;
  constexpr std::int64_t kLargest = std::numeric_limits<int>::max();
  constexpr std::int64_t kSmallest = std::numeric_limits<int>::min();
  const std::string expected = expected_scalar("integer", bound, unit);
  if (wide > kLargest || wide < kSmallest) {
    add_error(key, fmt::format("expected {} that fits in 32 bits ({} to {}), got {}", expected, kSmallest, kLargest,
                               wide));
    return false;
  }
  if (node && !within_physical_range(key, *node, static_cast<double>(wide), expected, unit)) return false;
  out = static_cast<int>(wide);
  return true;
}

// The integer at key, within its bound; node is where it stands (nullptr when absent).
bool TomlReader::read_integer(std::string_view key, std::int64_t& out, const toml::node*& node, Presence presence,
                              Bound bound, std::string_view unit) {
  mark_asked_value(key);
  const std::string expected = expected_scalar("integer", bound, unit);
  Found found = find(key, presence, expected);
  if (!found.node) return found.usable;
  std::optional<std::int64_t> value = integer_in(*found.node, bound);
  if (!value) return report_bad_value(key, *found.node, expected);
  node = found.node;
  out = *value;
  return true;
}

template <typename T, typename Convert>
bool TomlReader::read_array(std::string_view key, std::vector<T>& out, Presence presence, std::string_view unit,
                            std::string_view expected_element, std::string_view expected_whole, Convert convert) {
  mark_asked_value(key);
  Found found = find(key, presence, expected_whole);
  if (!found.node) return found.usable;
  const toml::array* array = found.node->as_array();
  if (!array) return report_bad_value(key, *found.node, expected_whole);
  if (!within_element_limit(key, *found.node, array->size(), "values")) return false;
  std::vector<T> values;
  bool all_good = true;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const std::string element = fmt::format("{}[{}]", key, i);
    std::optional<T> value = convert((*array)[i]);
    if (!value) {
      all_good = report_bad_value(element, (*array)[i], expected_element);
    } else if (within_physical_range(element, (*array)[i], static_cast<double>(*value), expected_element, unit)) {
      values.push_back(*value);
    } else {
      all_good = false;
    }
  }
  if (all_good) out = std::move(values);
  return all_good;
}

bool TomlReader::read_numbers(std::string_view key, std::vector<double>& out, Presence presence, Bound bound,
                              std::string_view unit) {
  return read_array(key, out, presence, unit, expected_scalar("number", bound, unit),
                    expected_array("number", bound, unit),
                    [bound](const toml::node& node) { return real_in(node, bound); });
}

bool TomlReader::read_counts(std::string_view key, std::vector<std::int64_t>& out, Presence presence, Bound bound,
                             std::string_view unit) {
  return read_array(key, out, presence, unit, expected_scalar("integer", bound, unit),
                    expected_array("integer", bound, unit),
                    [bound](const toml::node& node) { return integer_in(node, bound); });
}

// Names, each under the rules of read_name.
bool TomlReader::read_strings(std::string_view key, std::vector<std::string>& out, Presence presence) {
  mark_asked_value(key);
  const std::string expected_whole = "an array of non-empty strings";
  Found found = find(key, presence, expected_whole);
  if (!found.node) return found.usable;
  const toml::array* array = found.node->as_array();
  if (!array) return report_bad_value(key, *found.node, expected_whole);
  if (!within_element_limit(key, *found.node, array->size(), "values")) return false;
  std::vector<std::string> values(array->size());
  bool all_good = true;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const auto* text = (*array)[i].as_string();
    const bool good = text != nullptr && !text->get().empty() && text->get().size() <= limits::name_bytes &&
                      !has_control_character(text->get());
    if (good) values[i] = text->get();
    else all_good = report_bad_value(fmt::format("{}[{}]", key, i), (*array)[i],
                                     fmt::format("a non-empty string on one line of at most {} bytes", limits::name_bytes));
  }
  if (all_good) out = std::move(values);
  return all_good;
}

bool TomlReader::is_array(std::string_view key) const {
  const toml::node* node = parsed_ ? lookup(key) : nullptr;
  return node != nullptr && node->is_array();
}

void TomlReader::add_error(std::string_view key, std::string message) {
  if (!parsed_ || has_problem(key)) return;
  record(position_of(key), key, std::move(message));
}

void TomlReader::add_foreign_diagnostics(const std::vector<Diagnostic>& diagnostics) {
  foreign_diagnostics_.insert(foreign_diagnostics_.end(), diagnostics.begin(), diagnostics.end());
}

void TomlReader::finish() {
  if (parsed_) report_unknown_keys(root_, "");
  std::stable_sort(diagnostics_.begin(), diagnostics_.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::pair(a.line, a.column) < std::pair(b.line, b.column);
  });
  std::vector<Diagnostic> all = diagnostics_;
  if (problems_not_shown_ > 0) {
    all.push_back(Diagnostic{file_name_, 0, 0, "",
                             fmt::format("{} more problems not shown (at most {} per file): is this the right file?",
                                         problems_not_shown_, limits::diagnostics_per_file)});
  }
  all.insert(all.end(), foreign_diagnostics_.begin(), foreign_diagnostics_.end());
  if (!all.empty()) throw ConfigError(std::move(all));
}

// Walks to key, reporting a missing required key and any parent that is not a table.
TomlReader::Found TomlReader::find(std::string_view key, Presence presence, std::string_view expected) {
  if (!parsed_) return {};
  const toml::node* node = &root_;
  std::string path;
  for (std::string_view segment : split_key(key)) {
    const toml::table* table = node->as_table();
    if (!table) {
      report_bad_value(path, *node, "a table");
      return {};
    }
    auto [name, index] = split_index(segment);
    path = join_key(path, segment);
    node = element_of(table->get(name), index);
    if (!node && presence == Presence::optional) return {nullptr, true};
    if (!node) {
      add_error(key, fmt::format("missing required key; expected {}", expected));
      return {};
    }
  }
  return {node, true};
}

// The node at key, or nullptr when it (or a table on the way) is not there.
const toml::node* TomlReader::lookup(std::string_view key) const {
  const toml::node* node = &root_;
  for (std::string_view segment : split_key(key)) {
    const toml::table* table = node->as_table();
    auto [name, index] = split_index(segment);
    node = table ? element_of(table->get(name), index) : nullptr;
    if (!node) return nullptr;
  }
  return node;
}

// Where key is in the file, or where its nearest existing table starts; 0:0 for the top level.
namespace {

void collect_places(const toml::node& node, const std::string& key, std::map<std::string, SourceMap::Place, std::less<>>& out) {
  const auto& begin = node.source().begin;
  if (!key.empty()) out.emplace(key, SourceMap::Place{static_cast<int>(begin.line), static_cast<int>(begin.column)});
  if (const toml::table* table = node.as_table()) {
    for (const auto& [name, child] : *table) collect_places(child, join_key(key, key_segment(name.str())), out);
  } else if (const toml::array* array = node.as_array()) {
    for (std::size_t i = 0; i < array->size(); ++i) collect_places(*array->get(i), fmt::format("{}[{}]", key, i), out);
  }
}

}  // namespace

SourceMap TomlReader::source_map() const {
  std::map<std::string, SourceMap::Place, std::less<>> places;
  if (parsed_) collect_places(root_, "", places);
  return SourceMap(file_name_, std::move(places));
}

toml::source_position TomlReader::position_of(std::string_view key) const {
  toml::source_position position{};
  const toml::node* node = &root_;
  for (std::string_view segment : split_key(key)) {
    auto [name, index] = split_index(segment);
    const toml::table* table = node->as_table();
    const toml::node* child = table ? table->get(name) : nullptr;
    if (!child) break;
    node = child;
    position = node->source().begin;
    if (index) {
      const toml::node* element = element_of(node, index);
      if (!element) break;
      node = element;
      position = node->source().begin;
    }
  }
  return position;
}

bool TomlReader::report_bad_value(std::string_view key, const toml::node& node, std::string_view expected) {
  record(node.source().begin, key, fmt::format("expected {}, got {}", expected, value_text(node)));
  return false;
}

bool TomlReader::within_physical_range(std::string_view key, const toml::node& node, double value,
                                       std::string_view expected, std::string_view unit) {
  const std::optional<std::string> outside = outside_physical_range(value, unit);
  if (!outside) return true;
  record(node.source().begin, key, fmt::format("expected {} {}, got {}", expected, *outside, value_text(node)));
  return false;
}

bool TomlReader::within_element_limit(std::string_view key, const toml::node& node, std::size_t size,
                                      std::string_view what) {
  if (size <= limits::array_elements) return true;
  record(node.source().begin, key,
         fmt::format("expected at most {} {} (sim/config/input_limits.hpp), got {}", limits::array_elements, what, size));
  return false;
}

// The same problem reached by two routes (a parent that is not a table) is reported once.
// Past the limit, problems are only counted: finish() says how many were left out.
void TomlReader::record(toml::source_position position, std::string_view key, std::string message) {
  for (const Diagnostic& known : diagnostics_) {
    if (known.key == key && known.message == message) return;
  }
  if (diagnostics_.size() >= limits::diagnostics_per_file) {
    ++problems_not_shown_;
    return;
  }
  diagnostics_.push_back(Diagnostic{file_name_, static_cast<int>(position.line), static_cast<int>(position.column),
                                    std::string(key), std::move(message)});
}

bool TomlReader::has_problem(std::string_view key) const {
  return std::any_of(diagnostics_.begin(), diagnostics_.end(),
                     [&](const Diagnostic& diagnostic) { return diagnostic.key == key; });
}

void TomlReader::mark_asked_value(std::string_view key) {
  remember_asked(key);
  asked_values_.emplace(key);
}

void TomlReader::mark_asked_table(std::string_view key) {
  remember_asked(key);
  asked_tables_.emplace(key);
}

// Also marks the tables above key, so the unknown-key walk descends into them.
void TomlReader::remember_asked(std::string_view key) {
  if (asked_set_.emplace(key).second) asked_.emplace_back(key);
  for (std::size_t dot = key.find('.'); dot != std::string_view::npos; dot = key.find('.', dot + 1)) {
    asked_tables_.emplace(key.substr(0, dot));
  }
}

void TomlReader::report_unknown_keys(const toml::table& table, const std::string& path) {
  for (const auto& [name, node] : in_file_order(table)) {
    const std::string key = join_key(path, key_segment(name->str()));
    if (asked_values_.contains(key)) continue;
    if (!asked_tables_.contains(key)) {
      record(name->source().begin, key, unknown_key_message(path, name->str()));
    } else if (const toml::table* child = node->as_table()) {
      report_unknown_keys(*child, key);
    } else if (const toml::array* array = node->as_array(); array && asked_table_arrays_.contains(key)) {
      for (std::size_t i = 0; i < array->size(); ++i) {
        const toml::table* element = array->get(i)->as_table();
        if (element) report_unknown_keys(*element, fmt::format("{}[{}]", key, i));
      }
    } else {
      report_bad_value(key, *node, "a table");
    }
  }
}

std::string TomlReader::unknown_key_message(const std::string& parent, std::string_view name) const {
  const std::vector<std::string> valid = asked_children(parent);
  if (valid.empty()) return "unknown key";
  if (std::optional<std::string> suggestion = closest_key(name, valid)) {
    return fmt::format("unknown key; did you mean \"{}\"? (valid here: {})", *suggestion, fmt::join(valid, ", "));
  }
  return fmt::format("unknown key; valid here: {}", fmt::join(valid, ", "));
}

// The names directly under parent that the loader asked for, in asking order.
std::vector<std::string> TomlReader::asked_children(const std::string& parent) const {
  const std::string prefix = parent.empty() ? "" : parent + ".";
  std::vector<std::string> children;
  for (const std::string& key : asked_) {
    if (!key.starts_with(prefix)) continue;
    std::string child = key.substr(prefix.size(), key.find('.', prefix.size()) - prefix.size());
    child = std::string(split_index(child).first);  // power_mode[0] is a power_mode
    if (std::find(children.begin(), children.end(), child) == children.end()) children.push_back(child);
  }
  return children;
}

void refuse_provenance_without_table(TomlReader& reader, std::string_view table) {
  const std::string key = fmt::format("provenance.{}", table);
  if (!reader.contains(key)) return;
  Provenance unused;
  read_provenance(reader, key, unused);
  reader.add_error(key, fmt::format("not used: the file has no [{}] table; remove it", table));
}

bool read_provenance(TomlReader& reader, std::string_view key, Provenance& out) {
  if (!reader.has(key)) {
    reader.add_error(key, R"(missing required key; expected { kind = "measured" | "spec" | "counted" | "estimate", )"
                          R"(source = "where the numbers come from" })");
    return false;
  }
  const std::string prefix(key);
  bool kind_ok = reader.read_choice(prefix + ".kind", out.kind, Presence::required, kProvenanceKinds);
  bool source_ok = reader.read_string(prefix + ".source", out.source, Presence::required);
  return kind_ok && source_ok;
}

std::string unknown_choice_message(std::string_view what, std::string_view value,
                                   const std::vector<std::string>& valid) {
  return fmt::format("unknown {} {}; valid: {}", what, toml_quoted(value), fmt::join(valid, ", "));
}

}  // namespace edgetwin
