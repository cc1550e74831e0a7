#include "calibrate/census/workload_tables.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "calibrate/profile/toml_text.hpp"

namespace edgetwin::calibrate {

std::string toml_count(double value) {
  if (std::floor(value) != value || std::abs(value) >= 9e15) return toml_float(value);
  const std::string digits = std::to_string(static_cast<long long>(std::abs(value)));
  std::string out = value < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += '_';
    out += digits[i];
  }
  return out;
}

namespace {

std::string provenance_inline(const Provenance& p) {
  return fmt::format("{{ kind = {}, source = {} }}", toml_string(p.kind), toml_string(p.source));
}

std::string keyed(const std::string& key, const std::string& value, const std::string& comment) {
  const std::string line = fmt::format("{} = {}", key, value);
  return fmt::format("{:<44} # {}\n", line, comment);
}

using Replacements = std::vector<std::pair<std::string, std::string>>;  // key -> whole new line

Replacements model_lines(const ModelSpec& m) {
  return {{"parameters", keyed("parameters", toml_count(static_cast<double>(m.parameters)),
                               "every trainable tensor's elements")},
          {"forward_flops_per_sample", keyed("forward_flops_per_sample", toml_count(m.forward_flops_per_sample),
                                             "2 x MACs of the forward pass")},
          {"training_flops_per_sample",
           keyed("training_flops_per_sample", toml_count(m.training_flops_per_sample),
                 "forward + backward, 2 x MACs of every op autograd ran (not 3 x forward)")},
          {"memory_bytes_per_sample", keyed("memory_bytes_per_sample", toml_count(m.memory_bytes_per_sample),
                                            "activation bytes every op reads and writes, forward and backward")},
          {"kernels_per_step", keyed("kernels_per_step", toml_count(m.kernels_per_step),
                                     "dispatched ops: forward, loss, backward, zero_grad, accumulation, update")}};
}

constexpr const char* kOpsComment =
    "# Per class of operation (edgetwin-calibrate census; docs/explanation/census.md): ops = 2 x MACs + bias adds +\n"
    "# element-wise arithmetic of forward and backward; bytes = tensors read and written; *_per_step do\n"
    "# not grow with the batch (weights, gradients, optimizer state, the update).\n";

// The comment a previous rewrite put above its tables is written anew, not kept twice.
std::string without_ops_comment(std::string lines) {
  const auto at = lines.find(kOpsComment);
  if (at != std::string::npos) lines.erase(at, std::string(kOpsComment).size());
  return lines;
}

std::string ops_tables(const ModelSpec& m) {
  std::string out = std::string("\n") + kOpsComment;
  for (const OpClassInfo& info : kOpClasses) {
    const auto c = m.ops.find(info.op_class);
    if (c == m.ops.end()) continue;
    out += fmt::format("{}[model.ops.{}]\n", info.op_class == m.ops.begin()->first ? "" : "\n", info.name);
    out += fmt::format("ops_per_sample = {}\nops_per_step = {}\nbytes_per_sample = {}\nbytes_per_step = {}\n"
                       "kernels_per_step = {}\n",
                       toml_count(c->second.ops_per_sample), toml_count(c->second.ops_per_step),
                       toml_count(c->second.bytes_per_sample), toml_count(c->second.bytes_per_step),
                       toml_count(c->second.kernels_per_step));
  }
  return out;
}

Replacements footprint_lines(const FootprintSpec& f) {
  return {{"model_bytes", keyed("model_bytes", toml_count(f.model_bytes), "counted: weights, buffers and gradients")},
          {"optimizer_bytes", keyed("optimizer_bytes", toml_count(f.optimizer_bytes), "counted: optimizer state")},
          {"activation_bytes_per_sample",
           keyed("activation_bytes_per_sample", toml_count(f.activation_bytes_per_sample),
                 "counted: tensors alive for backward, per sample")},
          {"workspace_bytes_per_sample",
           keyed("workspace_bytes_per_sample", toml_count(f.workspace_bytes_per_sample),
                 "counted: the step's peak above them, per sample")},
          {"workspace_bytes", keyed("workspace_bytes", toml_count(f.workspace_bytes),
                                    "counted: what of both does not grow with the batch")}};
}

// The section a line opens ("model", "model.ops.conv", "power_mode"), or nullopt.
std::optional<std::string> header_of(const std::string& line) {
  const auto start = line.find_first_not_of(" \t");
  if (start == std::string::npos || line[start] != '[') return std::nullopt;
  const bool array = line.compare(start, 2, "[[") == 0;
  const auto open = start + (array ? 2 : 1);
  const auto close = line.find(']', open);
  if (close == std::string::npos) return std::nullopt;
  std::string name = line.substr(open, close - open);
  name.erase(0, name.find_first_not_of(" \t"));
  name.erase(name.find_last_not_of(" \t") + 1);
  return name;
}

std::optional<std::string> key_of(const std::string& line) {
  const auto start = line.find_first_not_of(" \t");
  if (start == std::string::npos || line[start] == '#' || line[start] == '[') return std::nullopt;
  const auto equals = line.find('=', start);
  if (equals == std::string::npos) return std::nullopt;
  std::string key = line.substr(start, equals - start);
  key.erase(key.find_last_not_of(" \t") + 1);
  return key;
}

// Replaces keyed lines of one section; keys it did not meet are added after its last key.
class SectionEditor {
 public:
  explicit SectionEditor(Replacements replacements) : replacements_(std::move(replacements)) {}
  bool take(const std::string& key, std::string& out) {
    for (auto& [k, line] : replacements_) {
      if (k == key) {
        out += line;
        done_.push_back(k);
        return true;
      }
    }
    return false;
  }
  std::string missing() const {
    std::string out;
    for (const auto& [k, line] : replacements_)
      if (std::find(done_.begin(), done_.end(), k) == done_.end()) out += line;
    return out;
  }

