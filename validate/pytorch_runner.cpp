#include "validate/pytorch_runner.hpp"

#include <unistd.h>

#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/app/data_dir.hpp"

#include "sim/config/config_error.hpp"
#include "sim/app/external_program.hpp"

namespace edgetwin::validate {

namespace {

// The last lines of the script's output: its error message and traceback, not its whole life.
std::string tail_of(const std::string& output) {
  constexpr std::size_t kTailBytes = 4000;
  return output.size() <= kTailBytes ? output : "..." + output.substr(output.size() - kTailBytes);
}

std::string model_argument(const calibrate::RunSpec& spec) {
  return spec.torchscript_file.empty() ? spec.model : spec.torchscript_file.string();
}

double non_negative_field(const nlohmann::json& epoch, const std::string& where, const char* field) {
  const auto found = epoch.find(field);
  if (found == epoch.end()) throw std::runtime_error(fmt::format("{}.{}: missing", where, field));
  if (!found->is_number() || found->get<double>() < 0) {
    throw std::runtime_error(fmt::format("{}.{}: expected a number >= 0, got {}", where, field, found->dump()));
  }
  return found->get<double>();
}

MeasuredEpoch measured_epoch(const nlohmann::json& epoch, const std::string& where) {
  if (!epoch.is_object()) throw std::runtime_error(fmt::format("{}: expected an object, got {}", where, epoch.dump()));
  MeasuredEpoch m;
  m.e2e_s = non_negative_field(epoch, where, "e2e_s");
  m.stall_s = non_negative_field(epoch, where, "stall_s");
  m.compute_s = non_negative_field(epoch, where, "compute_s");
  const double probes = non_negative_field(epoch, where, "hit_probes");
  const double hits = non_negative_field(epoch, where, "hits");
  if (hits > probes) throw std::runtime_error(fmt::format("{}.hits: {} hits of {} probes", where, hits, probes));
  m.hit_probes = static_cast<std::int64_t>(probes);
  if (m.hit_probes > 0) m.hit_ratio = hits / probes;
  return m;
}

// A version string for the notes; absent or not text: unknown, not a failed run.
std::string text_field(const nlohmann::json& doc, const char* field) {
  const auto found = doc.find(field);
  return found != doc.end() && found->is_string() ? found->get<std::string>() : std::string("unknown");
}

std::string read_whole(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: the PyTorch runner's summary is missing", file.string()));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

[[noreturn]] void throw_failure(const PythonRunner& runner, const ProgramOutput& out) {
  const std::string output = tail_of(out.output);
  if (out.exited_with(2)) {
    throw option_error("--runner pytorch", fmt::format("{} refused the input:\n{}", runner.script.string(), output));
  }
  if (out.exited_with(3) || out.exited_with(kCannotStartExitCode)) {
    throw option_error("--python", fmt::format("{} cannot run the PyTorch runner:\n{}", runner.interpreter.string(), output));
  }
  throw std::runtime_error(fmt::format("{} {} ({}):\n{}", runner.interpreter.string(), runner.script.string(),
                                       out.how_it_ended(), output));
}

}  // namespace

PythonRunner python_runner(const std::filesystem::path& interpreter_override) {
  return {interpreter_override.empty() ? std::filesystem::path(EDGETWIN_PYTHON) : interpreter_override,
          data_dir() / "validate" / "pytorch_train.py"};
}

void check_python_runner(const PythonRunner& runner) {
  if (!std::filesystem::is_regular_file(runner.interpreter) || ::access(runner.interpreter.c_str(), X_OK) != 0) {
    throw option_error("--python", fmt::format("{}: not an executable file; give a python3 with torch and torchvision "
                                               "(Debian: /usr/bin/python3 with python3-torch, python3-torchvision)",
                                               runner.interpreter.string()));
  }
  if (!std::filesystem::is_regular_file(runner.script)) {
    throw option_error("--runner pytorch", fmt::format("{}: the training script is missing (it ships in validate/)",
                                                       runner.script.string()));
  }
}

std::vector<std::string> pytorch_command_line(const PythonRunner& runner, const PytorchRun& run) {
  const calibrate::RunSpec& s = run.spec;
  std::vector<std::string> argv{runner.interpreter.string(),
          runner.script.string(),
          "--dataset", s.dataset_dir.string(),
          "--format", calibrate::to_string(s.format),
          "--model", model_argument(s),
          "--batch-size", std::to_string(s.loader.batch_size),
          "--workers", std::to_string(s.loader.workers),
          "--prefetch-factor", std::to_string(s.loader.prefetch_factor),
          "--persistent-workers", s.loader.persistent_workers ? "1" : "0",
          "--epochs", std::to_string(s.epochs),
          "--max-samples", std::to_string(s.max_samples),
          "--max-batches-per-epoch", std::to_string(s.max_batches_per_epoch),
          "--seed", std::to_string(s.seed),
          "--threads", std::to_string(s.intra_op_threads),
          "--crop-size", std::to_string(s.crop_size),
          "--probe-every", std::to_string(run.probe_every),
          "--trace", run.trace_csv.string(),
          "--summary", run.summary_json.string()};
  if (!run.step_scaling_csv.empty()) argv.insert(argv.end(), {"--step-scaling", run.step_scaling_csv.string()});
  if (!run.loader_scaling_csv.empty())
    argv.insert(argv.end(), {"--loader-scaling", run.loader_scaling_csv.string()});
  return argv;
}

PytorchSummary read_pytorch_summary(const std::filesystem::path& file, int epochs) {
  const std::string where = file.string();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(read_whole(file));
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(fmt::format("{}: not JSON: {}", where, e.what()));
  }
  if (!doc.is_object() || !doc.contains("epochs") || !doc.at("epochs").is_array()) {
    throw std::runtime_error(fmt::format("{}: epochs: missing (expected an array of per-epoch objects)", where));
  }
  const auto& list = doc.at("epochs");
  if (static_cast<int>(list.size()) != epochs) {
    throw std::runtime_error(fmt::format("{}: epochs: {} epochs, expected {}", where, list.size(), epochs));
  }
  PytorchSummary summary;
  for (std::size_t i = 0; i < list.size(); ++i) summary.epochs.push_back(measured_epoch(list[i], fmt::format("{}: epochs[{}]", where, i)));
  summary.torch_version = text_field(doc, "torch_version");
  summary.torchvision_version = text_field(doc, "torchvision_version");
  return summary;
}

namespace {

// What a script killed before it could clean up leaves of `file`: the trace module's
// `<file>.partial` (python/edgetwin_trace.py) and the summary's `<file>.tmp-PID`
// (validate/pytorch_train.py). A SIGKILL leaves them; the next run of the point removes them.
void remove_leftovers(const std::filesystem::path& file) {
  if (file.empty()) return;
  std::error_code ignored;
  std::filesystem::remove(file.string() + ".partial", ignored);
  const std::filesystem::path dir = file.has_parent_path() ? file.parent_path() : ".";
  const std::string temporary = file.filename().string() + ".tmp-";
  for (const auto& entry : std::filesystem::directory_iterator(dir, ignored)) {
    if (entry.path().filename().string().starts_with(temporary)) std::filesystem::remove(entry.path(), ignored);
  }
}

}  // namespace

PytorchSummary run_pytorch(const PythonRunner& runner, const PytorchRun& run) {
  for (const auto& file : {run.summary_json, run.trace_csv}) {
    if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path());
  }
  std::filesystem::remove(run.summary_json);  // an earlier run's summary must not stand in for this one
  const auto clean_up = [&run] {
    for (const auto& file : {run.summary_json, run.trace_csv, run.step_scaling_csv, run.loader_scaling_csv}) remove_leftovers(file);
  };
  clean_up();
  const ProgramOutput out = run_program(pytorch_command_line(runner, run), run.spec.cpus);
  if (!out.exited_with(0)) {
    clean_up();
    throw_failure(runner, out);
  }
  return read_pytorch_summary(run.summary_json, run.spec.epochs);
}

}  // namespace edgetwin::validate
