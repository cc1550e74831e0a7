#include "validate/validation_session.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <cmath>
#include <iostream>
#include <memory>
#include <numeric>
#include <optional>
#include <random>

#include <fmt/format.h>

#include "calibrate/app/workload_target.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/profile_loader.hpp"
#include "calibrate/datasets/dataset_factory.hpp"
#include "calibrate/hardware/cpu_affinity.hpp"
#include "calibrate/hardware/host_facts.hpp"
#include "calibrate/hardware/page_cache_control.hpp"
#include "calibrate/profile/profile_document.hpp"
#include "calibrate/training/process_memory.hpp"
#include "calibrate/training/torch_runtime.hpp"
#include "calibrate/training/training_runner.hpp"
#include "sim/config/run_validator.hpp"
#include "validate/interleaved_calibration.hpp"
#include "validate/pytorch_calibration.hpp"
#include "validate/prediction.hpp"
#include "validate/pytorch_runner.hpp"
#include "calibrate/app/output_files.hpp"
#include "validate/report_reader.hpp"
#include "validate/run_journal.hpp"

namespace edgetwin::validate {

namespace {

// Everything checked and opened before the first measurement.
struct SessionInputs {
  GridSpec grid;
  calibrate::WorkloadTarget target;
  ProfileSpec profile;
  RunRequest request;
  std::filesystem::path dataset_dir;
  std::unique_ptr<calibrate::Dataset> dataset;
  std::unique_ptr<ResidencyProbeDataset> probe;
  DatasetFacts facts;
  CalibrationSettings calibration;
  std::vector<Overlap> overlaps;
  std::vector<BalloonPlan> balloons;  // per config
  calibrate::RunSpec base_spec;
  calibrate::HostFacts host;
  int host_cores = 0;
  std::uint64_t own_rss_bytes = 0;     // this process at the start, LibTorch loaded
  std::optional<double> os_base_bytes;  // what the machine used besides this process
  double device_os_base_bytes = 0;      // the device file's estimate, for the notes
  std::optional<std::string> clock_note;  // the device's CPU clock is not the host's (prediction.hpp)
  std::unique_ptr<InterleavedCalibration> calibration_rounds;  // --calibrate-each-round
  // The host watch, started by measure_rounds (after the predictions' forks) unless
  // --no-host-watch; the calibration rounds judge their runs by it too.
  std::shared_ptr<std::optional<calibrate::HostSpeedMonitor>> host_monitor =
      std::make_shared<std::optional<calibrate::HostSpeedMonitor>>();
  std::string runner = "libtorch";
  std::optional<PythonRunner> python;  // --runner pytorch, when measuring
  std::optional<EarlierMeasurements> earlier;  // --rescore
};

// On a shared machine the memory used by others is the "OS base" a run really has: measured
// as calibrate's host device file measures it.
std::optional<double> measured_os_base(const ValidateOptions& o, const SessionInputs& in) {
  if (!o.measured_os_base) return std::nullopt;
  return measured_os_base_bytes(in.host.mem_total_bytes, in.host.mem_available_bytes, in.own_rss_bytes,
                                in.runner == "libtorch");
}

std::filesystem::path grid_path(const ValidateOptions& o, const std::filesystem::path& data_dir, const std::string& workload) {
  if (!o.grid.empty()) return o.grid;
  const auto shipped = data_dir / "validate" / "grids" / (workload + ".toml");
  if (!std::filesystem::exists(shipped)) {
    throw option_error("--grid", fmt::format("no grid given and no shipped grid {} for workload {}", shipped.string(), workload));
  }
  return shipped;
}

RunRequest base_request(const ValidateOptions& o, const GridSpec& grid) {
  RunRequest request;
  request.device = o.device;
  request.workload = o.workload;
  request.profile = o.profile;
  request.epochs = grid.epochs;
  request.seed = grid.seed;
  return request;
}

// A JPEG folder's crop side follows from the workload's input tensor: 3 x side x side float32.
int crop_size_for(const ValidateOptions& o, const calibrate::WorkloadTarget& target) {
  if (o.crop_size) return *o.crop_size;
  if (target.format != calibrate::DatasetFormat::jpeg_folder) return 224;
  const double side = std::sqrt(target.workload.dataset.input_bytes_per_sample / (3.0 * 4.0));
  const int rounded = static_cast<int>(std::lround(side));
  if (rounded < 1 || std::abs(side - rounded) > 1e-6) {
    throw option_error("--crop-size", fmt::format("dataset.input_bytes_per_sample {} of workload {} is not 3 x side x side "
                                                  "float32; give the crop side",
                                                  target.workload.dataset.input_bytes_per_sample, target.workload.name));
  }
  return rounded;
}

// The files a run reads: a JPEG folder's first `samples` files, an in-RAM format's all.
std::vector<std::filesystem::path> files_read(const calibrate::Dataset& dataset, std::int64_t samples) {
  const auto* folder = dynamic_cast<const calibrate::JpegFolderDataset*>(&dataset);
  if (folder == nullptr) return dataset.files();
  std::vector<std::filesystem::path> files;
  for (std::int64_t i = 0; i < samples; ++i) files.push_back(folder->sample_path(static_cast<std::size_t>(i)));
  return files;
}

DatasetFacts dataset_facts(const calibrate::Dataset& dataset, std::int64_t max_samples, bool file_per_sample) {
  DatasetFacts facts;
  const auto size = static_cast<std::int64_t>(dataset.size());
  facts.samples = max_samples > 0 ? std::min(max_samples, size) : size;
  double bytes = 0;
  for (std::int64_t i = 0; i < facts.samples; ++i) bytes += static_cast<double>(dataset.sample_bytes(static_cast<std::size_t>(i)));
  facts.mean_sample_bytes = facts.samples > 0 ? bytes / static_cast<double>(facts.samples) : 0;
  facts.page_cache_bytes = calibrate::files_residency(files_read(dataset, facts.samples)).pages * calibrate::page_size_bytes();
  facts.file_per_sample = file_per_sample;
  return facts;
}

void refuse_overlaps(const std::vector<Overlap>& overlaps, const GridSpec& grid, bool allowed) {
  if (overlaps.empty() || allowed) return;
  std::vector<Diagnostic> problems;
  for (const auto& o : overlaps) {
    const auto c = std::find_if(grid.configs.begin(), grid.configs.end(), [&](const GridConfig& g) { return g.name == o.config; });
    Diagnostic d = grid.source.at(c == grid.configs.end() ? "config" : c->table + ".name",
                                  o.reason + "; calibration and validation configurations must be disjoint: change it, "
                                             "remove it, or pass --allow-overlap to keep it out of the aggregate");
    d.key = fmt::format("config \"{}\"", o.config);
    problems.push_back(std::move(d));
  }
  throw ConfigError(std::move(problems));
}

// The free RAM each balloon leaves: a fraction of the dataset's page-cache footprint, or what
// an explicit balloon_bytes leaves now. No headroom is added: what the run itself still
// allocates is part of the experiment (the model's footprint), and the balloon's watchdog
// protects the rest of the machine.
std::uint64_t planned_room(const GridConfig& c, const DatasetFacts& facts, std::uint64_t available) {
  if (c.balloon_leave_dataset_fraction) {
    return static_cast<std::uint64_t>(*c.balloon_leave_dataset_fraction * static_cast<double>(facts.page_cache_bytes));
  }
  const auto bytes = static_cast<std::uint64_t>(c.balloon_bytes);
  return available > bytes ? available - bytes : 0;
}

std::vector<BalloonPlan> balloon_plans(const GridSpec& grid, const DatasetFacts& facts, std::uint64_t available) {
  std::vector<BalloonPlan> plans;
  std::vector<Diagnostic> problems;
  for (const GridConfig& c : grid.configs) {
    if (!c.has_balloon()) {
      plans.push_back({});
      continue;
    }
    const std::uint64_t room = planned_room(c, facts, available);
    if (room < kBalloonMinRoomBytes || room >= available) {
      Diagnostic d = grid.source.at(c.table + (c.balloon_bytes > 0 ? ".balloon_bytes" : ".balloon_leave_dataset_fraction"),
                          fmt::format("the balloon would leave {} bytes of the {} bytes free now; a balloon must leave at "
                                      "least {} bytes (the kernel's reserves and the run's own allocations) and take "
                                      "something: use a larger fraction, a smaller balloon_bytes or a larger dataset",
                                      room, available, kBalloonMinRoomBytes));
      d.key = fmt::format("config \"{}\"", c.name);
      problems.push_back(std::move(d));
      plans.push_back({});
      continue;
    }
    plans.push_back({available - room, room});
  }
  if (!problems.empty()) throw ConfigError(std::move(problems));
  return plans;
}

calibrate::RunSpec base_spec(const ValidateOptions& o, const SessionInputs& in) {
  calibrate::RunSpec spec = calibrate::workload_run_spec(in.target, in.dataset_dir);
  spec.max_samples = in.grid.max_samples;
  spec.crop_size = crop_size_for(o, in.target);
  spec.seed = in.grid.seed;
  spec.epochs = in.grid.epochs;
  spec.intra_op_threads = o.intra_op_threads;
  spec.device = "auto";
  return spec;
}

void open_dataset_for(SessionInputs& in, const ValidateOptions& o) {
  in.dataset_dir = o.dataset;
  in.dataset = calibrate::open_dataset(in.target.format, in.dataset_dir);
  if (const auto* folder = dynamic_cast<const calibrate::JpegFolderDataset*>(in.dataset.get())) {
    in.probe = std::make_unique<ResidencyProbeDataset>(*folder, o.probe_every);
  }
  in.facts = dataset_facts(*in.dataset, in.grid.max_samples, in.probe != nullptr);
}

// The distinct values of `field` over the grid's configurations that `counts`, ascending.
template <class Field, class Counts>
std::vector<int> distinct_in_grid(const GridSpec& grid, Field field, Counts counts) {
  std::vector<int> values;
  for (const GridConfig& c : grid.configs) {
    if (counts(c) && std::find(values.begin(), values.end(), field(c)) == values.end()) values.push_back(field(c));
  }
  std::sort(values.begin(), values.end());
  return values;
}

std::vector<int> grid_batch_sizes(const GridSpec& grid) {
  return distinct_in_grid(grid, [](const GridConfig& c) { return c.loader.batch_size; },
                          [](const GridConfig&) { return true; });
}

// The prefetch factors of the grid's configurations with workers, for the placement probe
// (costs.placement_idle); PyTorch's default where none has workers.
std::vector<int> grid_prefetch_factors(const GridSpec& grid) {
  std::vector<int> factors = distinct_in_grid(grid, [](const GridConfig& c) { return c.loader.prefetch_factor; },
                                              [](const GridConfig& c) { return c.loader.workers > 0; });
  if (factors.empty()) factors.push_back(kPlacementProbePrefetch);
  return factors;
}

// The PyTorch runner calibrates with its own traces (validate/pytorch_calibration.hpp).
std::unique_ptr<InterleavedCalibration> pytorch_calibration(const ValidateOptions& o, const SessionInputs& in) {
  PytorchCalibrationPlan plan;
  plan.runner = *in.python;
  plan.base = in.base_spec;
  plan.workload = in.target.workload;
  plan.other_batch_sizes = grid_batch_sizes(in.grid);
  plan.prefetch_factors = grid_prefetch_factors(in.grid);
  const PreparedRun prepared = prepare_run(in.request);
  plan.device_name = prepared.device.name;
  plan.device_cpu_freq_hz = prepared.device.cpu.freq_hz;
  plan.device_gpu_freq_hz = prepared.device.gpu ? prepared.device.gpu->freq_hz : 0.0;
  plan.storage_name = storage_of(prepared.run, prepared.device);
  plan.command = "edgetwin-validate --runner pytorch --calibrate-each-round";
  plan.dir = o.out / "calibration";
  plan.files = files_read(*in.dataset, in.facts.samples);
  return std::make_unique<InterleavedCalibration>(
      in.target.workload.name, plan.command, [plan](int round) { return calibrate_with_pytorch(plan, round); }, plan.dir);
}

// edgetwin-calibrate's full plan on the session's dataset, model and threads, as `run` would.
std::unique_ptr<InterleavedCalibration> interleaved_calibration(const ValidateOptions& o, const SessionInputs& in) {
  if (in.python) return pytorch_calibration(o, in);
  calibrate::CalibrationSetup setup;
  const PreparedRun prepared = prepare_run(in.request);
  setup.device_name = prepared.device.name;
  // The device's clock, not the host's: this host is the device the session predicts, and a
  // profile at a clock the device file does not have is refused (sim/config/profile_loader.hpp).
  setup.reference_cpu_freq_hz = prepared.device.cpu.freq_hz;
  setup.storage_name = storage_of(prepared.run, prepared.device);
  setup.target = in.target;
  setup.dataset_dir = in.dataset_dir;
  setup.command = "edgetwin-validate --calibrate-each-round";
  setup.plan = calibrate::make_plan(false, in.calibration.batch_size);
  setup.plan.placement_prefetch_factors = grid_prefetch_factors(in.grid);
  setup.intra_op_threads = o.intra_op_threads;
  setup.seed = in.grid.seed;
  setup.crop_size = in.base_spec.crop_size;
  setup.max_samples = in.grid.max_samples;
  setup.bench_dir = o.out / "calibration";
  std::filesystem::create_directories(setup.bench_dir);
  // A round's run that other processes disturbed is measured again as `run` does; one still
  // disturbed is kept, with its note in the round's provenance and on stderr, rather than ending
  // a session of hours: the session marks its disturbed rounds itself (validate/real_run.hpp).
  setup.disturbance.accept_disturbed = true;
  setup.disturbance.watch_host = o.host_watch;  // --no-host-watch: the calibration's runs too
  setup.session_host_monitor = in.host_monitor;
  return std::make_unique<InterleavedCalibration>(std::move(setup), o.out / "calibration");
}

// With a balloon in the grid over a dataset of files, each round's calibration also measures
// what reclaiming the page cache costs under that pressure (the first balloon's room).
std::optional<calibrate::ReclaimProbeSpec> reclaim_probe_for(const SessionInputs& in) {
  if (!in.facts.file_per_sample) return std::nullopt;
  const auto balloon = std::find_if(in.balloons.begin(), in.balloons.end(), [](const BalloonPlan& b) { return b.bytes > 0; });
  if (balloon == in.balloons.end()) return std::nullopt;
  return calibrate::ReclaimProbeSpec{files_read(*in.dataset, in.facts.samples), balloon->room_bytes, kBalloonMinFreeBytes,
                                     in.grid.seed};
}

SessionInputs load_inputs(const ValidateOptions& o, const std::filesystem::path& data_dir) {
  if (o.calibrate_each_round && !o.rescore.empty()) {
    throw option_error("--rescore", "re-score with --profile OUT/profile.toml (the pooled profile of that session) "
                                    "instead of calibrating again");
  }
  if (o.calibrate_each_round != o.profile.empty()) {
    throw option_error("--profile", "give either --profile (a profile calibrated before) or --calibrate-each-round "
                                    "(calibrate in every round and predict with their median), not both, not neither");
  }
  SessionInputs in;
  in.runner = o.runner.value_or("libtorch");
  if (in.runner == "pytorch" && o.rescore.empty()) {
    in.python = python_runner(o.python);
    check_python_runner(*in.python);
  }
  in.host = calibrate::read_host_facts();
  in.host_cores = static_cast<int>(calibrate::allowed_cpus().size());
  in.target = calibrate::resolve_target(o.workload, data_dir, o.format, o.model);
  in.grid = load_grid(grid_path(o, data_dir, in.target.workload.name), HostLimits{in.host_cores, in.host.mem_available_bytes});
  if (o.repeats) in.grid.repeats = *o.repeats;
  if (in.grid.repeats < 1) throw option_error("--repeats", fmt::format("expected 1 or more runs, got {}", in.grid.repeats));
  in.request = base_request(o, in.grid);
  const DeviceSpec device = prepare_run(in.request).device;  // a mismatched profile is refused here
  in.device_os_base_bytes = device.memory.os_base_bytes;
  in.clock_note = clock_mismatch_note(device.cpu.freq_hz, in.host.cpu_max_freq_hz, in.host.cpu_freq_source);
  if (in.clock_note && !o.quiet) std::cerr << "edgetwin-validate: note: " << *in.clock_note << "\n";
  in.own_rss_bytes = calibrate::resident_bytes();
  if (o.calibrate_each_round) {
    in.calibration = {in.target.workload.loader.batch_size,
                      "the workload's batch size: calibrated in this session (--calibrate-each-round)"};
  } else {
    in.profile = load_profile(o.profile);
    in.calibration = calibration_settings(in.profile.command, in.target.workload.loader.batch_size);
  }
  in.overlaps = find_overlaps(in.grid, in.calibration, in.host_cores);
  refuse_overlaps(in.overlaps, in.grid, o.allow_overlap);
  open_dataset_for(in, o);
  if (o.rescore.empty()) {
    in.balloons = balloon_plans(in.grid, in.facts, in.host.mem_available_bytes);
  } else {
    in.earlier = read_measurements(o.rescore);
    in.balloons = recorded_balloon_plans(in.grid, *in.earlier);
    in.runner = in.earlier->runner;  // a different --runner is refused with the runs
    // The memory others used is the one of the session that measured, not of this moment.
    if (in.earlier->mem_total_bytes && in.earlier->mem_available_at_start_bytes) {
      in.host.mem_total_bytes = *in.earlier->mem_total_bytes;
      in.host.mem_available_bytes = *in.earlier->mem_available_at_start_bytes;
    }
  }
  in.os_base_bytes = measured_os_base(o, in);
  in.base_spec = base_spec(o, in);
  if (o.calibrate_each_round) {
    in.calibration_rounds = interleaved_calibration(o, in);
    if (auto probe = reclaim_probe_for(in)) in.calibration_rounds->measure_reclaim_each_round(std::move(*probe));
  }
  return in;
}

bool overlaps_calibration(const SessionInputs& in, const GridConfig& c) {
  return std::any_of(in.overlaps.begin(), in.overlaps.end(), [&c](const Overlap& o) { return o.config == c.name; });
}

std::vector<ConfigMeasurements> grid_configs(const SessionInputs& in) {
  std::vector<ConfigMeasurements> configs;
  for (const GridConfig& c : in.grid.configs) configs.push_back({c, overlaps_calibration(in, c), {}, {}});
  return configs;
}

// Every configuration prepared (and so checked) for the simulator: ConfigError on bad input.
std::vector<PreparedRun> prepare_all(const SessionInputs& in, const RunRequest& request) {
  std::vector<PreparedRun> prepared;
  for (std::size_t i = 0; i < in.grid.configs.size(); ++i) {
    prepared.push_back(prepare_prediction(request, in.grid.configs[i], {in.facts, in.balloons[i].bytes, in.os_base_bytes}));
  }
  return prepared;
}

// All preparations first: bad input of any configuration fails before anything simulates.
void predict_all(const SessionInputs& in, const RunRequest& request, std::vector<ConfigMeasurements>& configs) {
  const std::vector<PreparedRun> prepared = prepare_all(in, request);
  for (std::size_t i = 0; i < configs.size(); ++i) configs[i].prediction = predict(prepared[i]);
}

// One step on the real data: a model that cannot take the dataset's tensors fails here, and
// so does a Python without torch. Returns the PyTorch runner's versions, for the report's notes.
std::string check_one_step(const ValidateOptions& o, const SessionInputs& in) {
  calibrate::RunSpec spec = spec_for(in.base_spec, in.grid.configs.front());
  spec.loader.workers = 0;
  spec.loader.persistent_workers = false;
  spec.epochs = 1;
  spec.max_batches_per_epoch = 1;
  if (!in.python) {
    (void)calibrate::run_training(spec, *in.dataset);
    return "";
  }
  const PytorchSummary checked =
      run_pytorch(*in.python, {spec, 0, o.out / "pytorch" / "check.csv", o.out / "pytorch" / "check.json", {}, {}});
  return fmt::format("real runs: {} {} (torch {}, torchvision {}), DataLoader worker processes; per-run traces in {}",
                     in.python->interpreter.string(), in.python->script.string(), checked.torch_version,
                     checked.torchvision_version, (o.out / "pytorch").string());
}

RealRunContext run_context(const ValidateOptions& o, const SessionInputs& in) {
  return {in.base_spec,
          in.probe ? static_cast<const calibrate::Dataset*>(in.probe.get()) : in.dataset.get(),
          in.probe.get(),
          files_read(*in.dataset, in.facts.samples),
          in.python ? &*in.python : nullptr,
          o.out / "pytorch",
          o.probe_every};
}

// Runs on a slow host are measured again (--host-retries); waiting for fast CPUs first makes
// that rarer, since the VM's slow periods last tens of seconds (host_speed_monitor.hpp).
void wait_for_fast_host(const ValidateOptions& o, const RealRunContext& context, const std::vector<int>& cpus) {
  if (!context.host || o.host_wait_s <= 0) return;
  const double start = calibrate::HostSpeedMonitor::now_s();
  const bool fast = context.host->wait_until_fast(cpus, std::chrono::duration<double>(o.host_wait_s));
  const double waited = calibrate::HostSpeedMonitor::now_s() - start;
  if (o.quiet || waited < 1) return;
  std::cerr << fmt::format("waited {:.0f} s for fast CPUs{}\n", waited, fast ? "" : " (still slow: measuring anyway)");
}

// A probe on each CPU every half second: ~8 probes in the shortest runs of the short grids
// (1-2 s), 0.2 % of a core.
constexpr std::chrono::milliseconds kHostProbeInterval{500};

// Rounds past the grid's repeats are make-up rounds (make_up_for_slow_runs).
std::string round_label(int round, int rounds) {
  return round < rounds ? fmt::format("[round {}/{}]", round + 1, rounds) : fmt::format("[make-up {}]", round - rounds + 1);
}

void log_run(const ValidateOptions& o, int round, int rounds, const GridConfig& c, const MeasuredRun& run, bool again) {
  if (o.quiet) return;
  std::string epochs;
  for (const auto& e : run.epochs) {
    epochs += fmt::format(" {:.3f}s", e.e2e_s);
    if (e.hit_ratio) epochs += fmt::format(" (hit {:.2f})", *e.hit_ratio);
  }
  if (run.balloon_bytes > 0) {
    epochs += fmt::format("; balloon {:.2f} GB in {:.1f} s, dataset resident at start {:.2f}", run.balloon_bytes / 1e9,
                          run.balloon_inflate_s, run.resident_fraction_at_start);
  }
  if (run.balloon_deflated_bytes > 0) epochs += fmt::format(" (balloon gave back {} bytes: left out)", run.balloon_deflated_bytes);
  if (run.host) {
    epochs += fmt::format("; host slow in {:.0f} % of {} probes", run.host->slow_fraction * 100, run.host->probes);
    if (run.host_slow()) epochs += again ? " (left out: measured again)" : " (left out when others are not)";
  }
  std::cerr << fmt::format("{} {}: epochs{}; load {:.2f}\n", round_label(round, rounds), c.name, epochs, run.load_average_1m);
}

// --rescore: the runs of an earlier report, configuration by configuration.
void take_earlier_measurements(const ValidateOptions& o, const EarlierMeasurements& earlier,
                               std::vector<ConfigMeasurements>& configs, SessionInfo& info) {
  std::vector<std::string> names;
  for (const auto& f : earlier.files) names.push_back(f.string());
  const std::string files = fmt::format("{}", fmt::join(names, ", "));
  if (o.runner && *o.runner != earlier.runner) {
    throw option_error("--runner", fmt::format("{} was measured by the {} runner, not {}; leave --runner out when re-scoring",
                                               files, earlier.runner, *o.runner));
  }
  info.runner = earlier.runner;
  std::vector<Diagnostic> missing;
  for (auto& c : configs) {
    const auto found = earlier.runs.find(c.config.name);
    if (found == earlier.runs.end() || found->second.empty()) {
      missing.push_back({files, 0, 0, "--rescore", fmt::format("no runs of configuration \"{}\"", c.config.name)});
      continue;
    }
    c.runs = found->second;
    // --no-host-watch on a re-score: the same runs as if none had been watched, every run in
    // the medians, for comparing the medians with and without the host's slow runs.
    if (!o.host_watch) {
      for (auto& run : c.runs) run.host.reset();
    }
  }
  if (!missing.empty()) throw ConfigError(std::move(missing));
  info.rounds = earlier.rounds;
  info.notes.push_back(fmt::format("measurements re-scored from {} (measured in the session{} started {}), not measured again",
                                   files, earlier.files.size() > 1 ? "s" : "", fmt::join(earlier.started_utc, ", ")));
}

std::string model_description(const SessionInputs& in) {
  return in.target.torchscript_file.empty() ? in.target.model : "TorchScript " + in.target.torchscript_file.string();
}

std::string session_key(const ValidateOptions& o, const SessionInputs& in) {
  // The LibTorch runner's key is the one from before --runner, so its journals still resume.
  const std::string runner = in.runner == "libtorch" ? "" : in.runner + "|";
  return runner + fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", o.device, in.target.workload.name, o.profile.empty() ? std::string("calibrate-each-round") : std::filesystem::absolute(o.profile).string(),
                     in.profile.created, std::filesystem::absolute(in.grid.source_file).string(),
                     std::filesystem::absolute(in.dataset_dir).string(), in.grid.repeats, in.grid.epochs, in.grid.seed,
                     model_description(in));
}

void log_resumed(const ValidateOptions& o, std::size_t runs, const std::filesystem::path& journal) {
  if (o.quiet || runs == 0) return;
  std::cerr << fmt::format("resuming: {} runs of an interrupted session read from {}\n", runs, journal.string());
}

bool round_done(const std::map<std::pair<int, std::string>, MeasuredRun>& done, int round,
                const std::vector<ConfigMeasurements>& configs) {
  return std::all_of(configs.begin(), configs.end(),
                     [&](const ConfigMeasurements& c) { return done.contains({round, c.config.name}); });
}

// A round the journal holds whole was measured by a session that was killed after it: its load
// is the highest its runs logged, without a wait of this session's.
LoadWait resumed_round_load(const std::map<std::pair<int, std::string>, MeasuredRun>& done, int round,
                            const std::vector<ConfigMeasurements>& configs, const LoadWaitPolicy& policy) {
  LoadWait wait;
  for (const auto& c : configs) wait.load_1m = std::max(wait.load_1m, done.at({round, c.config.name}).load_average_1m);
  wait.quiet = policy.max_load <= 0 || wait.load_1m < policy.max_load;
  return wait;
}

// A fresh random order each round (seeded: a resumed session repeats it). A rotation was used
// first, but it keeps cyclic neighbours: the configuration after the memory balloon was always
// measured right after the balloon let go of ~24 GB, and ran up to 1.8x slower there.
std::vector<std::size_t> round_order(std::size_t n, std::uint64_t seed, int round) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::mt19937_64 random(seed * 1'000'003 + static_cast<std::uint64_t>(round));
  std::shuffle(order.begin(), order.end(), random);
  return order;
}

