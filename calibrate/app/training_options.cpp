#include "calibrate/app/training_options.hpp"

#include <algorithm>
#include <cctype>

#include <CLI/CLI.hpp>

#include "calibrate/hardware/host_facts.hpp"

namespace edgetwin::calibrate {

void add_training_options(CLI::App& c, TrainingOptions& o) {
  c.add_option("--workload", o.workload, "workload name (workloads/NAME.toml) or file")->required();
  c.add_option("--dataset", o.dataset, "dataset directory in the workload's on-disk format")->required();
  c.add_option("--model", o.model,
               "built-in model (lenet5, resnet18-cifar, mobilenetv3-large) or TorchScript file .pt");
  c.add_option("--format", o.format, "dataset format: mnist, cifar10, jpeg-folder (default: from the workload)");
  c.add_option("--device-name", o.device_name, "device name in the output (default: host-<hostname>)");
  c.add_option("--intra-op-threads", o.intra_op_threads, "LibTorch intra-op threads of the trainer (0: all CPUs)")
      ->capture_default_str();
  c.add_option("--torch-device", o.torch_device, "auto, cpu or cuda")->capture_default_str();
  c.add_option("--seed", o.seed, "seed of sampler, augmentation and model initialisation")->capture_default_str();
  c.add_option("--crop-size", o.crop_size, "RandomResizedCrop side for jpeg-folder")->capture_default_str();
  c.add_option("--max-samples", o.max_samples, "use only the first N samples (0: all)")->capture_default_str();
  c.add_option("--workers", o.workers, "DataLoader workers (default: the workload's)");
  c.add_option("--batch-size", o.batch_size, "mini-batch size (default: the workload's)");
  c.add_option("--prefetch-factor", o.prefetch_factor, "batches in flight per worker (default: the workload's)");
}

void add_disturbance_options(CLI::App& c, DisturbancePolicy& policy, const char* kept_where) {
  c.add_option("--retries", policy.retries,
               "measure a disturbed run (other processes over 0.25 cores beside it, or CPUs that ran slow) again, "
               "at most N times, then exit 2")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  c.add_flag("--accept-disturbed", policy.accept_disturbed,
             std::string("keep a run still disturbed after its retries, with a warning and a note ") + kept_where +
                 ", instead of exit 2");
  c.add_flag("--no-host-watch{false}", policy.watch_host,
             "do not judge the runs by how fast the CPUs ran (calibrate/hardware/host_speed_monitor.hpp): a run "
             "they ran slow through is otherwise disturbed too");
}

std::string default_device_name() {
  std::string name = read_host_facts().hostname;
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char ch) { return std::isalnum(ch) ? static_cast<char>(std::tolower(ch)) : '-'; });
  return "host-" + (name.empty() ? std::string("unknown") : name);
}

std::string device_name_or_default(const TrainingOptions& options) {
  return options.device_name.empty() ? default_device_name() : options.device_name;
}

RunSpec training_spec(const TrainingOptions& o, const WorkloadTarget& t) {
  RunSpec spec = workload_run_spec(t, o.dataset);
  spec.max_samples = o.max_samples;
  spec.crop_size = o.crop_size;
  spec.loader.batch_size = o.batch_size.value_or(spec.loader.batch_size);
  spec.loader.workers = o.workers.value_or(spec.loader.workers);
  spec.loader.prefetch_factor = o.prefetch_factor.value_or(spec.loader.prefetch_factor);
  spec.seed = o.seed;
  spec.intra_op_threads = o.intra_op_threads;
  spec.device = o.torch_device;
  return spec;
}

}  // namespace edgetwin::calibrate
