#include "sim/report/trace_writer.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

namespace edgetwin {

TraceWriter::TraceWriter(std::filesystem::path path)
    : path_(std::move(path)), partial_(path_.string() + ".partial") {
  file_ = std::fopen(partial_.c_str(), "w");
  if (file_ == nullptr)
    throw std::runtime_error(fmt::format("{}: cannot write trace: {}", path_.string(), std::strerror(errno)));
  fmt::print(file_,
             "epoch,batch,worker,samples,cache_hits,cache_misses,dispatched_s,start_s,ready_s,consumed_s,"
             "on_device_s,compute_end_s\n");
}

TraceWriter::~TraceWriter() {
  if (file_ == nullptr) return;
  std::fclose(file_);
  std::error_code ignored;
  std::filesystem::remove(partial_, ignored);
}

void TraceWriter::on_batch_done(const BatchRecord& b) {
  fmt::print(file_, "{},{},{},{},{},{},{:.9f},{:.9f},{:.9f},{:.9f},{:.9f},{:.9f}\n", b.epoch, b.index, b.worker,
             b.samples.size(), b.cache_hits, b.cache_misses, b.dispatched_s, b.start_s, b.ready_s, b.consumed_s,
             b.on_device_s, b.compute_end_s);
}

void TraceWriter::commit() {
  const bool ok = std::fflush(file_) == 0 && !std::ferror(file_);
  std::fclose(file_);
  file_ = nullptr;
  if (!ok) {
    std::filesystem::remove(partial_);
    throw std::runtime_error(fmt::format("{}: writing the trace failed", path_.string()));
  }
  std::filesystem::rename(partial_, path_);
}

}  // namespace edgetwin