void calibrate_round(const ValidateOptions& o, InterleavedCalibration& calibration, int round, int rounds) {
  if (calibration.done(round)) return;
  const auto start = std::chrono::steady_clock::now();
  calibration.run(round);
  if (o.quiet) return;
  std::cerr << fmt::format("[round {}/{}] calibration ({:.1f} s): {}\n", round + 1, rounds,
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                           calibration.round_file(round).string());
}

// A drift probe before each run (InterleavedCalibration::record_drift_probe): a sequential run
// like calibration's, at the workload's batch size, on other samples each time. LibTorch's
// runner only: the PyTorch runner's probe would start an interpreter (2.5 s) per run.
void probe_drift(const SessionInputs& in, int round, std::size_t slot) {
  if (!in.calibration_rounds || in.python) return;
  constexpr std::int64_t probe_batches = 40;
  calibrate::RunSpec spec = in.base_spec;
  spec.loader.workers = 0;
  spec.loader.batch_size = in.calibration.batch_size;
  spec.epochs = 1;
  spec.max_batches_per_epoch = probe_batches;
  spec.seed = in.grid.seed + 1000 + static_cast<std::uint64_t>(round) * 100 + slot;
  in.calibration_rounds->record_drift_probe(measure_drift_probe(spec, *in.dataset));
}

