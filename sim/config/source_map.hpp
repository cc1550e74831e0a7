// Where each key of a loaded file stands, so that checks made after loading (in the model,
// across files, in a command) report file:line:column as the loaders' own do.
//
// Contract: a SourceMap is cheap to copy (specs are copied per sweep configuration) and
// immutable. at(key, message) gives a Diagnostic at the key's place; a key the file lacks is
// placed at its nearest enclosing table the file has ("costs.compute" -> [costs]), else at
// the file without a line. Keys are dotted as in messages, array elements as key[i]. A map
// built in code (a spec made by hand in a test) has no file: the Diagnostic names the key
// alone. overlaid(prefix, other) takes every key under prefix from other, as when a
// profile's costs replace a workload's.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/config_error.hpp"

namespace edgetwin {

class SourceMap {
 public:
  struct Place {
    int line = 0;
    int column = 0;
  };

  SourceMap() = default;
  SourceMap(std::string file, std::map<std::string, Place, std::less<>> places);

  Diagnostic at(std::string_view key, std::string message) const;
  SourceMap overlaid(std::string_view prefix, const SourceMap& other) const;
  const std::string& file() const;

 private:
  struct Entry {
    std::size_t file = 0;  // index into Data::files
    Place place;
  };
  struct Data {
    std::vector<std::string> files;
    std::map<std::string, Entry, std::less<>> entries;
  };
  std::shared_ptr<const Data> data_;
};

}  // namespace edgetwin
