#include "calibrate/census/op_tracer.hpp"

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

#include <ATen/SequenceNumber.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/ivalue.h>
#include <ATen/record_function.h>
#include <c10/core/Allocator.h>
#include <c10/util/ThreadLocalDebugInfo.h>

namespace edgetwin::calibrate {

namespace {

// The allocator's reports, kept per live pointer so that a free finds its allocation.
class AllocationLog : public c10::MemoryReportingInfoBase {
 public:
  explicit AllocationLog(OpTracer::State& state) : state_(state) {}
  void reportMemoryUsage(void* ptr, int64_t alloc_size, int64_t total_allocated, int64_t total_reserved,
                         c10::Device device) override;
  bool memoryProfilingEnabled() const override { return true; }

 private:
  OpTracer::State& state_;
};

}  // namespace

struct OpTracer::State {
  std::recursive_mutex mutex;  // recursive: an allocation report may come while a call is being recorded
  StepTrace trace;
  StepPhase phase = StepPhase::forward;
  std::map<std::uint64_t, std::string> tensor_names;
  std::unordered_map<void*, std::size_t> live;  // pointer -> allocation index
  double live_bytes = 0;
  at::CallbackHandle handle = at::INVALID_CALLBACK_HANDLE;
  std::unique_ptr<c10::DebugInfoGuard> memory_guard;
  bool finished = false;
};

namespace {

OpTracer::State* active = nullptr;  // RecordFunction callbacks are plain functions
thread_local std::vector<int> open_calls;  // this thread's calls under way, outermost first

struct CallContext : at::ObserverContext {
  explicit CallContext(int i) : index(i) {}
  int index;
};

TensorArg tensor_arg(const at::Tensor& t, const OpTracer::State& state) {
  TensorArg a;
  a.defined = t.defined();
  if (!a.defined) return a;
  a.shape = t.sizes().vec();
  a.element_bytes = static_cast<std::int64_t>(t.element_size());
  if (t.has_storage()) {
    a.storage = reinterpret_cast<std::uint64_t>(t.storage().unsafeGetStorageImpl());
    const auto name = state.tensor_names.find(a.storage);
    if (name != state.tensor_names.end()) a.parameter = name->second;
  }
  return a;
}

OpArg list_arg(const c10::List<c10::IValue>& list, const OpTracer::State& state) {
  OpArg a;
  for (const c10::IValue& v : list) {
    if (v.isBool()) {
      a.kind = OpArg::Kind::bools;
      a.bools.push_back(v.toBool());
    } else if (v.isInt()) {
      a.kind = OpArg::Kind::ints;
      a.ints.push_back(v.toInt());
    } else if (v.isTensor()) {
      a.kind = OpArg::Kind::tensors;
      a.tensors.push_back(tensor_arg(v.toTensor(), state));
    }
  }
  return a;
}

OpArg op_arg(const c10::IValue& v, const OpTracer::State& state) {
  OpArg a;
  if (v.isTensor()) {
    a.kind = OpArg::Kind::tensor;
    a.tensor = tensor_arg(v.toTensor(), state);
  } else if (v.isTensorList()) {
    a.kind = OpArg::Kind::tensors;
    for (const at::Tensor& t : v.toTensorVector()) a.tensors.push_back(tensor_arg(t, state));
  } else if (v.isIntList()) {
    a.kind = OpArg::Kind::ints;
    a.ints = v.toIntVector();
  } else if (v.isInt()) {
    a.kind = OpArg::Kind::ints;
    a.ints = {v.toInt()};
  } else if (v.isDouble()) {
    a.kind = OpArg::Kind::real;
    a.real = v.toDouble();
  } else if (v.isBool()) {
    a.kind = OpArg::Kind::boolean;
    a.bools = {v.toBool()};
  } else if (v.isBoolList()) {
    a.kind = OpArg::Kind::bools;
    for (const bool b : v.toBoolList()) a.bools.push_back(b);
  } else if (v.isList()) {
    a = list_arg(v.toList(), state);
  } else if (v.isNone()) {
    a.kind = OpArg::Kind::none;
  }
  return a;
}

// How many arguments the op's schema has; 0 when it is no dispatcher op (an autograd node).
std::size_t schema_arguments(const at::RecordFunction& fn) {
  const auto name = fn.operator_name();
  if (!name) return 0;
  const auto op = c10::Dispatcher::singleton().findSchema(*name);
  return op ? op->schema().arguments().size() : 0;
}

std::unique_ptr<at::ObserverContext> on_call_start(const at::RecordFunction& fn) {
  OpTracer::State* state = active;
  if (state == nullptr) return nullptr;
  std::lock_guard lock(state->mutex);
  StepTrace& trace = state->trace;
  const int index = static_cast<int>(trace.events.size());
  TraceEvent& e = trace.events.emplace_back();
  e.call.name = fn.name();
  // The TorchScript interpreter can hand a record more values than the op takes (a pending
  // operand of the enclosing expression first): its arguments are the last ones.
  c10::ArrayRef<const c10::IValue> inputs = fn.inputs();
  const std::size_t arguments = schema_arguments(fn);
  if (arguments > 0 && inputs.size() > arguments) inputs = inputs.slice(inputs.size() - arguments);
  for (const c10::IValue& v : inputs) e.call.inputs.push_back(op_arg(v, *state));
  e.phase = state->phase;
  e.backward_node = fn.scope() == at::RecordScope::BACKWARD_FUNCTION;
  e.seq_nr = fn.seqNr();
  e.seq_begin = at::sequence_number::peek();
  if (open_calls.empty()) {
    trace.roots.push_back(index);
  } else {
    e.parent = open_calls.back();
    trace.events[static_cast<std::size_t>(e.parent)].children.push_back(index);
  }
  open_calls.push_back(index);
  return std::make_unique<CallContext>(index);
}

void on_call_end(const at::RecordFunction& fn, at::ObserverContext* context) {
  OpTracer::State* state = active;
  if (state == nullptr || context == nullptr) return;
  std::lock_guard lock(state->mutex);
  const int index = static_cast<CallContext*>(context)->index;
  TraceEvent& e = state->trace.events[static_cast<std::size_t>(index)];
  e.seq_end = at::sequence_number::peek();
  for (const c10::IValue& v : fn.outputs()) {
    const OpArg out = op_arg(v, *state);
    if (out.kind == OpArg::Kind::tensor) e.call.outputs.push_back(out.tensor);
    if (out.kind == OpArg::Kind::tensors) e.call.outputs.insert(e.call.outputs.end(), out.tensors.begin(), out.tensors.end());
  }
  const auto open = std::find(open_calls.rbegin(), open_calls.rend(), index);
  if (open != open_calls.rend()) open_calls.erase(std::next(open).base(), open_calls.end());
}

void AllocationLog::reportMemoryUsage(void* ptr, int64_t alloc_size, int64_t, int64_t, c10::Device) {
  std::lock_guard lock(state_.mutex);
  if (state_.finished) return;
  StepTrace& trace = state_.trace;
  if (alloc_size > 0) {
    TraceAllocation a;
    a.bytes = static_cast<double>(alloc_size);
    a.root = open_calls.empty() ? -1 : open_calls.front();
    a.phase = state_.phase;
    state_.live[ptr] = trace.allocations.size();
    trace.allocations.push_back(a);
    state_.live_bytes += a.bytes;
    trace.peak_live_bytes = std::max(trace.peak_live_bytes, state_.live_bytes);
    return;
  }
  const auto it = state_.live.find(ptr);
  if (it == state_.live.end()) return;  // allocated before the tracer started
  state_.live_bytes -= trace.allocations[it->second].bytes;
  state_.live.erase(it);
}

}  // namespace

OpTracer::OpTracer(std::map<std::uint64_t, std::string> tensor_names) : state_(std::make_unique<State>()) {
  if (active != nullptr) throw std::logic_error("OpTracer: one tracer at a time");
  state_->tensor_names = std::move(tensor_names);
  active = state_.get();
  state_->memory_guard = std::make_unique<c10::DebugInfoGuard>(c10::DebugInfoKind::PROFILER_STATE,
                                                               std::make_shared<AllocationLog>(*state_));
  state_->handle = at::addGlobalCallback(at::RecordFunctionCallback(on_call_start, on_call_end)
                                             .needsInputs(true)
                                             .needsOutputs(true)
                                             .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION}));
}

OpTracer::~OpTracer() {
  if (state_->handle != at::INVALID_CALLBACK_HANDLE) at::removeCallback(state_->handle);
  active = nullptr;
}

void OpTracer::set_phase(StepPhase phase) {
  std::lock_guard lock(state_->mutex);
  state_->phase = phase;
}

void OpTracer::mark_backward_start() {
  std::lock_guard lock(state_->mutex);
  for (const auto& [ptr, index] : state_->live) state_->trace.allocations[index].alive_when_backward_started = true;
  state_->trace.live_bytes_when_backward_started = state_->live_bytes;
  state_->trace.backward_mark_set = true;
}

StepTrace OpTracer::finish() {
  if (state_->handle != at::INVALID_CALLBACK_HANDLE) at::removeCallback(state_->handle);
  state_->handle = at::INVALID_CALLBACK_HANDLE;
  {
    std::lock_guard lock(state_->mutex);
    state_->finished = true;
  }
  state_->memory_guard.reset();
  active = nullptr;
  open_calls.clear();
  return std::move(state_->trace);
}

}  // namespace edgetwin::calibrate