// One run of configuration `index` in `round`, measured again while the host slowed it down and
// --host-retries allows. Every attempt is kept in the report and journaled; a resumed session
// reads back the last attempt of each round (RunJournal keys runs by round and configuration).
void measure_once_on_a_fast_host(const ValidateOptions& o, const SessionInputs& in, const RealRunContext& context,
                                 int round, std::size_t index, ConfigMeasurements& config, RunJournal& journal) {
  for (int attempt = 0;; ++attempt) {
    wait_for_fast_host(o, context, first_cpus(config.config.cores));
    config.runs.push_back(run_real(context, config.config, in.balloons[index], round, attempt));
    journal.append(round, config.config.name, config.runs.back());
    const bool again = config.runs.back().host_slow() && attempt < o.host_retries;
    log_run(o, round, in.grid.repeats, config.config, config.runs.back(), again);
    if (!again) return;
  }
}

// After the rounds, a configuration that the host's slow periods left with fewer undisturbed
// runs than the grid's repeats is measured once more, in up to --host-retries make-up rounds
// (journaled as rounds repeats, repeats + 1, ...). A slow period lasts from seconds to minutes
// (docs/explanation/validation.md), so a run minutes later is likelier fast than
// the retries right after a slow attempt; without them a point's median rests on fewer runs.
void make_up_for_slow_runs(const ValidateOptions& o, const SessionInputs& in, const RealRunContext& context,
                           const std::map<std::pair<int, std::string>, MeasuredRun>& done,
                           std::vector<ConfigMeasurements>& configs, RunJournal& journal) {
  for (int extra = 0; extra < o.host_retries; ++extra) {
    const int round = in.grid.repeats + extra;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const auto previous = done.find({round, configs[i].config.name});
      if (previous != done.end()) {
        configs[i].runs.push_back(previous->second);
      } else if (owed_a_make_up_run(configs[i].runs, in.grid.repeats)) {
        measure_once_on_a_fast_host(o, in, context, round, i, configs[i], journal);
      }
    }
  }
}

