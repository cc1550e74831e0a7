// Checks, on every batch of every test simulation, the invariants of the pipeline:
// the clock never goes back, batches are consumed in order, each stage follows the
// previous one, a worker never holds more than prefetch_factor batches, batch i goes to
// worker i mod w, every sample is delivered exactly once per epoch, e2e = stall + compute.
#pragma once

#include <string>
#include <vector>

#include "sim/config/specs.hpp"
#include "sim/model/pipeline_observer.hpp"

namespace edgetwin::test {

class InvariantObserver : public PipelineObserver {
 public:
  InvariantObserver(std::int64_t samples, const LoaderSpec& loader);
  void on_epoch_start(const EpochStart& start) override;
  void on_batch_done(const BatchRecord& batch) override;
  void on_epoch_end(const EpochRecord& epoch) override;
  const std::string& failures() const { return failures_; }

 private:
  void fail(const std::string& what);

  std::int64_t samples_;
  LoaderSpec loader_;
  std::vector<int> seen_;
  std::vector<double> consumed_s_;
  std::int64_t expected_index_ = 0;
  double last_compute_end_s_ = 0;
  double stall_plus_compute_s_ = 0;
  std::int64_t delivered_ = 0;
  std::string failures_;
};

}  // namespace edgetwin::test
