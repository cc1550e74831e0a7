#include "sim/model/shared_link.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <simgrid/kernel/Timer.hpp>

#include "sim/model/engine_timer.hpp"

namespace edgetwin {
namespace {

// SimGrid's TCP window (network/TCP-gamma, left at its default: sim/model/engine_session.cpp).
constexpr double kTcpGammaBytes = 4194304.0;
// Flows that end within this of one another end together, as SimGrid's dates do (surf/precision).
constexpr double kSameDate_s = 1e-9;

}  // namespace

FlowTerms cm02_flow_terms(double own_link_bytes_per_s, double route_latency_s) {
  if (route_latency_s <= 0) return {own_link_bytes_per_s, 1.0};
  return {std::min(own_link_bytes_per_s, kTcpGammaBytes / (2.0 * route_latency_s)), route_latency_s};
}

SharedLink::SharedLink(double capacity_bytes_per_s) : capacity_(capacity_bytes_per_s) {}

SharedLink::~SharedLink() {
  if (timer_ != nullptr) timer_->remove();
}

void SharedLink::add(double bytes, FlowTerms terms, std::function<void()> done) {
  advance_to(simulated_now_s());
  FlowClass& c = classes_[{terms.bound_bytes_per_s, terms.penalty}];
  c.terms = terms;
  c.flows.push(Flow{c.progress + bytes, next_order_++, std::move(done)});
  share();
  schedule_next_end();
}

void SharedLink::advance_to(double now_s) {
  const double elapsed = now_s - updated_s_;
  updated_s_ = now_s;
  if (elapsed <= 0) return;
  for (auto& [key, c] : classes_) c.progress += c.rate * elapsed;
}

// Weighted max-min on one link: classes in the order their bound binds (lambda = bound x
// penalty); each one whose bound is below the level the rest would reach takes its bound.
void SharedLink::share() {
  std::vector<FlowClass*> order;
  double bound_sum = 0;
  double weight_sum = 0;
  for (auto& [key, c] : classes_) {
    const auto n = static_cast<double>(c.flows.size());
    order.push_back(&c);
    bound_sum += n * c.terms.bound_bytes_per_s;
    weight_sum += n / c.terms.penalty;
  }
  if (bound_sum <= capacity_) {
    for (FlowClass* c : order) c->rate = c->terms.bound_bytes_per_s;
    return;
  }
  std::sort(order.begin(), order.end(), [](const FlowClass* a, const FlowClass* b) {
    return a->terms.bound_bytes_per_s * a->terms.penalty < b->terms.bound_bytes_per_s * b->terms.penalty;
  });
  double left = capacity_;
  std::size_t i = 0;
  for (; i < order.size(); ++i) {
    FlowClass& c = *order[i];
    const double level = left / weight_sum;
    if (level <= c.terms.bound_bytes_per_s * c.terms.penalty) break;
    const auto n = static_cast<double>(c.flows.size());
    c.rate = c.terms.bound_bytes_per_s;
    left -= n * c.rate;
    weight_sum -= n / c.terms.penalty;
  }
  const double level = left / weight_sum;
  for (; i < order.size(); ++i) order[i]->rate = level / order[i]->terms.penalty;
}

void SharedLink::schedule_next_end() {
  if (timer_ != nullptr) timer_->remove();
  timer_ = nullptr;
  double next = std::numeric_limits<double>::infinity();
  for (const auto& [key, c] : classes_)
    if (!c.flows.empty()) next = std::min(next, updated_s_ + std::max(0.0, c.flows.top().end_mark - c.progress) / c.rate);
  if (std::isfinite(next)) timer_ = simgrid::kernel::timer::Timer::set(next, [this] { end_due_flows(); });
}

// Every flow due now leaves before the rates change and before any of them is told: one told
// may start another flow here.
void SharedLink::end_due_flows() {
  timer_ = nullptr;
  advance_to(simulated_now_s());
  std::vector<Flow> ended;
  for (auto it = classes_.begin(); it != classes_.end();) {
    FlowClass& c = it->second;
    while (!c.flows.empty() && c.flows.top().end_mark - c.progress <= c.rate * kSameDate_s) {
      ended.push_back(std::move(const_cast<Flow&>(c.flows.top())));
      c.flows.pop();
    }
    it = c.flows.empty() ? classes_.erase(it) : std::next(it);
  }
  share();
  schedule_next_end();
  std::sort(ended.begin(), ended.end(), [](const Flow& a, const Flow& b) { return a.order < b.order; });
  for (Flow& f : ended) f.done();
}

}  // namespace edgetwin
