// Records every operator call and tensor allocation of a stretch of LibTorch work (one
// training step) into a StepTrace, through LibTorch's own instrumentation: RecordFunction
// callbacks (the profiler's, with inputs and outputs) and the allocator's memory reports.
//
// Contract: one OpTracer at a time in a process, created and destroyed on the thread that runs
// the step (the allocator reports only that thread's allocations; CPU backward runs on it).
// set_phase labels the calls that follow; mark_backward_start records which allocations are
// alive when backward begins (what autograd keeps for it). finish() stops recording and
// returns the trace. tensor_names maps a storage identity (op_call.hpp TensorArg::storage) to
// the name of the parameter or buffer it holds. No torch type in this interface.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "calibrate/census/step_trace.hpp"

namespace edgetwin::calibrate {

class OpTracer {
 public:
  explicit OpTracer(std::map<std::uint64_t, std::string> tensor_names);
  ~OpTracer();
  OpTracer(const OpTracer&) = delete;
  OpTracer& operator=(const OpTracer&) = delete;

  void set_phase(StepPhase phase);
  void mark_backward_start();
  StepTrace finish();

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace edgetwin::calibrate
