#!/usr/bin/env bash
# Sweep benchmark: every AGX Xavier custom mode (8 x 29 x 14 x 9 = 29,232) for
# resnet18-cifar10, one epoch each, timed; then 200 configurations drawn at random are
# predicted in full (whole epochs, every pstate) and compared with the sweep's extrapolated
# figures. Prints the wall time and the worst relative error of E2E and energy.
# Usage: bench/sweep_bench.sh [build dir] [window batches] [jobs]
set -euo pipefail
build=${1:-build}
window=${2:-50}
jobs=${3:-2}
edgetwin="$build/sim/edgetwin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

start=$(date +%s.%N)
"$edgetwin" sweep --device agx-xavier --workload resnet18-cifar10 --modes all --window "$window" --jobs "$jobs" \
  --quiet --csv "$work/sweep.csv" > /dev/null
end=$(date +%s.%N)
rows=$(($(wc -l < "$work/sweep.csv") - 1))
echo "sweep: $rows configurations in $(echo "$end - $start" | bc) s (window $window batches, $jobs jobs)"

# 200 rows at random (fixed seed), each predicted in full.
tail -n +2 "$work/sweep.csv" | shuf -n 200 --random-source=<(yes) > "$work/sample.csv"
while IFS=, read -r mode cores cpu gpu emc workers batch storage e2e stall compute energy rest; do
  full=$("$edgetwin" predict --device agx-xavier --workload resnet18-cifar10 --cores "$cores" --cpu-freq "${cpu}MHz" \
    --gpu-freq "${gpu}MHz" --emc-freq "${emc}MHz" --workers "$workers" --batch-size "$batch" --storage "$storage" \
    --csv | tail -1)
  echo "$e2e $energy $(echo "$full" | cut -d, -f2) $(echo "$full" | cut -d, -f12) $cores $cpu $gpu $emc"
done < "$work/sample.csv" > "$work/pairs.txt"
awk '{t=($1-$3)/$3; if(t<0)t=-t; e=($2-$4)/$4; if(e<0)e=-e; if(t>wt){wt=t; ct=$5" cores, "$6"/"$7"/"$8" MHz"} if(e>we){we=e; ce=$5" cores, "$6"/"$7"/"$8" MHz"}}
  END{printf "200 random configurations against full simulations: worst E2E error %.4f %% (%s), worst energy error %.4f %% (%s)\n", 100*wt, ct, 100*we, ce}' "$work/pairs.txt"
