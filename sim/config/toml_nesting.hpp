// How deep a TOML text nests, measured before toml++ parses it.
//
// Why: toml++ (and every walk over a parsed document) recurses once per level of nesting, so
// a file of `[a.a.a.a...]` or `x = [[[[...]]]]` overflows the stack instead of failing with a
// message. A scan that keeps no more than a counter per open bracket finds such a file first.
//
// Contract: the depth of a value is the number of tables, dotted-key segments, arrays and
// inline tables it sits in: `[a.b]` then `c.d = [{ e = 1 }]` puts 1 at depth 2 + 2 + 1 + 1 + 1
// = 7. deeper_than(text, limit) returns where the first level past `limit` begins (line and
// column from 1, columns counted in characters as toml++ counts them), or nothing. Strings
// (all four kinds) and comments are skipped as TOML lexes them; on text that is not TOML the
// scan may count too much, never too little, so a file it passes cannot nest deeper.
#pragma once

#include <optional>
#include <string_view>

namespace edgetwin {

struct TextPlace {
  int line = 0;
  int column = 0;
};

std::optional<TextPlace> toml_nesting_deeper_than(std::string_view text, int limit);

}  // namespace edgetwin