void measure_rounds(const ValidateOptions& o, const SessionInputs& in, std::vector<ConfigMeasurements>& configs,
                    SessionInfo& info, RunJournal& journal) {
  RealRunContext context = run_context(o, in);
  if (o.host_watch) context.host = &in.host_monitor->emplace(calibrate::allowed_cpus(), kHostProbeInterval);
  const auto done = journal.load();
  log_resumed(o, done.size(), journal.file());
  journal.open_for_append();
  if (done.empty() && in.calibration_rounds) in.calibration_rounds->forget_drift_probes();
  const std::size_t n = configs.size();
  for (int round = 0; round < in.grid.repeats; ++round) {
    const std::size_t slots = n + (in.calibration_rounds ? 1 : 0);  // slot n: this round's calibration
    const std::vector<std::size_t> order = round_order(slots, in.grid.seed, round);
    if (round_done(done, round, configs)) {
      info.rounds.push_back({round, resumed_round_load(done, round, configs, o.load_wait)});
    } else {
      if (!o.quiet && o.load_wait.max_load > 0) {
        std::cerr << fmt::format("[round {}/{}] waiting for load < {:.2f}\n", round + 1, in.grid.repeats, o.load_wait.max_load);
      }
      info.rounds.push_back({round, wait_for_quiet(o.load_wait)});
    }
    for (std::size_t k = 0; k < slots; ++k) {
      const std::size_t i = order[k];
      if (i == n) {
        if (!in.calibration_rounds->done(round)) wait_for_fast_host(o, context, {});
        calibrate_round(o, *in.calibration_rounds, round, in.grid.repeats);
        continue;
      }
      const auto previous = done.find({round, configs[i].config.name});
      if (previous != done.end()) {
        configs[i].runs.push_back(previous->second);
        continue;
      }
      probe_drift(in, round, k);
      measure_once_on_a_fast_host(o, in, context, round, i, configs[i], journal);
    }
  }
  if (context.host) make_up_for_slow_runs(o, in, context, done, configs, journal);
  in.host_monitor->reset();  // its thread ends before the pooled profile's predictions fork
}

