// Writes one CSV row per batch (--trace FILE): when each batch was handed out, started,
// ready, consumed, on the device and done, in simulated seconds.
//
// Contract: rows go to FILE.partial; commit() renames it to FILE. If the run fails or
// commit() is never called, the destructor removes the partial file: no half-written
// output is ever left behind.
#pragma once

#include <cstdio>
#include <filesystem>

#include "sim/model/pipeline_observer.hpp"

namespace edgetwin {

class TraceWriter : public PipelineObserver {
 public:
  explicit TraceWriter(std::filesystem::path path);
  ~TraceWriter() override;
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  void on_batch_done(const BatchRecord& batch) override;
  void on_epoch_end(const EpochRecord& /*epoch*/) override {}
  void commit();

 private:
  std::filesystem::path path_;
  std::filesystem::path partial_;
  std::FILE* file_ = nullptr;
};

}  // namespace edgetwin
