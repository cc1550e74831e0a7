#include "validate/residency_probe_dataset.hpp"

#include "calibrate/hardware/page_cache_control.hpp"

namespace edgetwin::validate {

ResidencyProbeDataset::ResidencyProbeDataset(const calibrate::JpegFolderDataset& inner, int probe_every)
    : inner_(inner), probe_every_(probe_every < 1 ? 1 : probe_every) {}

calibrate::EncodedSample ResidencyProbeDataset::fetch(std::size_t index) const {
  if (index % static_cast<std::size_t>(probe_every_) == 0) {
    const calibrate::Residency r = calibrate::file_residency(inner_.sample_path(index));
    probes_.fetch_add(1, std::memory_order_relaxed);
    if (r.resident_pages == r.pages) hits_.fetch_add(1, std::memory_order_relaxed);
  }
  return inner_.fetch(index);
}

ProbeCounts ResidencyProbeDataset::take_counts() {
  return ProbeCounts{probes_.exchange(0), hits_.exchange(0)};
}

}  // namespace edgetwin::validate