std::vector<std::string> prediction_notes(const ValidateOptions& o, const SessionInputs& in) {
  std::vector<std::string> notes;
  const auto& w = in.target.workload.dataset;
  notes.push_back(fmt::format("predictions use the dataset actually read: {} samples of {:.1f} bytes on average "
                              "(workload file: {} samples of {:.1f} bytes)",
                              in.facts.samples, in.facts.mean_sample_bytes, w.samples, w.sample_bytes));
  for (std::size_t i = 0; i < in.grid.configs.size(); ++i) {
    if (in.balloons[i].bytes == 0) continue;
    notes.push_back(fmt::format("{}: memory balloon of {} bytes (leaving {} bytes free) at the start, predicted with the "
                                "device's memory.ram_bytes reduced by that amount; each run's balloon is resized to leave "
                                "the same free RAM",
                                in.grid.configs[i].name, in.balloons[i].bytes, in.balloons[i].room_bytes));
  }
  if (in.clock_note) notes.push_back(*in.clock_note);
  if (in.os_base_bytes) {
    const std::string how = in.runner != "libtorch" ? fmt::format("this process's {} bytes RSS included: the trainer is another process",
                                                    in.own_rss_bytes)
                                      : fmt::format("- this process's {} bytes RSS, the trainer's own", in.own_rss_bytes);
    notes.push_back(fmt::format("memory.os_base_bytes = {:.0f} (MemTotal - MemAvailable at the start, {}) instead of the "
                                "device file's {:.0f}: other users' memory on this machine",
                                *in.os_base_bytes, how, in.device_os_base_bytes));
  }
  if (std::any_of(in.grid.configs.begin(), in.grid.configs.end(), [](const GridConfig& c) { return c.cores > 0; })) {
    notes.push_back("configurations with cores > 0 run pinned to the first N allowed CPUs and are predicted with --cores N");
  }
  if (in.probe) {
    notes.push_back(fmt::format("measured hit ratio: mincore on every {}th sample's file just before it is read "
                                "(a hit = all its pages resident)",
                                o.probe_every));
  }
  return notes;
}

