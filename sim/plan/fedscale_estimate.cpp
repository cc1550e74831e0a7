#include "sim/plan/fedscale_estimate.hpp"

namespace edgetwin {

// FedScale's augmentation factor: forward once, backward about twice.
constexpr double kFedScaleAugmentation = 3.0;

double fedscale_computation_s(const FedScaleClient& c) {
  return kFedScaleAugmentation * c.batch_size * static_cast<double>(c.local_steps) * c.latency_s_per_sample;
}

double fedscale_communication_s(const FedScaleClient& c, double upload_bytes, double download_bytes) {
  return (upload_bytes + download_bytes) / c.bandwidth_bytes_per_s;
}

}  // namespace edgetwin
