#include "sim/app/chunk_distribution.hpp"

#include <memory>
#include <stdexcept>

namespace edgetwin {

TaskSource cyclic_chunks(std::size_t chunks, std::size_t index, std::size_t count) {
  auto next = std::make_shared<std::size_t>(index);
  return [next, chunks, count]() -> std::optional<std::size_t> {
    if (*next >= chunks) return std::nullopt;
    const std::size_t chunk = *next;
    *next += count;
    return chunk;
  };
}

TaskSource LocalDistribution::hand_out(std::size_t chunks) { return cyclic_chunks(chunks, 0, 1); }

std::vector<std::string> LocalDistribution::gather(std::size_t chunks, ChunkBytes mine) {
  std::vector<std::string> all(chunks);
  for (auto& [chunk, bytes] : mine) all.at(chunk) = std::move(bytes);
  if (mine.size() != chunks) throw std::logic_error("internal error: a chunk of the batch did not run");
  return all;
}

}  // namespace edgetwin
