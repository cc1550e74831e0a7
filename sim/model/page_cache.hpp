// A Linux-like page cache at sample granularity: two LRU lists (inactive, active).
//
// Contract: access(item) returns whether the item was resident and updates the lists as
// Linux's mark_page_accessed and shrink_*_list do for file pages read with read():
//   - a miss inserts the item at the head of the inactive list;
//   - a hit on an inactive item promotes it to the active head (second access);
//   - a hit on an active item moves it to the active head;
//   - the active list may hold at most ratio/(1+ratio) of the capacity, with Linux's
//     inactive_ratio = int_sqrt(10 * capacity in GiB), 1 below 1 GiB (mm/vmscan.c,
//     inactive_is_low); beyond that its tail is demoted to the inactive head;
//   - when full, the inactive tail is evicted (the active tail when inactive is empty);
//     misses_when_full() counts the misses that found it full (the kernel reclaims a page for
//     each page read in then: the CPU of costs.reclaim_cpu_s_per_byte);
//   - with Refaults::activate, an evicted item leaves a shadow: the count of evictions and
//     activations so far (lruvec->nonresident_age). A miss on it whose refault distance, that
//     count's growth since, is at most the active list's size goes to the active head, itself
//     an activation (mm/workingset.c, workingset_refault and workingset_test_recent; no swap,
//     so anonymous memory is not in the working set). clear() drops the shadows, as
//     POSIX_FADV_DONTNEED's invalidation does. Refaults::ignore: the two lists alone, the model
//     before 2026-12-05, kept for comparisons (memory.page_cache_refault_activation = false).
// All items have the same size, so capacity is a whole number of items. Resident bytes
// never exceed the capacity. The active list is what makes the cache scan-resistant: a
// shuffled dataset larger than the cache keeps a stable, re-hit subset in it. Refault
// activation lets recently evicted items displace part of that subset: under the validation's
// balloon (cache ~0.53 of the dataset) shuffled passes hit 0.19-0.20 with it and 0.27 without;
// the reclaim probe measured 0.21 (docs/explanation/validation.md, *Refaults, and a second cache below
// the disk*).
#pragma once

#include <cstdint>
#include <vector>

namespace edgetwin {

enum class Refaults { activate, ignore };

class PageCache {
 public:
  PageCache(std::int64_t items, double item_bytes, double capacity_bytes, Refaults refaults = Refaults::activate);

  bool access(std::int64_t item);
  void clear();                 // as after posix_fadvise(DONTNEED) of every file
  void fill_in_order();         // warm start: items 0, 1, ... read once, as many as fit

  std::int64_t capacity_items() const { return capacity_items_; }
  std::int64_t resident_items() const { return inactive_.size + active_.size; }
  std::int64_t active_items() const { return active_.size; }
  double resident_bytes() const { return static_cast<double>(resident_items()) * item_bytes_; }
  bool is_active(std::int64_t item) const { return state_[item] == State::active; }
  bool is_resident(std::int64_t item) const { return state_[item] == State::inactive || state_[item] == State::active; }
  std::int64_t misses_when_full() const { return misses_when_full_; }

 private:
  enum class State : std::uint8_t { absent, evicted, inactive, active };  // evicted: absent, with a shadow
  // 32-bit links: a dataset of up to 2^31 samples, at half the memory (and page faults).
  using Link = std::int32_t;
  struct List {
    Link head = -1;
    Link tail = -1;
    std::int64_t size = 0;
  };

  void push_head(List& list, Link item);
  void unlink(List& list, Link item);
  void evict_one();
  void activate(Link item);
  void balance_active();
  bool refault_is_recent(Link item) const;
  static std::int64_t max_active_items(std::int64_t capacity_items, double capacity_bytes);

  double item_bytes_;
  std::int64_t capacity_items_;
  std::int64_t max_active_;
  std::vector<State> state_;
  std::vector<Link> prev_;
  std::vector<Link> next_;
  List inactive_;
  List active_;
  std::int64_t misses_when_full_ = 0;
  Refaults refaults_;
  // The kernel's counter wraps too (EVICTION_MASK); distances stay far below 2^32 items.
  std::uint32_t nonresident_age_ = 0;
  std::vector<std::uint32_t> shadow_age_;  // per item, valid when evicted
};

}  // namespace edgetwin
