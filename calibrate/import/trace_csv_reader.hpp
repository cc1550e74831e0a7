// Reads the plain per-batch trace CSV a PyTorch loop writes (docs/explanation/import.md):
// header `epoch,batch,batch_size,fetch_s,compute_s` with optional `io_s` and the run settings
// python/edgetwin_trace.py writes (workers, prefetch_factor, threads, busy_cores, batch_bytes,
// iter_s); columns in any order,
// extra columns ignored.
//
// Contract: missing columns, non-numbers, batch_size < 1 and negative times are ConfigError
// with file:line:column (all problems of the file together).
#pragma once

#include <filesystem>
#include <vector>

#include "calibrate/import/batch_record.hpp"

namespace edgetwin::calibrate {

std::vector<BatchRecord> read_trace_csv(const std::filesystem::path& file);

}  // namespace edgetwin::calibrate
