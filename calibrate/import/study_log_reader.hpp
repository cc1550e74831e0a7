// Reads the Jetson study's per-run CSV logs (dream-lab/edge-train-bench, docs/reference/sources.md):
//   <prefix>_fetch.csv        epoch, batch_idx, fetchtime, fetchtime_ms, log_time
//   <prefix>_compute.csv      epoch, batch_idx, computetime, computetime_ms, log_time
//   <prefix>_epoch_stats.csv  epoch, time, loss, accuracy, epochtime_ms, log_time  (optional)
//
// Contract: fetch and compute rows are joined on (epoch, batch_idx); a batch in one file but
// not the other is a ConfigError naming both. The logs carry no batch size, so the caller
// gives the loader's batch size and the dataset size: every batch is full except the last of
// an epoch, which holds the remainder (unless drop_last). Times are the seconds columns.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "calibrate/import/batch_record.hpp"

namespace edgetwin::calibrate {

struct StudyLogs {
  std::vector<BatchRecord> batches;
  std::vector<EpochRecord> epochs;  // empty when <prefix>_epoch_stats.csv is absent
  std::vector<std::filesystem::path> files;  // the files read
};

// dataset_samples 0 = unknown: every batch counts as full.
StudyLogs read_study_logs(const std::filesystem::path& prefix, int batch_size,
                          std::int64_t dataset_samples, bool drop_last);

}  // namespace edgetwin::calibrate
