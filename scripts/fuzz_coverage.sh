#!/usr/bin/env bash
# Line coverage of each fuzz target's parser over a corpus: the coverage figures of
# docs/reference/reliability.md.
#
#   scripts/fuzz_coverage.sh COVERAGE_BUILD_DIR FUZZ_OUT_DIR
#
# COVERAGE_BUILD_DIR: a build with -DEDGETWIN_FUZZ=ON and
# -DCMAKE_CXX_FLAGS="-fprofile-instr-generate -fcoverage-mapping" (clang 14, no sanitizer);
# FUZZ_OUT_DIR: what scripts/fuzz.sh left (OUT/<target>/corpus), or fuzz/corpus's layout.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/fuzz_coverage.sh COVERAGE_BUILD_DIR FUZZ_OUT_DIR}
out=${2:?usage: scripts/fuzz_coverage.sh COVERAGE_BUILD_DIR FUZZ_OUT_DIR}
work=$(mktemp -d /tmp/edgetwin-coverage-XXXXXX)
trap 'rm -rf "$work"' EXIT

toml="sim/config/toml_reader.cpp sim/config/toml_nesting.cpp sim/config/input_file.cpp"
declare -A files=(
  [device_fuzzer]="sim/config/device_loader.cpp sim/config/medium_loader.cpp $toml sim/model/engine_inputs.cpp"
  [medium_fuzzer]="sim/config/medium_loader.cpp $toml"
  [workload_fuzzer]="sim/config/workload_loader.cpp sim/config/run_validator.cpp sim/config/cost_estimator.cpp $toml sim/model/engine_inputs.cpp"
  [profile_fuzzer]="sim/config/profile_loader.cpp sim/config/workload_loader.cpp $toml"
  [grid_fuzzer]="validate/validation_grid.cpp $toml"
  [trace_csv_fuzzer]="calibrate/import/csv_table.cpp calibrate/import/trace_csv_reader.cpp calibrate/import/cost_derivation.cpp"
  [study_log_fuzzer]="calibrate/import/csv_table.cpp calibrate/import/study_log_reader.cpp calibrate/import/cost_derivation.cpp"
  [report_json_fuzzer]="validate/report_reader.cpp validate/measured_run_json.cpp"
  [run_journal_fuzzer]="validate/run_journal.cpp validate/measured_run_json.cpp"
)
printf '%-20s %8s %8s  %s\n' target lines covered "files"
for target in device_fuzzer medium_fuzzer workload_fuzzer profile_fuzzer grid_fuzzer trace_csv_fuzzer study_log_fuzzer \
              report_json_fuzzer run_journal_fuzzer; do
  corpus="$out/$target/corpus"
  [[ -d "$corpus" ]] || continue
  LLVM_PROFILE_FILE="$work/$target.profraw" TMPDIR=$work "$build/fuzz/$target" -runs=0 "$corpus" >/dev/null 2>&1 || true
  llvm-profdata-14 merge -o "$work/$target.profdata" "$work/$target.profraw"
  # shellcheck disable=SC2086
  total=$(llvm-cov-14 report "$build/fuzz/$target" -instr-profile="$work/$target.profdata" ${files[$target]} | tail -1)
  lines=$(awk '{print $8}' <<<"$total")
  cover=$(awk '{print $10}' <<<"$total")
  printf '%-20s %8s %8s  %s\n' "$target" "$lines" "$cover" "${files[$target]}"
done
