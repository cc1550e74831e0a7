#include "sim/app/shard_files.hpp"

#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "sim/app/member_chunks.hpp"
#include "sim/app/output_file.hpp"
#include "sim/app/sealed_file.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/input_file.hpp"
#include "sim/config/input_limits.hpp"
#include "sim/config/json_integer.hpp"

#ifndef EDGETWIN_VERSION
#define EDGETWIN_VERSION "unknown"
#endif

namespace edgetwin {
namespace {

// The sealed kind (sim/app/sealed_file.hpp); its identity is one line of JSON, its body the
// chunks' result bytes.
constexpr std::string_view kKind = "edgetwin shard";
constexpr std::size_t kMaxShards = 1'000'000;  // as --shard K/N takes
constexpr std::size_t kMaxMissingListed = 10;  // a merge of few files keeps its error one short line

[[noreturn]] void refuse(const std::filesystem::path& file, const std::string& message) {
  throw ConfigError({Diagnostic{file.string(), 0, 0, "", message}});
}

std::string hex(std::uint64_t value) { return fmt::format("{:016x}", value); }

nlohmann::json identity_json(const ShardIdentity& id) {
  return {{"version", id.version}, {"build", id.build},   {"command", id.command},
          {"arguments", id.arguments}, {"inputs", id.inputs},  {"shard", id.shard},   {"shards", id.shards},
          {"chunks", id.chunks}};
}

struct ShardFile {
  ShardIdentity identity;
  ChunkBytes chunks;
};

ShardIdentity identity_of(const nlohmann::json& h) {
  ShardIdentity id;
  id.version = h.at("version").get<std::string>();
  id.build = h.at("build").get<std::string>();
  id.command = h.at("command").get<std::string>();
  id.arguments = h.at("arguments").get<std::vector<std::string>>();
  id.inputs = h.at("inputs").get<std::string>();
  id.shard = integer_of<std::size_t>(h.at("shard"));
  id.shards = integer_of<std::size_t>(h.at("shards"));
  id.chunks = integer_of<std::size_t>(h.at("chunks"));
  return id;
}

// The chunks a shard holds: c mod N == K - 1, each once, each below the batch's count.
void check_chunks(const std::filesystem::path& file, const ShardIdentity& id, const ChunkBytes& chunks) {
  const std::size_t first = id.shard - 1;
  const std::size_t expected = id.chunks > first ? (id.chunks - first - 1) / id.shards + 1 : 0;
  if (chunks.size() != expected)
    refuse(file, fmt::format("holds {} chunks; shard {}/{} of {} chunks has {}", chunks.size(), id.shard, id.shards,
                             id.chunks, expected));
  for (const auto& [chunk, bytes] : chunks)
    if (chunk % id.shards != first)
      refuse(file, fmt::format("holds chunk {}, which is not shard {}/{}'s", chunk, id.shard, id.shards));
}

// Every figure of every chunk within its declared range: a shard whose checksum was forged, or
// that an older build wrote, still prints nothing absurd.
void check_results(const std::filesystem::path& file, const ChunkBytes& chunks) {
  for (const auto& [chunk, bytes] : chunks) {
    try {
      read_chunk_results(bytes);
    } catch (const DamagedResults& e) {
      refuse(file, fmt::format("chunk {}: {}", chunk, e.what()));
    }
  }
}

ShardFile read_shard_file(const std::filesystem::path& file) {
  const Unsealed sealed = read_sealed_file(file, kKind, limits::shard_file_bytes);
  const std::string& bytes = sealed.body;
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(sealed.identity);
  } catch (const nlohmann::json::exception&) {
    refuse(file, "damaged shard identity: not JSON");
  }
  if (!header.is_object()) refuse(file, "damaged shard identity: not a JSON object");
  ShardFile shard;
  std::size_t offset = 0;
  try {
    shard.identity = identity_of(header);
    const ShardIdentity& id = shard.identity;
    if (id.shards < 1 || id.shards > kMaxShards || id.shard < 1 || id.shard > id.shards)
      refuse(file, fmt::format("shard {}/{} is not a part (expected 1 <= K <= N <= {})", id.shard, id.shards, kMaxShards));
    for (const auto& entry : header.at("sizes")) {
      const auto chunk = integer_of<std::size_t>(entry.at(0));
      const auto size = integer_of<std::size_t>(entry.at(1));
      if (size > bytes.size() - offset) refuse(file, "is cut short (its chunks end before the header says)");
      if (chunk >= id.chunks || !shard.chunks.emplace(chunk, bytes.substr(offset, size)).second)
        refuse(file, fmt::format("lists chunk {} twice or beyond the batch's {} chunks", chunk, id.chunks));
      offset += size;
    }
  } catch (const nlohmann::json::exception& e) {
    refuse(file, fmt::format("damaged shard header: {}", e.what()));
  } catch (const std::logic_error& e) {  // integer_of: not an integer, or past size_t
    refuse(file, fmt::format("damaged shard header: {}", e.what()));
  }
  if (offset != bytes.size()) refuse(file, fmt::format("has {} bytes after its last chunk", bytes.size() - offset));
  check_chunks(file, shard.identity, shard.chunks);
  check_results(file, shard.chunks);
  return shard;
}

// Why `other` is not a shard of the same run as `first`, or nothing; `whose` names first
// ("the first shard's", "this run's").
std::optional<std::string> foreign(const ShardIdentity& first, const ShardIdentity& other,
                                   const std::string& whose = "the first shard's") {
  if (other.version != first.version || other.build != first.build)
    return fmt::format("made by edgetwin {} (build {}); {} edgetwin {} (build {})", other.version, other.build,
                       whose, first.version, first.build);
  if (other.command != first.command) return fmt::format("a shard of {}; {} command {}", other.command, whose, first.command);
  if (other.arguments != first.arguments)
    return fmt::format("a shard of another run: arguments \"{}\"; {} \"{}\"", fmt::join(other.arguments, " "), whose,
                       fmt::join(first.arguments, " "));
  if (other.inputs != first.inputs) return "a shard of the same command on other input files (devices, workloads, profiles or fleets changed)";
  if (other.shards != first.shards || other.chunks != first.chunks)
    return fmt::format("one of {} shards of {} chunks; {} {} of {}", other.shards, other.chunks, whose, first.shards,
                       first.chunks);
  return std::nullopt;
}

// Names the first few shards missing and counts the rest: a header may claim up to a million.
[[noreturn]] void refuse_missing_shards(const std::map<std::size_t, std::filesystem::path>& file_of_shard,
                                        std::size_t shards, std::size_t files) {
  std::vector<std::string> listed;
  for (std::size_t k = 1; k <= shards && listed.size() < kMaxMissingListed; ++k)
    if (!file_of_shard.contains(k)) listed.push_back(fmt::format("{}/{}", k, shards));
  const std::size_t missing = shards - file_of_shard.size();
  const std::string more = missing > listed.size() ? fmt::format(" and {} more", missing - listed.size()) : "";
  throw ConfigError({Diagnostic{"", 0, 0, "merge",
                                fmt::format("shard{} {}{} missing (given: {} file{})", missing > 1 ? "s" : "",
                                            fmt::join(listed, ", "), more, files, files > 1 ? "s" : "")}});
}

}  // namespace

