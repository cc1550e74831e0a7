#!/usr/bin/env bash
# The sanitizer job of CI (docs/reference/reliability.md): builds the simulator, its tests, the
# importers and the readers of grids, journals and reports (everything without LibTorch) with
# clang, AddressSanitizer and UndefinedBehaviorSanitizer, runs the unit tests under them, then
# every fuzz target for EDGETWIN_FUZZ_SECONDS (default 10) each, two at a time. Any sanitizer
# report, test failure or fuzz finding fails it. It prints the seconds of each part (the whole
# of .ci/run is meant to take 10 to 20 minutes on 2 cores; docs/reference/reliability.md has the figures).
#
# -O1 -gline-tables-only: the sanitizers' own advice (-O1 keeps stacks whole), and line tables
# are all a report needs; full debug information doubled the compile and link time.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
build=${EDGETWIN_SANITIZE_BUILD:-build-sanitize}
export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer  # readable stacks (llvm-14)
start=$SECONDS
CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="-O1 -gline-tables-only" \
  -DEDGETWIN_BUILD_CALIBRATE=OFF -DEDGETWIN_MPI=OFF -DEDGETWIN_SANITIZE=ON -DEDGETWIN_FUZZ=ON >/dev/null
cmake --build "$build" -j"$(nproc)"
built=$SECONDS
# The kill tests time real processes and simulate thousands of configurations per kill: they
# test processes, not memory, and run in the Release job (scripts/test.sh).
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1 \
  ctest --test-dir "$build" --output-on-failure -j"$(nproc)" -LE "slow|e2e" -E "KillSafety"
tested=$SECONDS
rm -rf "$build/fuzz-run"
# 10 s a target: a smoke run from the corpus (about 350,000 executions in all); findings come
# from the long campaigns of docs/reference/reliability.md, which the same script runs with more seconds.
scripts/fuzz.sh "$build" "${EDGETWIN_FUZZ_SECONDS:-10}" "$build/fuzz-run"
echo "sanitizer job: build $((built - start)) s, tests $((tested - built)) s, fuzzing $((SECONDS - tested)) s" >&2