SessionInfo session_info(const ValidateOptions& o, const SessionInputs& in) {
  SessionInfo s;
  s.runner = in.runner;
  s.device = o.device;
  s.workload = in.target.workload.name;
  s.profile_file = o.profile;
  s.profile_created = in.profile.created;
  s.profile_command = in.profile.command;
  s.grid_file = in.grid.source_file;
  s.dataset_dir = in.dataset_dir.string();
  s.dataset_format = calibrate::to_string(in.target.format);
  s.dataset = in.facts;
  s.model = model_description(in);
  s.crop_size = in.base_spec.crop_size;
  s.host = in.host.hostname;
  s.cpu_model = in.host.cpu_model;
  s.cores = in.host_cores;
  s.mem_total_bytes = in.host.mem_total_bytes;
  s.mem_available_at_start_bytes = in.host.mem_available_bytes;
  s.libtorch_version = calibrate::libtorch_version();
  s.intra_op_threads = o.intra_op_threads;
  s.started_utc = calibrate::iso_utc_now();
  s.repeats = in.grid.repeats;
  s.epochs = in.grid.epochs;
  s.seed = in.grid.seed;
  s.max_load = o.load_wait.max_load;
  s.calibration = in.calibration;
  s.overlaps = in.overlaps;
  s.overlaps_allowed = o.allow_overlap;
  s.notes = prediction_notes(o, in);
  for (const auto& overlap : in.overlaps) {
    s.notes.push_back(fmt::format("{} overlaps calibration ({}); kept in the table, left out of the aggregate",
                                  overlap.config, overlap.reason));
  }
  return s;
}

