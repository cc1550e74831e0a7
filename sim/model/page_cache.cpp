#include "sim/model/page_cache.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace edgetwin {

PageCache::PageCache(std::int64_t items, double item_bytes, double capacity_bytes, Refaults refaults)
    : item_bytes_(item_bytes),
      capacity_items_(std::max<std::int64_t>(0, static_cast<std::int64_t>(std::floor(capacity_bytes / item_bytes)))),
      max_active_(max_active_items(capacity_items_, capacity_bytes)),
      state_(static_cast<std::size_t>(items), State::absent),
      prev_(static_cast<std::size_t>(items), -1),
      next_(static_cast<std::size_t>(items), -1),
      refaults_(refaults),
      shadow_age_(refaults == Refaults::activate ? static_cast<std::size_t>(items) : 0, 0) {
  if (items > std::numeric_limits<Link>::max())
    throw std::length_error("page cache: more than 2^31 samples in one dataset");
}

std::int64_t PageCache::max_active_items(std::int64_t capacity_items, double capacity_bytes) {
  const auto gib = static_cast<std::int64_t>(capacity_bytes / (1024.0 * 1024.0 * 1024.0));
  const auto ratio = gib > 0 ? static_cast<std::int64_t>(std::sqrt(10.0 * static_cast<double>(gib))) : 1;
  return capacity_items * ratio / (1 + ratio);
}

bool PageCache::access(std::int64_t sample) {
  const auto item = static_cast<Link>(sample);
  switch (state_[item]) {
    case State::active:
      unlink(active_, item);
      push_head(active_, item);
      return true;
    case State::inactive:
      unlink(inactive_, item);
      activate(item);
      return true;
    case State::absent:
    case State::evicted:
      break;
  }
  if (resident_items() >= capacity_items_) ++misses_when_full_;
  if (capacity_items_ == 0) return false;
  while (resident_items() >= capacity_items_) evict_one();
  if (refault_is_recent(item)) {
    activate(item);
  } else {
    state_[item] = State::inactive;
    push_head(inactive_, item);
  }
  return false;
}

bool PageCache::refault_is_recent(Link item) const {
  if (state_[item] != State::evicted) return false;  // only Refaults::activate leaves shadows
  const std::uint32_t distance = nonresident_age_ - shadow_age_[item];
  return static_cast<std::int64_t>(distance) <= active_.size;
}

// Both ways onto the active list age the non-resident items, as workingset_activation and
// workingset_refault do.
void PageCache::activate(Link item) {
  state_[item] = State::active;
  push_head(active_, item);
  ++nonresident_age_;
  balance_active();
}

void PageCache::clear() {
  std::fill(state_.begin(), state_.end(), State::absent);
  inactive_ = {};
  active_ = {};
}

void PageCache::fill_in_order() {
  clear();
  const auto n = std::min<std::int64_t>(capacity_items_, static_cast<std::int64_t>(state_.size()));
  for (std::int64_t sample = 0; sample < n; ++sample) access(sample);
}

void PageCache::push_head(List& list, Link item) {
  prev_[item] = -1;
  next_[item] = list.head;
  if (list.head >= 0) prev_[list.head] = item;
  list.head = item;
  if (list.tail < 0) list.tail = item;
  ++list.size;
}

void PageCache::unlink(List& list, Link item) {
  const auto before = prev_[item];
  const auto after = next_[item];
  if (before >= 0) next_[before] = after; else list.head = after;
  if (after >= 0) prev_[after] = before; else list.tail = before;
  --list.size;
}

void PageCache::evict_one() {
  List& victims = inactive_.size > 0 ? inactive_ : active_;
  const auto item = victims.tail;
  unlink(victims, item);
  if (refaults_ == Refaults::activate) {
    state_[item] = State::evicted;
    shadow_age_[item] = nonresident_age_++;
  } else {
    state_[item] = State::absent;
  }
}

void PageCache::balance_active() {
  while (active_.size > max_active_) {
    const auto item = active_.tail;
    unlink(active_, item);
    state_[item] = State::inactive;
    push_head(inactive_, item);
  }
}

}  // namespace edgetwin
