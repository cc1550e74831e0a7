#include "sim/report/trace_writer.hpp"

#include <iterator>

#include <fmt/format.h>

namespace edgetwin {

TraceWriter::TraceWriter(std::filesystem::path path) : file_(std::move(path)) {
  file_.write("epoch,batch,worker,samples,cache_hits,cache_misses,dispatched_s,start_s,ready_s,consumed_s,"
              "on_device_s,compute_end_s\n");
}

void TraceWriter::on_batch_done(const BatchRecord& b) {
  row_.clear();
  fmt::format_to(std::back_inserter(row_), "{},{},{},{},{},{},{:.9f},{:.9f},{:.9f},{:.9f},{:.9f},{:.9f}\n", b.epoch,
                 b.index, b.worker, b.samples.size(), b.cache_hits, b.cache_misses, b.dispatched_s, b.start_s,
                 b.ready_s, b.consumed_s, b.on_device_s, b.compute_end_s);
  file_.append(row_);
}

void TraceWriter::commit() { file_.commit(); }

}  // namespace edgetwin