// --calibrate-each-round: the rounds' median profile goes to OUT/profile.toml (through the
// simulator's validator) and every configuration is predicted with it. The simulations fork
// after LibTorch has started threads; the children only simulate and leave with _exit.
void predict_with_pooled_profile(const ValidateOptions& o, const SessionInputs& in, ValidationReport& report) {
  const calibrate::ProfileProvenance provenance{in.host.hostname, in.host.cpu_model, in.host_cores,
                                                calibrate::libtorch_version(), "see the round files"};
  calibrate::ProfileDocument pooled = in.calibration_rounds->pooled(in.grid.repeats, provenance);
  const std::vector<DriftProbe> probes = in.calibration_rounds->drift_probes();
  if (!probes.empty()) {
    // The medians as the rounds measured them, for --rescore --profile comparisons.
    calibrate::write_checked_profile(o.out / "profile-without-drift.toml", pooled);
    follow_drift(pooled, probes, in.calibration.batch_size);
  }
  const std::filesystem::path file = o.out / "profile.toml";
  calibrate::write_checked_profile(file, pooled);
  RunRequest request = in.request;
  request.profile = file.string();
  predict_all(in, request, report.configs);
  report.session.profile_file = file.string();
  report.session.profile_created = pooled.profile.created;
  report.session.profile_command = pooled.profile.command;
  report.session.notes.push_back(fmt::format(
      "profile: median of {} calibrations interleaved with the rounds ({}/round-N.toml), written to {}",
      in.grid.repeats, (o.out / "calibration").string(), file.string()));
}