 private:
  Replacements replacements_;
  std::vector<std::string> done_;
};

}  // namespace

std::string rewrite_workload_tables(const std::string& text, const ModelSpec& model, const FootprintSpec& footprint) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line + "\n");

  SectionEditor model_editor(model_lines(model));
  SectionEditor footprint_editor(footprint_lines(footprint));
  SectionEditor provenance_editor({{"model", "model = " + provenance_inline(model.provenance) + "\n"},
                                   {"footprint", "footprint = " + provenance_inline(footprint.provenance) + "\n"}});
  std::string section;
  std::string out;
  std::string pending;  // blank and comment lines after a section's last key, kept in place
  auto close_section = [&]() {
    if (section == "model") {
      pending = without_ops_comment(pending);
      if (pending.find_first_not_of(" \t\n") == std::string::npos) pending = "\n";
      out += model_editor.missing() + ops_tables(model);
    }
    if (section == "footprint") out += footprint_editor.missing();
    if (section == "provenance") out += provenance_editor.missing();
    out += pending;
    pending.clear();
  };
  for (const std::string& line : lines) {
    if (const auto header = header_of(line)) {
      close_section();
      section = *header;
      if (section.rfind("model.ops.", 0) == 0) continue;  // replaced by the census's
      out += line;
      continue;
    }
    if (section.rfind("model.ops.", 0) == 0) continue;
    const auto key = key_of(line);
    if (!key) {
      pending += line;
      continue;
    }
    out += pending;
    pending.clear();
    SectionEditor* editor = section == "model"       ? &model_editor
                            : section == "footprint"  ? &footprint_editor
                            : section == "provenance" ? &provenance_editor
                                                      : nullptr;
    if (editor == nullptr || !editor->take(*key, out)) out += line;
  }
  close_section();
  return out;
}

}  // namespace edgetwin::calibrate
