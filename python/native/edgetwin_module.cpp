// The Python extension `edgetwin._native`: the simulator's commands for python/edgetwin/, which
// wraps them in Python functions, result objects and exceptions (docs/reference/python.md).
//
// Contract: every function returns (outcome, text[, exit_code]), outcome one of "ok", "input",
// "failed", "interrupted" (python/native/isolated_call.hpp); nothing here raises for bad
// input or a failed simulation, exits or aborts the interpreter. Commands take the words of
// the command line after the command's name (`["--device", "agx-xavier", "--workers", "2"]`),
// parsed by the command's own options (add_predict_command, ...), and return exactly what
// the command's --json writes: `edgetwin predict --json`'s standard output, `edgetwin sweep
// --json FILE`'s file, `edgetwin plan-round --json`'s standard output. The GIL is released
// while a command parses, loads and simulates. No LibTorch: the learning runs
// (edgetwin-federate) are a program python/edgetwin/ runs.
//
// Beside the commands, HostSpeedMonitor: calibrate's host-speed watch as a class, for
// python3 -m edgetwin.profile (it raises ValueError for a bad interval, like any Python class).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "calibrate/hardware/host_speed_monitor.hpp"
#include "python/native/isolated_call.hpp"
#include "sim/app/catalogue.hpp"
#include "sim/app/plan_round_command.hpp"
#include "sim/app/predict_command.hpp"
#include "sim/app/scale_out.hpp"
#include "sim/app/sweep_command.hpp"
#include "sim/config/device_loader.hpp"
#include "sim/config/fleet_loader.hpp"
#include "sim/config/operating_point.hpp"
#include "sim/config/workload_loader.hpp"
#include "sim/plan/fleet_instance.hpp"
#include "sim/plan/plan_report.hpp"

namespace py = pybind11;

namespace edgetwin::python {
namespace {

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::ok: return "ok";
    case Outcome::input: return "input";
    case Outcome::failed: return "failed";
    case Outcome::interrupted: return "interrupted";
  }
  return "failed";
}

using Answer = std::tuple<std::string, std::string, int>;

Answer answer(const IsolatedResult& r, int exit_code = 0) {
  return {outcome_name(r.outcome), r.text, r.outcome == Outcome::ok ? exit_code : (r.outcome == Outcome::input ? 2 : 1)};
}

// ---- the catalogue and inputs (parsed here: loading simulates nothing) ----------------------

nlohmann::json device_json(const DeviceSpec& d, const std::filesystem::path& path) {
  return {{"name", d.name}, {"path", std::filesystem::absolute(path).string()}};
}

Answer load(const std::string& kind, const std::string& value) {
  return answer(run_here([&]() -> std::string {
    const std::filesystem::path path = resolve_catalogue_file(kind, value);
    if (kind == "devices") return device_json(load_device(path), path).dump();
    if (kind == "workloads")
      return nlohmann::json{{"name", load_workload(path).name}, {"path", std::filesystem::absolute(path).string()}}.dump();
    const FleetInstance fleet = instantiate_fleet(load_fleet(path));
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& g : fleet.groups)
      groups.push_back({{"name", g.spec->name}, {"device", g.inputs.device.name}, {"count", g.spec->count},
                        {"storage", g.storage}, {"network", g.network.name}, {"configurations", g.candidates.size()}});
    return nlohmann::json{{"name", fleet.spec.name},
                          {"path", std::filesystem::absolute(path).string()},
                          {"workload", fleet.spec.round.workload},
                          {"devices", fleet.devices.size()},
                          {"groups", groups}}
        .dump();
  }));
}

// `edgetwin modes`' table as data: the named modes at their clocks, and the custom space.
Answer modes(const std::string& device) {
  return answer(run_here([&]() -> std::string {
    const DeviceSpec d = load_device(resolve_catalogue_file("devices", device));
    nlohmann::json list = nlohmann::json::array();
    for (const auto& mode : d.power_modes) {
      const OperatingPoint p = mode_operating_point(d, mode);
      list.push_back({{"id", mode.id}, {"name", mode.name}, {"cores", p.cores}, {"cpu_freq_hz", p.cpu_hz},
                      {"gpu_freq_hz", p.gpu_hz}, {"emc_freq_hz", p.emc_hz},
                      {"default", mode.name == d.default_power_mode}});
    }
    return nlohmann::json{{"device", d.name}, {"modes", list}, {"custom_modes", custom_mode_count(d)}}.dump();
  }));
}

// ---- the commands ----------------------------------------------------------------------------

struct CommandOptions {
  CLI::App app{"edgetwin"};
  PredictOptions predict;
  SweepOptions sweep;
  PlanRoundOptions plan_round;

  CommandOptions() {
    app.require_subcommand(1);
    add_predict_command(app, predict);
    add_sweep_command(app, sweep);
    add_plan_round_command(app, plan_round);
  }
};

