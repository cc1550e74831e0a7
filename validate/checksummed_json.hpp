// JSON that edgetwin-validate writes and reads back (report.json, the run journal), with a
// checksum of its own, so that a report or a journal line changed or damaged after it was
// written is refused instead of re-scored, and people and other tools still read it as JSON.
//
// Contract:
//   - A document (report.json) is doc.dump(2) with one more key at its end,
//     "checksum": "xxh3:<16 hex digits>", the XXH3_64bits (sim/app/sealed_file.hpp) of every byte
//     before that key's line. verified_document gives the parsed document (the checksum key
//     left in) or throws std::runtime_error saying what is wrong: no checksum at its end, a
//     checksum that does not match, or text that is not JSON.
//   - A line (a journal's) is the compact JSON, a tab, and the XXH3 of the JSON as 16 hex
//     digits; verified_line gives the parsed JSON or throws std::runtime_error the same way.
//     A line holds no newline: the caller splits the file at them.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace edgetwin::validate {

std::string checksummed_document(const nlohmann::json& doc);
nlohmann::json verified_document(std::string_view text);

std::string checksummed_line(const nlohmann::json& j);
nlohmann::json verified_line(std::string_view line);

}  // namespace edgetwin::validate
