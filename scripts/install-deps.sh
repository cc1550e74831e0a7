#!/usr/bin/env bash
# Installs the Debian 12 packages edgetwin needs. `--sim` installs only what the simulator
# (edgetwin predict) needs; the default installs everything the tests need too (LibTorch,
# GoogleTest, libjpeg-turbo, zlib, the real Fashion-MNIST (dataset-fashion-mnist) for
# edgetwin-federate's worked example, gnuplot, clang 14 with its sanitizer and libFuzzer runtimes and
# llvm-symbolizer for scripts/sanitize.sh, Open MPI for `edgetwin sweep --mpi`, Python's PyTorch,
# torchvision and pytest for `edgetwin-validate --runner pytorch` and python/, and pybind11,
# pandas and matplotlib for the Python package's bindings, their .to_pandas() and docs/reference/python.md's
# example); both install jemalloc, which edgetwin links where present. Packages already present
# are left as they are.
set -euo pipefail

sim_packages=(cmake g++ make pkg-config libsimgrid-dev libtomlplusplus-dev libcli11-dev libfmt-dev nlohmann-json3-dev
              libjemalloc-dev libboost-dev libxxhash-dev)
all_packages=("${sim_packages[@]}" libtorch-dev libeigen3-dev googletest libgtest-dev libjpeg62-turbo-dev zlib1g-dev
              dataset-fashion-mnist gnuplot-nox help2man dpkg-dev
              clang-14 libclang-rt-14-dev llvm-14 openmpi-bin libopenmpi-dev
              python3-torch python3-torchvision python3-pytest python3-dev pybind11-dev python3-pybind11 python3-pandas
              python3-matplotlib)

packages=("${all_packages[@]}")
[[ "${1:-}" == "--sim" ]] && packages=("${sim_packages[@]}")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
echo "installing: ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
