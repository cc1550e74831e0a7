#include "sim/config/op_class.hpp"

namespace edgetwin {

std::string_view op_class_name(OpClass op_class) {
  for (const OpClassInfo& info : kOpClasses)
    if (info.op_class == op_class) return info.name;
  return "?";
}

std::optional<OpClass> op_class_from_name(std::string_view name) {
  for (const OpClassInfo& info : kOpClasses)
    if (info.name == name) return info.op_class;
  return std::nullopt;
}

std::vector<std::string> op_class_names() {
  std::vector<std::string> names;
  for (const OpClassInfo& info : kOpClasses) names.emplace_back(info.name);
  return names;
}

}  // namespace edgetwin
