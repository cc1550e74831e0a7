#include "sim/model/one_core_host.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Host.hpp>

#include "sim/model/engine_timer.hpp"

namespace edgetwin {

void OneCoreHost::start(ActivityCompletion& work, simgrid::s4u::ExecPtr& exec, double amount) {
  if (alone_ == nullptr && execs_ == 0) {
    start_alone(work, exec, amount);
    return;
  }
  // Work alone that ends at this very date keeps its timer: it has nothing left to share.
  if (alone_ != nullptr && alone_end_s_ > simulated_now_s()) share_alone();
  start_exec(work, exec, amount);
}

void OneCoreHost::start_alone(ActivityCompletion& work, simgrid::s4u::ExecPtr& exec, double amount) {
  exec = nullptr;
  alone_ = &work;
  alone_exec_ = &exec;
  alone_end_s_ = simulated_now_s() + amount / host_->get_speed();
  alone_time_.add(simulated_now_s(), alone_end_s_);
  // The kernel timer itself rather than call_at: share_alone() cancels it.
  alone_timer_ = simgrid::kernel::timer::Timer::set(alone_end_s_, [this] { end_alone(); });
}

void OneCoreHost::end_alone() {
  ActivityCompletion* work = alone_;
  alone_ = nullptr;
  alone_timer_ = nullptr;
  work->on_complete();
}

void OneCoreHost::share_alone() {
  alone_timer_->remove();
  alone_timer_ = nullptr;
  alone_time_.cut_last(simulated_now_s());
  ActivityCompletion* work = alone_;
  alone_ = nullptr;
  start_exec(*work, *alone_exec_, (alone_end_s_ - simulated_now_s()) * host_->get_speed());
}

void OneCoreHost::start_exec(ActivityCompletion& work, simgrid::s4u::ExecPtr& exec, double amount) {
  Relay* relay = &relays_.acquire();
  relay->host = this;
  relay->work = &work;
  ++execs_;
  exec = simgrid::s4u::Exec::init();
  exec->set_flops_amount(amount);
  exec->set_host(host_);
  attach(*exec, *relay);
  exec->start();
}

// The relay is free again before the work goes on: what the work starts next may take it.
void OneCoreHost::Relay::on_complete() {
  ActivityCompletion* done = work;
  --host->execs_;
  host->relays_.release(*this);
  done->on_complete();
}

}  // namespace edgetwin
