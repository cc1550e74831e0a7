#!/usr/bin/env bash
# Installs every dependency, builds everything (Release) and runs the whole test suite.
# Tests labelled `slow` (full validation grids, long calibrations) are skipped unless
# EDGETWIN_SLOW_TESTS=1.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
exclude=(-LE slow)
[[ "${EDGETWIN_SLOW_TESTS:-0}" == "1" ]] && exclude=()
ctest --test-dir build --output-on-failure -j"$(nproc)" "${exclude[@]}"
