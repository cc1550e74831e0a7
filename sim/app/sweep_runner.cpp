#include "sim/app/sweep_runner.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <type_traits>

#include <fmt/format.h>

#include "sim/config/config_error.hpp"
#include "sim/config/run_validator.hpp"
#include "sim/model/simulation.hpp"
#include "sim/report/window_extrapolator.hpp"

namespace edgetwin {
namespace {

struct Prepared {
  DeviceSpec device;
  WorkloadSpec workload;
  RunConfig run;
};

Prepared prepare_point(const LoadedInputs& in, const RunRequest& base, const SweepPoint& p, std::int64_t window) {
  Prepared prepared{apply_operating_point(in.device, p.point), in.workload, run_config(base, in.workload)};
  prepared.run.loader.workers = p.workers;
  prepared.run.loader.batch_size = p.batch_size;
  prepared.run.storage = p.storage;
  // The extrapolation needs the window's quarters to outlast the prefetch depth.
  const std::int64_t depth = std::int64_t{prepared.run.loader.prefetch_factor} * p.workers + 1;
  prepared.run.window_batches = window > 0 ? std::max(window, 4 * depth) : 0;
  prepared.run.pstate_per_step = false;
  validate_run(prepared.run, prepared.device, prepared.workload);
  return prepared;
}

EpochStats summarise(const std::vector<EpochStats>& epochs) {
  if (epochs.size() <= 1) return epochs.empty() ? EpochStats{} : epochs.front();
  EpochStats mean = epochs[1];
  const double n = static_cast<double>(epochs.size() - 1);
  auto average = [&](double EpochStats::*field) {
    double sum = 0;
    for (std::size_t i = 1; i < epochs.size(); ++i) sum += epochs[i].*field;
    mean.*field = sum / n;
  };
  for (auto field : {&EpochStats::e2e_s, &EpochStats::stall_s, &EpochStats::compute_s, &EpochStats::fetch_s,
                     &EpochStats::preprocess_s, &EpochStats::cache_hit_ratio, &EpochStats::disk_bytes_read,
                     &EpochStats::cpu_util, &EpochStats::gpu_util, &EpochStats::energy_j, &EpochStats::base_energy_j,
                     &EpochStats::incremental_energy_j, &EpochStats::avg_power_w, &EpochStats::peak_power_w})
    average(field);
  return mean;
}

// What a chunk's child reports per member: its figures, or why it could not run.
struct MemberOutcome {
  EpochStats stats;
  char error[512] = {};
};

void set_error(MemberOutcome& outcome, const std::string& message) {
  const auto n = std::min(message.size(), sizeof outcome.error - 1);
  message.copy(outcome.error, n);
  outcome.error[n] = '\0';
}

// The child's side: prepare and simulate one chunk (preparing here keeps the parent small,
// so forking it stays cheap), write one outcome per member.
[[noreturn]] void run_chunk(const LoadedInputs& in, const RunRequest& base, const std::vector<SweepPoint>& points,
                            const std::vector<std::size_t>& indices, std::int64_t window,
                            const std::filesystem::path& out) {
  static_assert(std::is_trivially_copyable_v<MemberOutcome>);
  std::vector<MemberOutcome> outcomes(indices.size());
  try {
    Simulation simulation;
    std::vector<WindowExtrapolator> extrapolators(indices.size());
    std::vector<std::size_t> member_of(indices.size(), SIZE_MAX);
    for (std::size_t k = 0; k < indices.size(); ++k) {
      try {
        Prepared p = prepare_point(in, base, points[indices[k]], window);
        member_of[k] = simulation.add_member(std::move(p.device), std::move(p.workload), std::move(p.run));
        simulation.add_observer(member_of[k], extrapolators[k]);
      } catch (const ConfigError& e) {
        set_error(outcomes[k], e.what());
      }
    }
    if (simulation.size() > 0) simulation.run();
    for (std::size_t k = 0; k < indices.size(); ++k)
      if (member_of[k] != SIZE_MAX) outcomes[k].stats = summarise(extrapolators[k].epochs());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "edgetwin sweep: chunk failed: %s\n", e.what());
    _exit(3);
  }
  std::ofstream file(out, std::ios::binary);
  file.write(reinterpret_cast<const char*>(outcomes.data()),
             static_cast<std::streamsize>(outcomes.size() * sizeof(MemberOutcome)));
  file.close();  // _exit runs no destructors: flush the stream first
  _exit(file.good() ? 0 : 3);
}

class Progress {
 public:
  Progress(std::size_t total, bool on) : total_(total), on_(on), start_(std::chrono::steady_clock::now()) {}
  void update(std::size_t done) const {
    if (!on_) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double eta = done > 0 ? elapsed * static_cast<double>(total_ - done) / static_cast<double>(done) : 0.0;
    std::fprintf(stderr, "\r[sweep] %zu/%zu configurations, %.0f s elapsed, ETA %.0f s   ", done, total_, elapsed, eta);
    if (done == total_) std::fprintf(stderr, "\n");
  }