// What the host watch saw over the session's runs; nothing when no run was watched.
std::optional<std::string> host_note(const std::vector<ConfigMeasurements>& configs) {
  int watched = 0, slow = 0;
  for (const auto& c : configs) {
    for (const auto& run : c.runs) {
      watched += run.host ? 1 : 0;
      slow += run.host_slow() ? 1 : 0;
    }
  }
  if (watched == 0) return std::nullopt;
  return fmt::format("host watch (calibrate/hardware/host_speed_monitor.hpp): {} of {} runs had more CPU probes over "
                     "{:.2f}x the fastest than a fast host shows in {:.0f} % of runs (its probes read so {:.1f} % of the "
                     "time); they are in the runs but left out of a point's medians where other runs of it were not",
                     slow, watched, calibrate::kSlowProbeFactor, calibrate::kHostSlowSignificance * 100,
                     calibrate::kFastHostSlowProbeRate * 100);
}

}  // namespace

ValidationReport run_validation(const ValidateOptions& o, const std::filesystem::path& data_dir) {
  const auto start = std::chrono::steady_clock::now();
  const SessionInputs in = load_inputs(o, data_dir);
  ValidationReport report;
  report.configs = grid_configs(in);
  if (in.calibration_rounds) {
    (void)prepare_all(in, in.request);  // predicted after the rounds: a grid the model refuses fails now, not then
  } else {
    predict_all(in, in.request, report.configs);  // before LibTorch starts threads
  }
  report.session = session_info(o, in);
  for (const auto& b : in.balloons) report.balloon_bytes.push_back(b.bytes);
  RunJournal journal(o.out / ".journal.jsonl", session_key(o, in));
  if (o.rescore.empty()) {
    if (const std::string trainer = check_one_step(o, in); !trainer.empty()) report.session.notes.push_back(trainer);
    measure_rounds(o, in, report.configs, report.session, journal);
  } else {
    take_earlier_measurements(o, *in.earlier, report.configs, report.session);
  }
  if (const auto note = host_note(report.configs)) report.session.notes.push_back(*note);
  if (in.calibration_rounds) predict_with_pooled_profile(o, in, report);
  report.points = compare(report.configs);
  report.aggregate = aggregate(report.points);
  report.sanity = sanity_check(report.points, report.bound);
  report.session.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  write_report(report, o.out);
  journal.remove();
  return report;
}

}  // namespace edgetwin::validate
