#include "sim/config/source_map.hpp"

#include <algorithm>

namespace edgetwin {
namespace {

// "a.b[2].c" -> "a.b[2]" -> "a.b" -> "a" -> "".
std::string_view parent_of(std::string_view key) {
  const auto cut = key.find_last_of(".[");
  return cut == std::string_view::npos ? std::string_view() : key.substr(0, cut);
}

bool is_under(std::string_view key, std::string_view prefix) {
  return key.starts_with(prefix) &&
         (key.size() == prefix.size() || key[prefix.size()] == '.' || key[prefix.size()] == '[');
}

}  // namespace

SourceMap::SourceMap(std::string file, std::map<std::string, Place, std::less<>> places) {
  auto data = std::make_shared<Data>();
  data->files.push_back(std::move(file));
  for (auto& [key, place] : places) data->entries.emplace(key, Entry{0, place});
  data_ = std::move(data);
}

const std::string& SourceMap::file() const {
  static const std::string none;
  return data_ ? data_->files.front() : none;
}

Diagnostic SourceMap::at(std::string_view key, std::string message) const {
  if (!data_) return Diagnostic{"", 0, 0, std::string(key), std::move(message)};
  for (std::string_view k = key; !k.empty(); k = parent_of(k)) {
    const auto it = data_->entries.find(k);
    if (it != data_->entries.end())
      return Diagnostic{data_->files[it->second.file], it->second.place.line, it->second.place.column,
                        std::string(key), std::move(message)};
  }
  return Diagnostic{file(), 0, 0, std::string(key), std::move(message)};
}

SourceMap SourceMap::overlaid(std::string_view prefix, const SourceMap& other) const {
  auto data = std::make_shared<Data>(data_ ? *data_ : Data{{""}, {}});
  std::erase_if(data->entries, [&](const auto& entry) { return is_under(entry.first, prefix); });
  if (other.data_) {
    const std::size_t base = data->files.size();
    data->files.insert(data->files.end(), other.data_->files.begin(), other.data_->files.end());
    for (const auto& [key, entry] : other.data_->entries)
      if (is_under(key, prefix)) data->entries.emplace(key, Entry{base + entry.file, entry.place});
  }
  SourceMap out;
  out.data_ = std::move(data);
  return out;
}

}  // namespace edgetwin