std::pair<std::size_t, std::size_t> parse_shard(const std::string& text) {
  std::size_t k = 0, n = 0;
  char slash = 0;
  int used = 0;
  const bool parsed = std::sscanf(text.c_str(), "%zu%c%zu%n", &k, &slash, &n, &used) == 3 && slash == '/' &&
                      static_cast<std::size_t>(used) == text.size();
  if (!parsed || n < 1 || k < 1 || k > n || n > kMaxShards)
    throw ConfigError({Diagnostic{"", 0, 0, "--shard",
                                  fmt::format("expected K/N with 1 <= K <= N <= {} (shard K of N), got \"{}\"", kMaxShards, text)}});
  return {k, n};
}

std::string build_digest() {
  static const std::string digest = [] {
    std::ifstream in("/proc/self/exe", std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return hex(fnv1a(bytes));
  }();
  return digest;
}

ShardRecorder::ShardRecorder(std::string command, std::vector<std::string> arguments, std::size_t shard,
                             std::size_t shards, const std::filesystem::path& dir)
    : path_(dir / fmt::format("{}-shard-{}-of-{}.etshard", command, shard, shards)) {
  identity_.version = EDGETWIN_VERSION;
  identity_.build = build_digest();
  identity_.command = std::move(command);
  identity_.arguments = std::move(arguments);
  identity_.shard = shard;
  identity_.shards = shards;
  check_output_target(path_, "--shard-dir");
}

TaskSource ShardRecorder::hand_out(std::size_t chunks) {
  identity_.inputs = hex(inputs_digest());
  identity_.chunks = chunks;
  std::error_code error;
  if (std::filesystem::exists(path_, error)) {
    std::optional<std::string> why;
    try {
      why = foreign(identity_, read_shard_file(path_).identity, "this run's");
    } catch (const ConfigError& e) {
      why = e.what();
    }
    if (!why) throw ShardFinished(fmt::format("shard {}/{}: already finished in {}", identity_.shard, identity_.shards, path_.string()));
    refuse(path_, fmt::format("holds another run's shard ({}); remove it to run this one", *why));
  }
  return cyclic_chunks(chunks, identity_.shard - 1, identity_.shards);
}

std::vector<std::string> ShardRecorder::gather(std::size_t chunks, ChunkBytes mine) {
  nlohmann::json header = identity_json(identity_);
  nlohmann::json sizes = nlohmann::json::array();
  std::size_t members_bytes = 0;
  for (const auto& [chunk, bytes] : mine) {
    sizes.push_back({chunk, bytes.size()});
    members_bytes += bytes.size();
  }
  header["sizes"] = sizes;
  std::string body;
  body.reserve(members_bytes);
  for (const auto& [chunk, bytes] : mine) body += bytes;
  OutputFile file(path_);
  file.write(seal_bytes(kKind, header.dump(), body));
  file.commit();
  throw ShardFinished(fmt::format("shard {}/{}: {} of {} chunks ({} bytes) written to {}", identity_.shard,
                                  identity_.shards, mine.size(), chunks, members_bytes, path_.string()));
}

ShardSet::ShardSet(ShardIdentity identity, std::filesystem::path first_file, ChunkBytes chunks,
                   std::map<std::size_t, std::filesystem::path> file_of_chunk)
    : identity_(std::move(identity)),
      first_file_(std::move(first_file)),
      chunks_(std::move(chunks)),
      file_of_chunk_(std::move(file_of_chunk)) {}

TaskSource ShardSet::hand_out(std::size_t chunks) {
  if (used_) return local_.hand_out(chunks);
  if (hex(inputs_digest()) != identity_.inputs)
    refuse(first_file_, "the shards were run on other input files than those read here (a device, workload, "
                        "profile or fleet file changed since)");
  if (chunks != identity_.chunks)
    refuse(first_file_, fmt::format("the shards split {} chunks, this run has {}", identity_.chunks, chunks));
  return [] { return std::optional<std::size_t>(); };
}

std::vector<std::string> ShardSet::gather(std::size_t chunks, ChunkBytes mine) {
  gathered_from_files_ = !used_;
  if (used_) return local_.gather(chunks, std::move(mine));
  used_ = true;
  return local_.gather(chunks, std::move(chunks_));
}

std::string ShardSet::source_of(std::size_t chunk) const {
  const auto found = file_of_chunk_.find(chunk);
  return !gathered_from_files_ || found == file_of_chunk_.end() ? std::string() : found->second.string();
}

std::unique_ptr<ShardSet> read_shard_set(const std::vector<std::filesystem::path>& files) {
  if (files.empty()) throw ConfigError({Diagnostic{"", 0, 0, "merge", "expected one or more shard files"}});
  std::optional<ShardIdentity> first;
  std::map<std::size_t, std::filesystem::path> file_of_shard;
  ChunkBytes all;
  std::map<std::size_t, std::filesystem::path> file_of_chunk;
  for (const auto& file : files) {
    ShardFile shard = read_shard_file(file);
    if (!first) first = shard.identity;
    if (auto why = foreign(*first, shard.identity)) refuse(file, fmt::format("{} ({})", *why, files.front().string()));
    const auto [at, fresh] = file_of_shard.emplace(shard.identity.shard, file);
    if (!fresh) refuse(file, fmt::format("shard {}/{} again (also in {})", shard.identity.shard, first->shards, at->second.string()));
    for (const auto& [chunk, bytes] : shard.chunks) file_of_chunk.emplace(chunk, file);
    all.merge(shard.chunks);
  }
  if (file_of_shard.size() < first->shards) refuse_missing_shards(file_of_shard, first->shards, files.size());
  first->shard = 0;
  return std::make_unique<ShardSet>(*first, files.front(), std::move(all), std::move(file_of_chunk));
}

}  // namespace edgetwin
