// Sealed files: what edgetwin writes and reads back itself (shard files, learning-run
// checkpoints), so that a flipped byte, a cut, a file of another kind or another run is
// refused by name instead of read as numbers.
//
// Format: one header line, the identity, a newline, the body:
//   edgetwin sealed file 1: <kind>; identity <I> bytes; body <B> bytes; xxh3 <16 lowercase hex digits>\n
//   <I bytes of identity>\n
//   <B bytes of body>
// The checksum is xxHash's XXH3_64bits (Debian's libxxhash) of every byte of the file but its
// own 16 digits: the kind, both lengths, the identity and the body. The identity says which
// run the body belongs to (the caller compares it); a one-line identity keeps `head -2 FILE`
// readable.
//
// Contract:
//   - seal_bytes(kind, identity, body) gives the bytes to write (through OutputFile,
//     sim/app/output_file.hpp). The kind is one line of printable text without ';'
//     (std::invalid_argument otherwise: a programming error).
//   - unseal_bytes(file, bytes, kind) gives back the identity and body, or throws ConfigError
//     (exit 2) with one Diagnostic naming `file` and what is wrong: not a sealed file, a sealed
//     file of another kind, another format version, cut short, bytes after its end, a damaged
//     header, or a checksum that does not match the contents. It never reads past `bytes`.
//   - read_sealed_file(file, kind, max_bytes) reads the file through the one input reader
//     (sim/config/input_file.hpp: regular files only, at most max_bytes; not counted among the
//     inputs of the run) and unseals it; a file that cannot be read is a ConfigError naming it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace edgetwin {

std::string seal_bytes(std::string_view kind, std::string_view identity, std::string_view body);

struct Unsealed {
  std::string identity;
  std::string body;
};

Unsealed unseal_bytes(const std::filesystem::path& file, std::string_view bytes, std::string_view kind);

Unsealed read_sealed_file(const std::filesystem::path& file, std::string_view kind, std::size_t max_bytes);

// XXH3_64bits of the bytes as 16 lowercase hex digits: the checksum sealed files carry, for
// files that keep a checksum of their own (validate's run journal and report.json).
std::string xxh3_hex(std::string_view bytes);

}  // namespace edgetwin
