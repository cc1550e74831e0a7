#!/usr/bin/env bash
# Reproduces docs/explanation/validation.md on this machine: writes the datasets, calibrates each workload
# once (edgetwin-calibrate's full plan, with the host device file), validates it with its
# shipped grid calibrating again in every round (edgetwin-validate --calibrate-each-round),
# with each runner asked for, and re-scores the LibTorch runner's measurements with the profile
# calibrated before the session.
#
#   scripts/validate-host.sh [WORK_DIR] [BUILD_DIR] [WORKLOAD...]
#
# WORKLOAD: lenet-mnist, lenet-jpeg-folder, resnet18-cifar10 (default: all three).
# WORK_DIR (default validation-work) receives datasets, profiles and reports:
# WORK_DIR/<workload>/{host-x86-2core.toml, profile-before.toml, report-<runner>/,
# report-libtorch-profile-before/}.
# BUILD_DIR (default build) holds the built programs. Set RUNNERS (default "libtorch pytorch"),
# MAX_LOAD (default 1.5) and MAX_WAIT_S (default 1200) to change the runners and the wait.
# Every grid with both runners takes about three hours on the 2-core dev VM; keep the machine
# otherwise idle (docs/explanation/validation.md).
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-validation-work}
build=${2:-build}
shift $(( $# > 2 ? 2 : $# ))
workloads=("$@")
[ ${#workloads[@]} -gt 0 ] || workloads=(lenet-mnist lenet-jpeg-folder resnet18-cifar10)
read -r -a runners <<< "${RUNNERS:-libtorch pytorch}"
calibrate=$build/calibrate/app/edgetwin-calibrate
validate=$build/validate/edgetwin-validate
device=host-x86-2core
max_load=${MAX_LOAD:-1.5}
max_wait_s=${MAX_WAIT_S:-1200}

# Polls the 1-minute load average every 30 s until it is below max_load or max_wait_s passed.
wait_for_quiet() {
  local waited=0
  while awk -v max="$max_load" '{ exit !($1 >= max) }' /proc/loadavg && [ "$waited" -lt "$max_wait_s" ]; do
    sleep 30
    waited=$((waited + 30))
  done
  echo "load $(cut -d' ' -f1-3 /proc/loadavg) after waiting ${waited} s" >&2
}

mnist_data() {
  local dir=$work/data/mnist
  [ -e "$dir/train-images-idx3-ubyte" ] || "$calibrate" make-dataset --format mnist --samples 60000 --out "$dir" >&2
  echo "$dir"
}

cifar10_data() {
  local dir=$work/data/cifar10
  [ -e "$dir/data_batch_5.bin" ] || "$calibrate" make-dataset --format cifar10 --samples 50000 --out "$dir" >&2
  echo "$dir"
}

# 20,000 128x128 JPEGs with 64 KiB of metadata each (workloads/lenet-jpeg-folder.toml).
jpeg_data() {
  local dir=$work/data/jpeg128-meta64k
  if [ ! -e "$dir/.complete" ]; then
    rm -rf "$dir"
    "$calibrate" make-dataset --format jpeg-folder --samples 20000 --image-size 128 --out "$dir" >&2
    "$validate" pad-jpeg-metadata --dataset "$dir" --bytes 65536 >&2
    touch "$dir/.complete"
  fi
  echo "$dir"
}

for workload in "${workloads[@]}"; do
  out=$work/$workload
  mkdir -p "$out"
  model_options=()
  calibrate_options=()
  case $workload in
    lenet-mnist) data=$(mnist_data) ;;
    resnet18-cifar10) data=$(cifar10_data) ;;
    lenet-jpeg-folder)
      data=$(jpeg_data)
      [ -e "$work/grey-lenet5.pt" ] || "$validate" export-grey-lenet --out "$work/grey-lenet5.pt"
      model_options=(--model "$work/grey-lenet5.pt")
      calibrate_options=(--crop-size 28)
      ;;
    *) echo "unknown workload $workload; valid: lenet-mnist, lenet-jpeg-folder, resnet18-cifar10" >&2; exit 2 ;;
  esac
  wait_for_quiet
  # calibrate's sequential runs take the page cache as they find it; they are meant to be warm.
  find "$data" -type f -exec cat {} + >/dev/null
  # One calibration before the sessions: the host device file (measured storage and memory,
  # which the cold and balloon configurations need) and a profile to compare with.
  "$calibrate" run --workload "$workload" --dataset "$data" "${model_options[@]}" "${calibrate_options[@]}" \
    --device-name "$device" --write-device --device-out "$out/$device.toml" --quiet --out "$out/profile-before.toml"
  for runner in "${runners[@]}"; do
    # The validation, calibrating once per round among the configurations (the headline). The
    # PyTorch runner's worker processes keep the load average up between rounds, so its
    # sessions do not wait for it (the host watch still waits for fast CPUs before each run).
    load_options=(--max-load "$max_load" --max-wait-s "$max_wait_s")
    [ "$runner" = libtorch ] || load_options=(--max-load 0)
    wait_for_quiet
    "$validate" --runner "$runner" --device "$out/$device.toml" --workload "$workload" --calibrate-each-round \
      --dataset "$data" "${model_options[@]}" --out "$out/report-$runner" "${load_options[@]}"
  done
  if [ -e "$out/report-libtorch/report.json" ]; then
    # The same measurements predicted with the profile calibrated once before the session.
    "$validate" --device "$out/$device.toml" --workload "$workload" --profile "$out/profile-before.toml" \
      --rescore "$out/report-libtorch/report.json" --dataset "$data" "${model_options[@]}" \
      --out "$out/report-libtorch-profile-before" --quiet
  fi
done
