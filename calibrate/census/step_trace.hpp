// What the census's tracer recorded of one training step: every operator call as a tree, in
// the order the calls began, and every tensor allocation the allocator reported, in plain
// types (no torch header) so that the census can be built and tested without LibTorch.
//
// Contract: events[i].parent < i; roots are the calls at depth 0 of each phase. A backward
// container is the autograd engine's "evaluate_function" record, whose children are the
// node (a BACKWARD_FUNCTION record carrying the forward op's sequence number) and any
// gradient accumulation the engine does for it. A forward call consumed the autograd sequence
// numbers [seq_begin, seq_end): the nodes it created, which carry those numbers in backward.
// An allocation belongs to the root call during which it was made (-1: none).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "calibrate/census/op_call.hpp"

namespace edgetwin::calibrate {

enum class StepPhase { zero_grad, forward, loss, backward, update };

struct TraceEvent {
  OpCall call;
  int parent = -1;
  std::vector<int> children;
  StepPhase phase = StepPhase::forward;
  bool backward_node = false;  // an autograd node's own record (scope BACKWARD_FUNCTION)
  std::int64_t seq_nr = -1;    // the node's (or the forward op's) autograd sequence number
  std::uint64_t seq_begin = 0;
  std::uint64_t seq_end = 0;
};

struct TraceAllocation {
  double bytes = 0;
  int root = -1;  // index into events of the root call that allocated it
  StepPhase phase = StepPhase::forward;
  bool alive_when_backward_started = false;
};

struct StepTrace {
  std::vector<TraceEvent> events;
  std::vector<int> roots;
  std::vector<TraceAllocation> allocations;
  double live_bytes_when_backward_started = 0;  // of the allocations made during the step
  double peak_live_bytes = 0;                   // highest during the step, same basis
  bool backward_mark_set = false;
};

}  // namespace edgetwin::calibrate
