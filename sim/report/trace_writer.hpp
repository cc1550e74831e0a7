// Writes one CSV row per batch (--trace FILE): when each batch was handed out, started,
// ready, consumed, on the device and done, in simulated seconds.
//
// Contract: rows go to a temporary file beside FILE (sim/app/output_file.hpp); commit()
// renames it to FILE once every row is written, or throws OutputError naming FILE and the
// system's reason (a full disk). Rows never throw: a failed write is kept and reported by
// commit(), since the rows are written from inside the simulation. If the run fails or
// commit() is never called, nothing is left behind.
#pragma once

#include <filesystem>
#include <string>

#include "sim/app/output_file.hpp"
#include "sim/model/pipeline_observer.hpp"

namespace edgetwin {

class TraceWriter : public PipelineObserver {
 public:
  explicit TraceWriter(std::filesystem::path path);

  void on_batch_done(const BatchRecord& batch) override;
  void on_epoch_end(const EpochRecord& /*epoch*/) override {}
  void commit();

 private:
  OutputFile file_;
  std::string row_;
};

}  // namespace edgetwin
