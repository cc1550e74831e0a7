#include "calibrate/app/census_command.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "calibrate/app/output_files.hpp"
#include "calibrate/app/workload_target.hpp"
#include "calibrate/census/census_chart.hpp"
#include "calibrate/census/census_report.hpp"
#include "calibrate/census/census_runner.hpp"
#include "calibrate/census/census_tables.hpp"
#include "calibrate/census/workload_tables.hpp"
#include "calibrate/training/model_names.hpp"
#include "calibrate/training/torch_runtime.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/cost_estimator.hpp"
#include "sim/config/device_loader.hpp"
#include "sim/config/training_memory.hpp"
#include "sim/config/workload_loader.hpp"

namespace edgetwin::calibrate {

CLI::App* add_census_command(CLI::App& app, CensusOptions& o) {
  CLI::App* c = app.add_subcommand(
      "census", "per-layer operations, parameters, working set and saved activations of a model's training step");
  c->add_option("--model", o.model, "lenet5, resnet18-cifar, mobilenetv3-large, lenet-lecture, or a TorchScript FILE.pt")
      ->required();
  c->add_option("--input", o.input, "one sample's shape, C x H x W: 1x28x28, 3x32x32, 3x224x224")->required();
  c->add_option("--batch-size", o.batch_size, "samples in the traced step (default: the workload's, else 1)");
  c->add_option("--classes", o.classes, "classes of a built-in model's head (default 10; mobilenetv3-large 1000)");
  c->add_option("--optimizer", o.optimizer, "sgd-momentum (the study's), sgd or adam")->capture_default_str();
  c->add_option("--torch-device", o.torch_device, "cpu, cuda or auto")->capture_default_str();
  c->add_option("--seed", o.seed, "model initialisation and the random batch")->capture_default_str();
  auto* json = c->add_flag("--json", o.json, "JSON instead of the table");
  auto* csv = c->add_flag("--csv", o.csv, "CSV, one row per layer")->excludes(json);
  c->add_flag("--lecture", o.lecture, "the lecture's table (pthflops' Operation / OPS layout)")->excludes(json)->excludes(csv);
  c->add_option("--plot", o.plot, "draw the per-layer working set as stacked bars (FILE.png or FILE.svg)");
  c->add_option("--measure-memory", o.measure_memory,
                "batch sizes of real steps whose memory is measured beside the census's model, e.g. 16,64,256")
      ->delimiter(',');
  c->add_option("--workload", o.workload,
                "workload (shipped name or file) the census describes: largest batch per catalogue device, "
                "--write-workload");
  c->add_option("--workers", o.workers, "DataLoader workers for the largest-batch table (default: the workload's)");
  c->add_flag("--write-workload", o.write_workload, "write the census's [model] and [footprint] into the workload file");
  c->add_option("--out", o.out, "with --write-workload: write here instead of over the workload file");
  c->add_option("--estimate-on", o.estimate_on, "devices (shipped names or files) to estimate the step on, e.g. jetson-nano,host-x86-2core")
      ->delimiter(',');
  return c;
}

namespace {

std::vector<std::int64_t> parse_shape(const std::string& text) {
  std::vector<std::int64_t> dims;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, 'x');) {
    if (part.empty() || !std::all_of(part.begin(), part.end(), [](unsigned char ch) { return std::isdigit(ch); }))
      throw option_error("--input", fmt::format("expected sizes separated by x, such as 1x28x28, got \"{}\"", text));
    dims.push_back(std::stoll(part));
  }
  if (dims.empty() || std::any_of(dims.begin(), dims.end(), [](std::int64_t d) { return d < 1; }))
    throw option_error("--input", fmt::format("expected positive sizes separated by x, such as 1x28x28, got \"{}\"", text));
  return dims;
}

bool is_torchscript(const std::string& model) {
  std::string ext = std::filesystem::path(model).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".pt" || ext == ".pth";
}

CensusRequest census_request(const CensusOptions& o, const std::optional<WorkloadSpec>& workload) {
  CensusRequest r;
  if (is_torchscript(o.model)) {
    if (!std::filesystem::is_regular_file(o.model))
      throw ConfigError({Diagnostic{o.model, 0, 0, "--model", "TorchScript file not found"}});
    r.torchscript_file = o.model;
  } else {
    r.model = canonical_model_name(o.model);
    if (r.model.empty())
      throw option_error("--model", fmt::format("no built-in model \"{}\"; valid: {}, or a TorchScript FILE.pt", o.model,
                                                fmt::join(model_names(), ", ")));
  }
  r.input_shape = parse_shape(o.input);
  r.batch_size = o.batch_size.value_or(workload ? workload->loader.batch_size : 1);
  if (r.batch_size < 1) throw option_error("--batch-size", fmt::format("expected 1 or more samples, got {}", r.batch_size));
  for (const int b : o.measure_memory)
    if (b < 1) throw option_error("--measure-memory", fmt::format("expected batch sizes of 1 or more, got {}", b));
  r.classes = o.classes;
  r.optimizer = o.optimizer;
  r.torch_device = o.torch_device;
  r.seed = o.seed;
  return r;
}

std::filesystem::path device_file(const std::string& name, const std::filesystem::path& data_dir) {
  if (std::filesystem::is_regular_file(name)) return name;
  const auto shipped = data_dir / "devices" / (name + ".toml");
  if (std::filesystem::is_regular_file(shipped)) return shipped;
  throw option_error("--estimate-on", fmt::format("no device file \"{}\" and no shipped device of that name", name));
}