// What only says where results go: the bindings return the results instead.
std::optional<std::string> output_option_given(const std::string& command, const CommandOptions& c) {
  const auto* sub = c.app.get_subcommand(command);
  for (const char* name : {"--json", "--csv", "--plot", "--trace", "--gantt", "--client-configs", "--shard", "--mpi",
                           "--devices", "--workloads"}) {
    const CLI::Option* option = nullptr;
    try {
      option = sub->get_option(name);
    } catch (const CLI::OptionNotFound&) {
      continue;
    }
    if (option->count() > 0) return std::string(name);
  }
  return std::nullopt;
}

std::string predict_json(const PredictOptions& o) {
  std::ostringstream out;
  write_report(out, predict_report(o.request), ReportFormat::json);
  return out.str();
}

std::string sweep_json_text(SweepOptions o, int& exit_code) {
  o.quiet = true;
  ScaleOut scale_out("sweep", o.scale_out, sweep_output_options());
  const SweepOutcome outcome = *sweep_outcome(o, scale_out);  // no MPI here: always the root
  exit_code = outcome.choice && !outcome.choice->feasible ? 2 : 0;
  return sweep_json(o, outcome).dump(1) + "\n";
}

std::string plan_json(const PlanRoundOptions& o, int& exit_code) {
  std::ostringstream out;
  const bool fits = plan_round_report(o, o.chunks, [&](const PlanReport& report) { write_plan_json(out, report); });
  exit_code = fits ? 0 : kStrictMissExit;
  return out.str();
}

Answer run_command(const std::string& command, std::vector<std::string> words) {
  CommandOptions c;
  words.insert(words.begin(), {"edgetwin", command});
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  try {
    c.app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return answer({Outcome::input, input_error_json("", e.what())});
  }
  if (const auto option = output_option_given(command, c))
    return answer({Outcome::input,
                   input_error_json(*option, "not taken by the Python bindings, which return the results; write them "
                                             "from the returned object (docs/reference/python.md)")});
  // The exit code travels in front of the text, one character.
  const IsolatedResult r = run_isolated([&]() -> std::string {
    int exit_code = 0;
    std::string text;
    if (command == "predict") text = predict_json(c.predict);
    else if (command == "sweep") text = sweep_json_text(c.sweep, exit_code);
    else text = plan_json(c.plan_round, exit_code);
    return std::to_string(exit_code) + text;
  });
  if (r.outcome != Outcome::ok) return answer(r);
  return answer({Outcome::ok, r.text.substr(1)}, r.text.front() - '0');
}

// The host-speed watch (calibrate/hardware/host_speed_monitor.hpp) for python3 -m edgetwin.profile,
// which watches its runs' CPUs and hands the probes to the import (--host-probes). Its thread is
// native: it neither needs nor takes the GIL.
void bind_host_speed_monitor(py::module_& m) {
  using calibrate::HostSpeedMonitor;
  py::class_<HostSpeedMonitor>(m, "HostSpeedMonitor",
                               "Times fixed work on each CPU in turn, every interval_s (thread CPU time)")
      .def(py::init([](std::vector<int> cpus, double interval_s) {
             if (!(interval_s > 0)) throw py::value_error("interval_s must be > 0");
             return std::make_unique<HostSpeedMonitor>(
                 std::move(cpus), std::chrono::milliseconds(static_cast<long>(std::ceil(interval_s * 1e3))));
           }),
           py::arg("cpus"), py::arg("interval_s"))
      .def_static("now_s", &HostSpeedMonitor::now_s, "The steady clock the probes are timed on, seconds")
      .def("probes", [](const HostSpeedMonitor& h) {
             std::vector<std::tuple<double, int, double>> out;
             for (const auto& p : h.probes()) out.emplace_back(p.at_s, p.cpu, p.seconds);
             return out;
           },
           "Every probe so far: (at_s, cpu, seconds)");
}

}  // namespace
}  // namespace edgetwin::python

PYBIND11_MODULE(_native, m) {
  using namespace edgetwin::python;
  m.doc() = "edgetwin's simulator for python/edgetwin/: commands run in forked children (docs/reference/python.md)";
  m.def("shipped", &edgetwin::shipped_names, py::arg("kind"), py::call_guard<py::gil_scoped_release>(),
        "Shipped names of a kind (devices, workloads, fleets)");
  m.def("load", &load, py::arg("kind"), py::arg("value"), py::call_guard<py::gil_scoped_release>(),
        "Load and check a device, workload or fleet: (outcome, JSON text, exit code)");
  m.def("modes", &modes, py::arg("device"), py::call_guard<py::gil_scoped_release>(),
        "A device's named power modes and custom mode count: (outcome, JSON text, exit code)");
  m.def("run_command", &run_command, py::arg("command"), py::arg("words"), py::call_guard<py::gil_scoped_release>(),
        "Run predict, sweep or plan-round with these command-line words in a child: (outcome, JSON text, exit code)");
  m.attr("programs") = py::dict(py::arg("edgetwin") = EDGETWIN_PROGRAM, py::arg("edgetwin-calibrate") = EDGETWIN_CALIBRATE_PROGRAM,
                                py::arg("edgetwin-federate") = EDGETWIN_FEDERATE_PROGRAM);
  m.attr("data_dir") = EDGETWIN_DATA_DIR;
  bind_host_speed_monitor(m);
}
