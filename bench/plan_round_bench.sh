#!/usr/bin/env bash
# Planner benchmark: `edgetwin plan-round` on fleets of 1,000 and 10,000 devices of four types
# (the worked example's groups, fleets/jetson-mixed-resnet18.toml, with their counts scaled),
# every device choosing its power mode, workers and batch size; one round; K = 10 % of the
# fleet with over-commitment 1.3, and a server link scaled with K (1 Gbit/s per 100 updates:
# a server sized for its round). Prints the median wall time of 3 runs, the peak memory and
# the memory per device, with the load average. ROUNDS=50 plans 50 rounds instead of one.
# Usage: [ROUNDS=N] bench/plan_round_bench.sh [build dir] [sizes...]
#   e.g. bench/plan_round_bench.sh build 1000 10000 100000 500000; ROUNDS=50 bench/plan_round_bench.sh build 10000
set -euo pipefail
build=${1:-build}
shift || true
sizes=("${@:-1000 10000}")
edgetwin="$build/sim/edgetwin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r fleets/networks "$work/"
for n in ${sizes[*]}; do
  k=$((n / 10))
  bw=$((k * 1250000))
  sed -e "s/count = 10$/count = $((n / 4))/" -e "s/clients_per_round = 30/clients_per_round = $k/" \
      -e "s/rounds = 3/rounds = ${ROUNDS:-1}/" -e "s/ingress_bytes_per_s = 125e6/ingress_bytes_per_s = $bw/" \
      -e "s/egress_bytes_per_s = 125e6/egress_bytes_per_s = $bw/" fleets/jetson-mixed-resnet18.toml > "$work/fleet-$n.toml"
  times=()
  for run in 1 2 3; do
    /usr/bin/time -f "%e %M" -o "$work/time" "$edgetwin" plan-round --fleet "$work/fleet-$n.toml" --frontier 4 --max-devices "$n" \
      > "$work/out-$n.txt"
    times+=("$(cat "$work/time")")
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
  echo "$n devices (K = $k, ${ROUNDS:-1} round(s)): median $(echo "$median" | cut -d' ' -f1) s wall of 3, peak RSS $(echo "$median" | cut -d' ' -f2) KB, load $(cut -d' ' -f1-3 /proc/loadavg)"
  sed -n 3p "$work/out-$n.txt"
done
