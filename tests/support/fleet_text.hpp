// The tail every hand-written test fleet shares: one radio network class (1 MB/s up, 2 MB/s
// down, 10 ms, 1 W / 0.5 W) and the provenance the fleet loader asks for. Fleets in tests end
// their last group with network = "radio" and append this.
#pragma once

namespace edgetwin::testing {

inline constexpr const char* kRadioNetworkAndProvenance = R"(
[network.radio]
uplink_bytes_per_s = 1e6
downlink_bytes_per_s = 2e6
latency_s = 0.01
radio_tx_power_w = 1
radio_rx_power_w = 0.5

[provenance]
fleet = { kind = "estimate", source = "test" }
server = { kind = "estimate", source = "test" }
network = { kind = "estimate", source = "test" }
)";

}  // namespace edgetwin::testing
