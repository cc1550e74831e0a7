// The progress line on stderr: current step, batches done, elapsed time and an ETA.
//
// Contract: steps are announced with an estimated duration; the ETA is the estimate left in
// the current and later steps, scaled by how far finished steps ran over or under their
// estimates. Redrawn at most every 0.5 s; on a terminal in place ("\r"), otherwise one line
// every 5 s. Disabled (--quiet) it prints nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "calibrate/training/run_observer.hpp"

namespace edgetwin::calibrate {

class ProgressLine : public RunObserver {
 public:
  ProgressLine(bool enabled, std::ostream& out, bool terminal);

  void set_steps(std::vector<std::pair<std::string, double>> steps);  // name, estimated seconds
  void begin_step(const std::string& name, std::int64_t units = 0);   // units: batches expected
  void advance(std::int64_t units = 1);
  void end_step();
  void finish();
  void on_batch(const MeasuredBatch& batch) override;

  double elapsed_s() const;
  double eta_s() const;

 private:
  void draw(bool force);
  std::size_t index_of(const std::string& name) const;

  bool enabled_;
  std::ostream& out_;
  bool terminal_;
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_;
  Clock::time_point step_start_;
  Clock::time_point last_draw_{};
  std::vector<std::pair<std::string, double>> steps_;
  std::size_t current_ = 0;
  std::string current_name_;
  std::int64_t units_ = 0;
  std::int64_t done_ = 0;
  double finished_estimate_s_ = 0;
  double finished_actual_s_ = 0;
};

}  // namespace edgetwin::calibrate