 private:
  std::size_t total_;
  bool on_;
  std::chrono::steady_clock::time_point start_;
};

struct Chunk {
  std::vector<std::size_t> indices;  // into the points
  std::filesystem::path file;
};

std::vector<Chunk> make_chunks(std::size_t points, std::size_t chunk_size) {
  std::vector<Chunk> chunks;
  const auto dir = std::filesystem::temp_directory_path();
  for (std::size_t i = 0; i < points; ++i) {
    if (chunks.empty() || chunks.back().indices.size() >= chunk_size) {
      chunks.emplace_back();
      chunks.back().file = dir / fmt::format("edgetwin-sweep-{}-{}.bin", ::getpid(), chunks.size());
    }
    chunks.back().indices.push_back(i);
  }
  return chunks;
}

void collect(const Chunk& chunk, bool child_ok, std::vector<SweepResult>& results) {
  std::vector<MemberOutcome> outcomes(chunk.indices.size());
  bool ok = child_ok;
  if (ok) {
    std::ifstream file(chunk.file, std::ios::binary);
    const auto bytes = static_cast<std::streamsize>(outcomes.size() * sizeof(MemberOutcome));
    file.read(reinterpret_cast<char*>(outcomes.data()), bytes);
    ok = file.gcount() == bytes;
  }
  for (std::size_t k = 0; k < chunk.indices.size(); ++k) {
    SweepResult& r = results[chunk.indices[k]];
    if (!ok) r.error = "simulation failed";
    else if (outcomes[k].error[0] != '\0') r.error = outcomes[k].error;
    else r.stats = outcomes[k].stats;
  }
  std::error_code ignored;
  std::filesystem::remove(chunk.file, ignored);
}

}  // namespace

std::vector<SweepResult> run_sweep(const LoadedInputs& inputs, const RunRequest& base,
                                   const std::vector<SweepPoint>& points, const SweepSettings& settings) {
  std::vector<SweepResult> results(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) results[i].point = points[i];
  const std::vector<Chunk> chunks = make_chunks(points.size(), std::max<std::size_t>(1, settings.chunk_size));

  Progress progress(points.size(), settings.progress);
  std::size_t done = 0;
  std::map<pid_t, std::size_t> running;
  std::size_t next = 0;
  while (next < chunks.size() || !running.empty()) {
    while (next < chunks.size() && static_cast<int>(running.size()) < std::max(1, settings.jobs)) {
      std::fflush(nullptr);
      const pid_t pid = ::fork();
      if (pid == 0) run_chunk(inputs, base, points, chunks[next].indices, settings.window_batches, chunks[next].file);
      running[pid] = next++;
    }
    int status = 0;
    const pid_t pid = ::wait(&status);
    if (pid < 0) break;
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const Chunk& chunk = chunks[it->second];
    collect(chunk, WIFEXITED(status) && WEXITSTATUS(status) == 0, results);
    done += chunk.indices.size();
    running.erase(it);
    progress.update(done);
  }
  return results;
}

}  // namespace edgetwin
