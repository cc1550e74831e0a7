// The completion time FedScale's simulator would give a client, for the side-by-side report.
//
// FedScale models a client with two numbers from a device trace: its inference latency per
// sample and its network bandwidth. Its completion time is
//     computation   = 3 x batch size x local steps x latency per sample
//     communication = (upload bytes + download bytes) / bandwidth
// (the 3: a backward pass costs about twice the forward pass), and a round lasts until the
// K-th fastest selected client has completed. docs/explanation/federated.md gives the source and why the
// two models differ.
//
// Contract: the inputs are what a FedScale user would put in its device trace for this device:
// the latency per sample that edgetwin's own costs imply at the device's default power mode
// (its simulated compute time per step / (3 x batch)), and its network class's uplink as the
// one bandwidth figure. No stall, page cache, power mode, worker start-up or contention.
#pragma once

#include <cstdint>

namespace edgetwin {

struct FedScaleClient {
  double latency_s_per_sample = 0;
  double bandwidth_bytes_per_s = 0;
  int batch_size = 0;
  std::int64_t local_steps = 0;
};

double fedscale_computation_s(const FedScaleClient& client);
double fedscale_communication_s(const FedScaleClient& client, double upload_bytes, double download_bytes);

}  // namespace edgetwin
