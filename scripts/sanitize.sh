#!/usr/bin/env bash
# The sanitizer job of CI (docs/reliability.md): builds the simulator, its tests, the
# importers and the readers of grids, journals and reports (everything without LibTorch) with
# clang, AddressSanitizer and UndefinedBehaviorSanitizer, runs the unit tests under them, then
# every fuzz target for EDGETWIN_FUZZ_SECONDS (default 45) each. Any sanitizer report, test
# failure or fuzz finding fails it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
build=${EDGETWIN_SANITIZE_BUILD:-build-sanitize}
export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer  # readable stacks (llvm-14)
CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEDGETWIN_BUILD_CALIBRATE=OFF -DEDGETWIN_MPI=OFF \
  -DEDGETWIN_SANITIZE=ON -DEDGETWIN_FUZZ=ON >/dev/null
cmake --build "$build" -j"$(nproc)"
# The kill tests time real processes and simulate thousands of configurations per kill: they
# test processes, not memory, and run in the Release job (scripts/test.sh).
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1 \
  ctest --test-dir "$build" --output-on-failure -j"$(nproc)" -LE "slow|e2e" -E "KillSafety"
scripts/fuzz.sh "$build" "${EDGETWIN_FUZZ_SECONDS:-45}" "$build/fuzz-run"
