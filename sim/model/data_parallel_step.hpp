// One training step on the accelerators of a device with a [link], data-parallel: the
// trainer takes the batch (receive, on its core), scatters each replica's share over the link
// (the CPU to each accelerator, all at once), every replica runs forward and backward on its
// share while the trainer's core issues its kernels, the gradients are all-reduced in a ring
// (2 (K - 1) rounds: in each, every accelerator sends a 1/K chunk of the gradients to the next
// one over its link up and the next one's link down), and every replica updates its
// parameters. With one accelerator: scatter, step, update, no all-reduce.
//
// Contract: start() only while no step is under way (the trainer steps one batch at a time);
// the listener hears when the batch is on the accelerators (the scatter's end) and when the
// step is done, with the first accelerator's busy time and the time spent in link transfers.
// Every activity completes itself (sim/model/activity_completion.hpp); the step keeps its
// activities alive until a later completion, as SimGrid needs. The platform must outlive it.
#pragma once

#include <simgrid/s4u/Activity.hpp>

#include "sim/model/activity_completion.hpp"
#include "sim/model/platform.hpp"
#include "sim/model/recycling_pool.hpp"
#include "sim/model/work_model.hpp"

namespace edgetwin {

class DataParallelStep {
 public:
  struct Listener {
    virtual void on_device() = 0;
    virtual void on_step_done(double gpu_busy_s, double link_s) = 0;

   protected:
    ~Listener() = default;
  };

  explicit DataParallelStep(const Platform& platform);
  DataParallelStep(const DataParallelStep&) = delete;
  DataParallelStep& operator=(const DataParallelStep&) = delete;

  void start(const DataParallelWork& work, Listener& listener);
  bool running() const { return listener_ != nullptr; }

 private:
  enum class Phase { receive, scatter, replica, allreduce, update };
  struct Token final : ActivityCompletion {
    DataParallelStep* owner = nullptr;
    Phase phase = Phase::receive;
    bool on_first_gpu = false;  // its busy time is the step's gpu_busy_s
    double started_s = 0;
    simgrid::s4u::ActivityPtr activity;
    void on_complete() override { owner->on_complete(*this); }
  };

  void begin_scatter();
  void begin_replicas();
  void begin_allreduce_round();
  void begin_update();
  void on_complete(Token& token);
  void phase_done(Phase phase);
  void exec(Phase phase, simgrid::s4u::Host* host, double amount);
  void transfer(Phase phase, simgrid::s4u::Host* from, simgrid::s4u::Host* to, double bytes);
  Token& token_for(Phase phase, bool on_first_gpu);
  double now() const;

  const Platform& platform_;
  DataParallelWork work_;
  Listener* listener_ = nullptr;
  int pending_ = 0;  // activities of the current phase still running
  int round_ = 0;
  double gpu_busy_s_ = 0;
  double link_s_ = 0;
  double phase_start_s_ = 0;
  RecyclingPool<Token> tokens_;
};

}  // namespace edgetwin
