// Reads one TOML file for the loaders: typed getters by dotted key that record Diagnostics
// instead of throwing, and a final check that every key in the file was asked for.
//
// Contract: the constructor parses the file; a missing file or a syntax error becomes a
// Diagnostic and every getter then does nothing. Getters may be called in any order; then
// finish() reports every key that no getter asked for as unknown (a typo must never fall back
// to a default) and throws one ConfigError with all problems, in file order.
// A getter leaves `out` untouched when the key is absent or bad, so an optional key keeps the
// struct's default member value (the one place defaults live). It returns false when it
// recorded a problem for the key or the file did not parse, so cross-checks can skip values
// that are not there. Messages say the bad value and what was expected, with its unit.
// Keys are dotted; an element of an array is written key[i] ("power_mode[2].cores"), as in
// messages.
#pragma once

#include <cstdint>
#include <filesystem>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "sim/config/config_error.hpp"
#include "sim/config/number_check.hpp"
#include "sim/config/source_map.hpp"
#include "sim/config/specs.hpp"

namespace edgetwin {

enum class Presence { required, optional };

class TomlReader {
 public:
  explicit TomlReader(const std::filesystem::path& file);

  const std::string& file_name() const { return file_name_; }
  bool parsed() const { return parsed_; }

  // True when the key is in the file. Counts as asking for it as a table: its own keys must
  // still be asked for one by one.
  bool has(std::string_view key);
  // True when the key is in the file. Asks for nothing: the key still has to be read.
  bool contains(std::string_view key) const;
  // Keys of the tables of an array of tables ([[power_mode]] -> "power_mode[0]", ...), in file
  // order. Each table's keys must be asked for one by one. Required means at least one table.
  std::vector<std::string> table_array(std::string_view key, Presence presence);
  // Names of the tables under key (the <name> of [storage.<name>]), in file order. Names must be
  // bare keys (letters, digits, '-', '_') since they are used on the command line. Required
  // means at least one such table.
  std::vector<std::string> table_names(std::string_view key, Presence presence);

  // A required string must not be empty. Strings are one line without control characters
  // (messages quote them), at most limits::text_bytes long; names (of devices, modes, media,
  // configurations: what a command line or another file refers to) at most limits::name_bytes.
  bool read_string(std::string_view key, std::string& out, Presence presence);
  bool read_name(std::string_view key, std::string& out, Presence presence);
  bool read_bool(std::string_view key, bool& out, Presence presence);
  bool read_choice(std::string_view key, std::string& out, Presence presence,
                   std::span<const std::string_view> valid);
  // Real-valued keys take TOML integers and floats (finite only); unit goes into messages and
  // picks the value's plausible range (sim/config/physical_range.hpp). Arrays have at most
  // limits::array_elements values, as [[arrays]] and [tables] have tables.
  bool read_number(std::string_view key, double& out, Presence presence, Bound bound, std::string_view unit);
  // Counts take TOML integers only.
  bool read_count(std::string_view key, std::int64_t& out, Presence presence, Bound bound, std::string_view unit);
  bool read_count(std::string_view key, int& out, Presence presence, Bound bound, std::string_view unit);
  bool read_numbers(std::string_view key, std::vector<double>& out, Presence presence, Bound bound,
                    std::string_view unit);
  bool read_counts(std::string_view key, std::vector<std::int64_t>& out, Presence presence, Bound bound,
                   std::string_view unit);
  bool read_strings(std::string_view key, std::vector<std::string>& out, Presence presence);
  // True when the key is in the file and holds an array. Asks for nothing.
  bool is_array(std::string_view key) const;

  // Records a problem a cross-check found, at the key's place in the file (or its nearest
  // table when absent). Dropped when the key already has a problem: the first says what to fix.
  void add_error(std::string_view key, std::string message);

  // Adds problems found in another file this one refers to (a medium file): reported after
  // this file's own, in the order given, each with its own file, line and column.
  void add_foreign_diagnostics(const std::vector<Diagnostic>& diagnostics);

  // Reports unknown keys, then throws ConfigError if any problem was recorded.
  void finish();
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

  // Where every key of the file stands, for checks made after loading.
  SourceMap source_map() const;

 private:
  struct Found {
    const toml::node* node = nullptr;  // nullptr: absent (or a problem was recorded)
    bool usable = false;               // false: a problem was recorded, or the file did not parse
  };

  void load(const std::filesystem::path& file);
  void parse(const std::string& text);
  Found find(std::string_view key, Presence presence, std::string_view expected);
  const toml::node* lookup(std::string_view key) const;
  toml::source_position position_of(std::string_view key) const;
  bool report_bad_value(std::string_view key, const toml::node& node, std::string_view expected);
  bool within_physical_range(std::string_view key, const toml::node& node, double value, std::string_view expected,
                             std::string_view unit);
  bool within_element_limit(std::string_view key, const toml::node& node, std::size_t size, std::string_view what);
  bool read_text(std::string_view key, std::string& out, Presence presence, std::size_t max_bytes);
  bool read_integer(std::string_view key, std::int64_t& out, const toml::node*& node, Presence presence, Bound bound,
                    std::string_view unit);
  void record(toml::source_position position, std::string_view key, std::string message);
  bool has_problem(std::string_view key) const;

  void mark_asked_value(std::string_view key);
  void mark_asked_table(std::string_view key);
  void remember_asked(std::string_view key);
  void report_unknown_keys(const toml::table& table, const std::string& path);
  std::string unknown_key_message(const std::string& parent, std::string_view name) const;
  std::vector<std::string> asked_children(const std::string& parent) const;

  template <typename T, typename Convert>
  bool read_array(std::string_view key, std::vector<T>& out, Presence presence, std::string_view unit,
                  std::string_view expected_element,
                  std::string_view expected_array, Convert convert);

  std::string file_name_;
  toml::table root_;
  bool parsed_ = false;
  std::vector<std::string> asked_;                     // every key asked for, in asking order (for hints)
  std::set<std::string, std::less<>> asked_set_;       // the same, to look up
  std::set<std::string, std::less<>> asked_values_;    // keys a getter read as a value
  std::set<std::string, std::less<>> asked_tables_;    // tables holding asked keys
  std::set<std::string, std::less<>> asked_table_arrays_;  // arrays of tables asked for
  std::vector<Diagnostic> diagnostics_;
  std::vector<Diagnostic> foreign_diagnostics_;        // from files this one refers to
  std::size_t problems_not_shown_ = 0;                 // past limits::diagnostics_per_file
};

// Reads one { kind, source } table such as provenance.cpu; kind is measured, spec or estimate.
bool read_provenance(TomlReader& reader, std::string_view key, Provenance& out);

// An optional table that is absent: its provenance.<table>, if given anyway, is read (so it is
// not also an unknown key) and refused as unused.
void refuse_provenance_without_table(TomlReader& reader, std::string_view table);

// `unknown storage "ssd2"; valid: sd, emmc, nvme`: the message for a value outside a fixed set.
std::string unknown_choice_message(std::string_view what, std::string_view value,
                                   const std::vector<std::string>& valid);

}  // namespace edgetwin
