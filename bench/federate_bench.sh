#!/usr/bin/env bash
# Learning-run benchmark (docs/explanation/performance.md, "Learning runs"):
#   1. client training against plain LibTorch, in children with 1 and 2 jobs and in process
#      (edgetwin_bench_client_training, median of 3);
#   2. the shipped example (fleets/jetson-mixed-lenet-fashion-mnist.toml, 30 rounds): wall
#      time, the share of planning and of the round engine in it (from the progress lines), and
#      the peak memory of the largest process (GNU time's maximum resident set), with --jobs 1
#      and 2.
# Prints the load average beside each figure: this machine's timings swing with its load.
# Usage: bench/federate_bench.sh [build dir] [rounds]
set -euo pipefail
build=${1:-build}
rounds=${2:-30}
cmake --build "$build" --target edgetwin_bench_client_training edgetwin-federate >/dev/null
echo "== client training (load $(cut -d' ' -f1-3 /proc/loadavg))"
"$build/bench/edgetwin_bench_client_training" 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for jobs in 1 2; do
  /usr/bin/time -f "%e %M" -o "$work/time" "$build/federate/edgetwin-federate" --fleet jetson-mixed-lenet-fashion-mnist \
    --rounds "$rounds" --jobs "$jobs" --json > "$work/run.json" 2> "$work/progress"
  read -r wall rss < "$work/time"
  planning=$(sed -n 's/.*(planning \([0-9.]*\) s).*/\1/p' "$work/progress")
  clock=$(sed -n 's/.*(the clock took \([0-9.]*\) s).*/\1/p' "$work/progress")
  share=$(awk -v p="$planning" -v c="$clock" -v w="$wall" 'BEGIN { printf "%.2f", 100 * (p + c) / w }')
  echo "== shipped example, $rounds rounds, --jobs $jobs: ${wall} s wall, planning ${planning} s, round engine ${clock} s" \
       "(${share} % of the wall time), peak RSS $((rss / 1024)) MB, load $(cut -d' ' -f1-3 /proc/loadavg)"
done
