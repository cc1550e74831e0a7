#include "sim/model/data_parallel_step.hpp"

#include <cmath>
#include <stdexcept>

#include <simgrid/s4u.hpp>

namespace edgetwin {

namespace sg4 = simgrid::s4u;

DataParallelStep::DataParallelStep(const Platform& platform) : platform_(platform) {}

double DataParallelStep::now() const { return sg4::Engine::get_clock(); }

void DataParallelStep::start(const DataParallelWork& work, Listener& listener) {
  if (running()) throw std::logic_error("DataParallelStep: start while a step is under way");
  if (work.replicas < 1 || work.replicas > static_cast<int>(platform_.gpus().size()))
    throw std::logic_error("DataParallelStep: more replicas than the platform has accelerators");
  work_ = work;
  listener_ = &listener;
  gpu_busy_s_ = 0;
  link_s_ = 0;
  round_ = 0;
  phase_start_s_ = now();
  pending_ = 0;
  if (work_.receive_cpu_cycles > 0) exec(Phase::receive, platform_.cpu(), work_.receive_cpu_cycles);
  if (pending_ == 0) begin_scatter();
}

void DataParallelStep::begin_scatter() {
  phase_start_s_ = now();
  for (int i = 0; i < work_.replicas; ++i) transfer(Phase::scatter, platform_.cpu(), platform_.gpus()[i], work_.scatter_bytes);
  if (pending_ == 0) phase_done(Phase::scatter);
}

// Each replica's forward and backward, and the trainer's core issuing its kernels meanwhile.
void DataParallelStep::begin_replicas() {
  phase_start_s_ = now();
  for (int i = 0; i < work_.replicas; ++i) {
    exec(Phase::replica, platform_.gpus()[i], work_.replica_gpu_cycles);
    exec(Phase::replica, platform_.cpu(), work_.launch_cpu_cycles);
  }
  if (pending_ == 0) phase_done(Phase::replica);
}

void DataParallelStep::begin_allreduce_round() {
  phase_start_s_ = now();
  const auto& gpus = platform_.gpus();
  for (int i = 0; i < work_.replicas; ++i)
    transfer(Phase::allreduce, gpus[i], gpus[(i + 1) % work_.replicas], work_.allreduce_chunk_bytes);
  if (pending_ == 0) phase_done(Phase::allreduce);
}

void DataParallelStep::begin_update() {
  phase_start_s_ = now();
  for (int i = 0; i < work_.replicas; ++i) exec(Phase::update, platform_.gpus()[i], work_.update_gpu_cycles);
  if (pending_ == 0) phase_done(Phase::update);
}

// A phase ends when all its activities have: the next begins.
void DataParallelStep::phase_done(Phase phase) {
  const double took = now() - phase_start_s_;
  switch (phase) {
    case Phase::receive:
      begin_scatter();
      break;
    case Phase::scatter:
      link_s_ += took;
      listener_->on_device();
      begin_replicas();
      break;
    case Phase::replica:
      if (round_ < work_.allreduce_rounds)
        begin_allreduce_round();
      else
        begin_update();
      break;
    case Phase::allreduce:
      link_s_ += took;
      if (++round_ < work_.allreduce_rounds)
        begin_allreduce_round();
      else
        begin_update();
      break;
    case Phase::update: {
      Listener* listener = listener_;
      listener_ = nullptr;
      listener->on_step_done(gpu_busy_s_, link_s_);
      break;
    }
  }
}

void DataParallelStep::on_complete(Token& token) {
  tokens_.retire(token);
  if (token.on_first_gpu) gpu_busy_s_ += now() - token.started_s;
  if (--pending_ == 0) phase_done(token.phase);
}

DataParallelStep::Token& DataParallelStep::token_for(Phase phase, bool on_first_gpu) {
  Token* token = &tokens_.acquire();
  token->owner = this;
  token->phase = phase;
  token->on_first_gpu = on_first_gpu;
  token->started_s = now();
  ++pending_;
  return *token;
}

void DataParallelStep::exec(Phase phase, sg4::Host* host, double amount) {
  if (amount <= 0) return;
  Token& token = token_for(phase, host == platform_.gpus().front());
  auto exec = sg4::Exec::init();
  exec->set_flops_amount(amount);
  exec->set_host(host);
  token.activity = exec;
  attach(*exec, token);
  exec->start();
}

void DataParallelStep::transfer(Phase phase, sg4::Host* from, sg4::Host* to, double bytes) {
  if (bytes <= 0) return;
  Token& token = token_for(phase, false);
  auto comm = sg4::Comm::sendto_init(from, to);
  comm->set_payload_size(static_cast<std::uint64_t>(std::ceil(bytes)));
  token.activity = comm;
  attach(*comm, token);
  comm->start();
}

}  // namespace edgetwin
