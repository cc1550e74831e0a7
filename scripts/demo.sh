#!/usr/bin/env bash
# Installs what the simulator needs, builds it (Release) and predicts LeNet-MNIST training
# on the machine class edgetwin is developed on. Extra arguments go to `edgetwin predict`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --sim
cmake -S . -B build-sim -DCMAKE_BUILD_TYPE=Release -DEDGETWIN_BUILD_CALIBRATE=OFF -DEDGETWIN_BUILD_TESTS=OFF >/dev/null
cmake --build build-sim --target edgetwin -j"$(nproc)" >/dev/null
build-sim/sim/edgetwin predict --device host-x86-2core --workload lenet-mnist --epochs 3 "$@"
