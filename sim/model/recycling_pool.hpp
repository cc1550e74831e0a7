// Completion objects handed out and taken back without reallocation (Pipeline's and
// DataParallelStep's tokens, OneCoreHost's relays): a deque, so references stay valid.
//
// Contract: acquire() gives an object no one holds, default-constructed the first time and as
// last left otherwise (the caller sets every field). release(x) takes it back at once.
// retire(x) takes it back at the next retire: SimGrid still touches an activity after its
// completion callback returns, so the object holding its ExecPtr must outlive that
// (sim/model/activity_completion.hpp); by the next completion it is done with it.
#pragma once

#include <deque>
#include <vector>

namespace edgetwin {

template <class T>
class RecyclingPool {
 public:
  T& acquire() {
    if (free_.empty()) return items_.emplace_back();
    T* item = free_.back();
    free_.pop_back();
    return *item;
  }
  void release(T& item) { free_.push_back(&item); }
  void retire(T& item) {
    free_.insert(free_.end(), retired_.begin(), retired_.end());
    retired_.clear();
    retired_.push_back(&item);
  }

 private:
  std::deque<T> items_;
  std::vector<T*> free_;
  std::vector<T*> retired_;
};

}  // namespace edgetwin
