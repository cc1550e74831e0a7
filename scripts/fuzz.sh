#!/usr/bin/env bash
# Runs every libFuzzer target of fuzz/ for a bounded time, two at a time, over a copy of its
# corpus (fuzz/corpus/<target> is only read), and prints executions and coverage per target.
#
#   scripts/fuzz.sh BUILD_DIR SECONDS_PER_TARGET [OUT_DIR]
#
# BUILD_DIR is a build with -DEDGETWIN_FUZZ=ON (scripts/sanitize.sh makes one). An input that
# crashes, breaks an invariant, runs past 10 s or takes 2 GB is a finding: it is saved as
# OUT_DIR/<target>/crash-* (or timeout-*, oom-*) and the script exits 1. A long campaign is the
# same command with more seconds, and EDGETWIN_FUZZ_RUNS=N to stop each target after N inputs
# (EDGETWIN_FUZZ_PARALLEL=1 runs them one after another); docs/reference/reliability.md has the figures
# of the last one. EDGETWIN_FUZZ_ONLY="device_fuzzer fleet_fuzzer" runs only those targets.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/fuzz.sh BUILD_DIR SECONDS_PER_TARGET [OUT_DIR]}
seconds=${2:?usage: scripts/fuzz.sh BUILD_DIR SECONDS_PER_TARGET [OUT_DIR]}
out=${3:-$(mktemp -d /tmp/edgetwin-fuzz-XXXXXX)}
parallel=${EDGETWIN_FUZZ_PARALLEL:-2}

# target corpus dictionary
targets=(
  "device_fuzzer device toml"
  "medium_fuzzer medium toml"
  "workload_fuzzer workload toml"
  "profile_fuzzer profile toml"
  "grid_fuzzer grid toml"
  "trace_csv_fuzzer trace_csv csv"
  "study_log_fuzzer study_log csv"
  "report_json_fuzzer report_json json"
  "run_journal_fuzzer run_journal json"
  "fleet_fuzzer fleet fleet"
  "shard_file_fuzzer shard_file json"
  "merge_fuzzer merge json"
  "import_fuzzer import csv"
)

if [[ -n "${EDGETWIN_FUZZ_ONLY:-}" ]]; then
  chosen=()
  for entry in "${targets[@]}"; do
    read -r target _ _ <<<"$entry"
    [[ " $EDGETWIN_FUZZ_ONLY " == *" $target "* ]] && chosen+=("$entry")
  done
  targets=("${chosen[@]}")
fi

# The loaders read files: keep the fuzzers' scratch files in memory where there is a tmpfs.
scratch=/tmp
[[ -d /dev/shm && -w /dev/shm ]] && scratch=/dev/shm

run_one() {
  local target=$1 corpus=$2 dict=$3
  local dir="$out/$target"
  mkdir -p "$dir/corpus"
  cp -r "fuzz/corpus/$corpus/." "$dir/corpus/"
  local runs=()
  [[ -n "${EDGETWIN_FUZZ_RUNS:-}" ]] && runs=(-runs="$EDGETWIN_FUZZ_RUNS")
  set +e
  TMPDIR=$scratch UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
    "$build/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
      -dict="fuzz/$dict.dict" -artifact_prefix="$dir/" -print_final_stats=1 "${runs[@]}" "$dir/corpus" \
      >"$dir/log.txt" 2>&1
  echo $? >"$dir/status"
  set -e
}

echo "fuzzing ${#targets[@]} targets for ${seconds} s each, ${parallel} at a time; logs in $out" >&2
running=0
for entry in "${targets[@]}"; do
  read -r target corpus dict <<<"$entry"
  run_one "$target" "$corpus" "$dict" &
  running=$((running + 1))
  if ((running >= parallel)); then
    wait -n
    running=$((running - 1))
  fi
done
wait

failed=0
total=0
printf '%-20s %12s %8s %8s %8s  %s\n' target executions exec/s cov ft result
for entry in "${targets[@]}"; do
  read -r target _ _ <<<"$entry"
  dir="$out/$target"
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$dir/log.txt" | awk '{print $2}' | tail -1)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$dir/log.txt" | awk '{print $2}' | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$dir/log.txt" | awk '{print $2}' | tail -1)
  ft=$(grep -o 'ft: [0-9]*' "$dir/log.txt" | awk '{print $2}' | tail -1)
  result=ok
  if [[ "$(cat "$dir/status")" != 0 ]]; then
    result="FINDING: $(ls "$dir" | grep -E '^(crash|timeout|oom|leak|slow-unit)-' | head -1) (see $dir/log.txt)"
    failed=1
  fi
  total=$((total + ${runs:-0}))
  printf '%-20s %12s %8s %8s %8s  %s\n' "$target" "${runs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$result"
done
echo "total executions: $total"
exit $failed