std::vector<DeviceSpec> catalogue_devices(const std::filesystem::path& data_dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(data_dir / "devices"))
    if (entry.path().extension() == ".toml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<DeviceSpec> devices;
  for (const auto& f : files) devices.push_back(load_device(f));
  return devices;
}

std::string today() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  return fmt::format("{:04}-{:02}-{:02}", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday);
}

Provenance model_provenance(const CensusOptions& o, const Census& c) {
  return {"counted", fmt::format("{} (LibTorch {}, {}): one traced {} training step at batch {}; MACs, FLOPs = 2 x MACs, "
                                 "bytes and kernels of every op of forward and backward (docs/explanation/census.md)",
                                 o.command, libtorch_version(), today(), c.optimizer, c.batch_size)};
}

// What the kept process and worker sizes were said to come from, without a previous census's words.
std::string kept_source(const std::string& source) {
  static const std::string kKept = "process_bytes and worker_bytes kept from before: ";
  const auto at = source.rfind(kKept);
  return at == std::string::npos ? source : source.substr(at + kKept.size());
}

Provenance footprint_provenance(const CensusOptions& o, const Census& c, const FootprintSpec& kept) {
  return {"estimate",
          fmt::format("model_bytes, optimizer_bytes, activation_bytes_per_sample and workspace_bytes_per_sample "
                      "counted by {} (LibTorch {} allocator reports of one traced step at batch {}, {}); "
                      "process_bytes and worker_bytes kept from before: {}",
                      o.command, libtorch_version(), c.batch_size, today(), kept_source(kept.provenance.source))};
}

std::vector<FitRow> fits(const WorkloadSpec& counted, const LoaderSpec& loader, const std::filesystem::path& data_dir) {
  std::vector<FitRow> rows;
  for (const DeviceSpec& d : catalogue_devices(data_dir)) {
    FitRow row;
    row.device = d.name;
    row.free_bytes = free_ram_bytes(d);
    row.needed_bytes = training_memory(counted, loader, d.gpu.has_value()).needed_bytes(loader.batch_size);
    row.largest_batch = largest_batch_that_fits(d, counted, loader);
    rows.push_back(row);
  }
  return rows;
}

std::vector<EstimateRow> estimates(const std::vector<DeviceSpec>& devices, const ModelSpec& model, int batch) {
  std::vector<EstimateRow> rows;
  for (const DeviceSpec& d : devices) {
    const auto roofline = device_roofline(d, 1);
    if (!roofline)
      throw ConfigError({d.source.at(d.gpu ? "gpu" : "cpu",
                                     "no roofline to estimate on: the device needs fp32_flops_per_cycle and an "
                                     "[efficiency] table (docs/reference/schema.md)")});
    const RooflineStep step = roofline_step(model, *roofline, batch);
    rows.push_back({d.name, batch, step.seconds, step.class_s});
  }
  return rows;
}

void print(const CensusOptions& o, const CensusReport& report) {
  if (o.json) std::cout << census_json(report);
  else if (o.csv) std::cout << census_csv(report);
  else if (o.lecture) std::cout << lecture_table(report.census);
  else std::cout << census_table(report);
}

}  // namespace

int run_census(const CensusOptions& o, const std::filesystem::path& data_dir) {
  std::optional<WorkloadSpec> workload;
  std::filesystem::path workload_file;
  if (!o.workload.empty()) {
    workload_file = locate_workload(o.workload, data_dir);
    workload = load_workload(workload_file);
  }
  if ((o.write_workload || !o.out.empty()) && !workload)
    throw option_error("--write-workload", "needs --workload: the file whose [model] and [footprint] it writes");
  if (!o.out.empty() && !o.write_workload) throw option_error("--out", "only with --write-workload");
  const CensusRequest request = census_request(o, workload);
  if (!o.plot.empty()) {
    if (!chart_terminal(o.plot)) throw option_error("--plot", fmt::format("expected a .png or .svg file, got {}", o.plot.string()));
    check_output_target(o.plot, "--plot");
  }
  const std::filesystem::path target = o.out.empty() ? workload_file : o.out;
  if (o.write_workload) check_output_target(target, o.out.empty() ? "--workload" : "--out");
  std::vector<DeviceSpec> estimate_devices;
  for (const auto& name : o.estimate_on) estimate_devices.push_back(load_device(device_file(name, data_dir)));

  CensusReport report;
  report.census = take_census(request);
  if (!o.measure_memory.empty()) report.measured = measure_step_memory(request, o.measure_memory);
  const ModelSpec model =
      census_model_spec(report.census, workload ? workload->model_spec.name : report.census.model, model_provenance(o, report.census));
  report.estimates = estimates(estimate_devices, model, request.batch_size);
  if (workload) {
    WorkloadSpec counted = *workload;
    counted.model_spec = model;
    counted.footprint = census_footprint(report.census, workload->footprint,
                                         footprint_provenance(o, report.census, workload->footprint));
    LoaderSpec loader = workload->loader;
    loader.batch_size = request.batch_size;
    if (o.workers) loader.workers = *o.workers;
    report.fits_workload = workload->name;
    report.fits_batch_size = loader.batch_size;
    report.fits_workers = loader.workers;
    report.fits = fits(counted, loader, data_dir);
    if (o.write_workload) {
      std::ifstream in(workload_file);
      std::stringstream text;
      text << in.rdbuf();
      write_checked_workload(target, rewrite_workload_tables(text.str(), counted.model_spec, counted.footprint));
    }
  }
  if (!o.plot.empty()) draw_working_set_chart(report.census, o.plot);
  print(o, report);
  if (o.write_workload) std::cerr << "wrote " << target.string() << "\n";
  return 0;
}

}  // namespace edgetwin::calibrate
