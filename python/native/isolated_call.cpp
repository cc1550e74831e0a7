#include "python/native/isolated_call.hpp"

#include <filesystem>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "sim/app/child_process.hpp"
#include "sim/config/config_error.hpp"

namespace edgetwin::python {
namespace {

// The first byte of a child's answer: a result, or an input error's diagnostics.
constexpr char kResult = 'r';
constexpr char kInput = 'i';

nlohmann::json diagnostic_json(const Diagnostic& d) {
  return {{"file", d.file}, {"line", d.line}, {"column", d.column}, {"key", d.key}, {"message", d.message}};
}

// produce()'s text behind a tag byte; input errors as diagnostics; anything else thrown on.
std::string tagged(const std::function<std::string()>& produce) {
  try {
    return kResult + produce();
  } catch (const ConfigError& e) {
    nlohmann::json list = nlohmann::json::array();
    for (const Diagnostic& d : e.diagnostics()) list.push_back(diagnostic_json(d));
    return kInput + list.dump();
  } catch (const std::invalid_argument& e) {
    return kInput + input_error_json("", e.what());
  } catch (const std::filesystem::filesystem_error& e) {
    return kInput + input_error_json("", e.what());
  }
}

IsolatedResult untagged(const std::string& bytes) {
  if (bytes.empty()) return {Outcome::failed, "the simulation ended without an answer"};
  const Outcome outcome = bytes.front() == kInput ? Outcome::input : Outcome::ok;
  return {outcome, bytes.substr(1)};
}

}  // namespace

std::string input_error_json(const std::string& key, const std::string& message) {
  return nlohmann::json::array({diagnostic_json(Diagnostic{"", 0, 0, key, message})}).dump();
}

IsolatedResult run_isolated(const std::function<std::string()>& produce) {
  try {
    return untagged(run_in_child([&] { return tagged(produce); }));
  } catch (const Interrupted& e) {
    return {Outcome::interrupted, e.what()};
  } catch (const std::exception& e) {  // ChildProcessError: the child's own message, or how it died
    return {Outcome::failed, e.what()};
  }
}

IsolatedResult run_here(const std::function<std::string()>& produce) {
  try {
    return untagged(tagged(produce));
  } catch (const std::exception& e) {
    return {Outcome::failed, e.what()};
  }
}

}  // namespace edgetwin::python
