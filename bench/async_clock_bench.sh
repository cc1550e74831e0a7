#!/usr/bin/env bash
# Clock-only benchmark of buffered asynchronous aggregation (FedBuff): `edgetwin plan-round` on
# the worked example's four groups (fleets/jetson-mixed-resnet18.toml) scaled to 10,000 devices,
# every device with an availability trace, for at least 24 simulated hours. B = 100 updates an
# aggregation, at most 1,000 tasks in flight. Every device holds the group's median dataset
# (1,250 samples), so the benchmark times the round engine rather than the devices' training
# simulations, which one run per (group, configuration) covers (sim/plan/task_profiles.hpp).
# The traces are seeded: each device alternates sessions online (1 to 4 h) and offline (30 min
# to 2 h), starting online or not at random. Prints the median wall time of 3 runs, the peak
# memory, the versions and simulated hours, with the load average.
# Usage: bench/async_clock_bench.sh [build dir] [versions]
set -euo pipefail
build=${1:-build}
versions=${2:-2250}
edgetwin="$build/sim/edgetwin"
work=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
cp -r fleets/networks "$work/"
mkdir "$work/traces"
per_group=2500
for g in 0 1 2 3; do
  awk -v n=$per_group -v seed=$((g + 11)) 'BEGIN {
    srand(seed)
    for (d = 0; d < n; ++d) {
      t = rand() < 0.5 ? 0 : int(rand() * 3600); line = d; on = 1
      while (t < 30 * 3600) {
        line = line " " t
        t += on ? 3600 + int(rand() * 3 * 3600) : 1800 + int(rand() * 5400)
        on = !on
      }
      print line
    }
  }' > "$work/traces/group$g.txt"
done
awk -v per_group=$per_group -v versions="$versions" '
  /^rounds = / { print "rounds = " versions; next }
  /^over_commitment/ { next }
  /^clients_per_round/ { print; print "aggregation = \"buffered\"\nbuffer_size = 100\nconcurrency = 1000"; next }
  /^count = / { print "count = " per_group; next }
  /^samples = / { print "samples = 1250"; next }
  /^availability = / { next }
  /^\[\[group\]\]/ { g = (g == "" ? 0 : g + 1) }
  /^network = / { print; print "availability = { trace = \"traces/group" g ".txt\" }"; next }
  { print }' fleets/jetson-mixed-resnet18.toml > "$work/fleet.toml"
times=()
for run in $(seq 1 "${RUNS:-3}"); do
  # The time objective: every device at its fastest configuration, verified in one round
  # simulation, so the run is the clock's (the energy objective's plan simulates it again for
  # each group of devices it moves: docs/explanation/performance.md).
  /usr/bin/time -f "%e %M" -o "$work/time" "$edgetwin" plan-round --fleet "$work/fleet.toml" --objective time \
    > "$work/out.txt"
  times+=("$(cat "$work/time")")
done
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (${#times[@]} + 1) / 2 ))p")
sed -n 3,4p "$work/out.txt"
echo "10000 devices: median $(echo "$median" | cut -d' ' -f1) s wall of ${#times[@]}, peak RSS $(echo "$median" | cut -d' ' -f2) KB, load $(cut -d' ' -f1-3 /proc/loadavg)"
