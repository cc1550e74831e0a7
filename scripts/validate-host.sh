#!/usr/bin/env bash
# Reproduces docs/validation.md on this machine: writes the two datasets, calibrates each
# workload once (edgetwin-calibrate's full plan, with the host device file), validates it with
# its shipped grid calibrating again in every round (edgetwin-validate --calibrate-each-round),
# and re-scores the same measurements with the profile calibrated before the session.
#
#   scripts/validate-host.sh [WORK_DIR] [BUILD_DIR] [WORKLOAD...]
#
# WORK_DIR (default validation-work) receives datasets, profiles and reports:
# WORK_DIR/<workload>/{host-x86-2core.toml, profile-before.toml, report/, report-profile-before/}.
# BUILD_DIR (default build) holds the built programs. Set MAX_LOAD (default 1.5) and
# MAX_WAIT_S (default 1200) to change the wait.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-validation-work}
build=${2:-build}
shift $(( $# > 2 ? 2 : $# ))
workloads=("$@")
[ ${#workloads[@]} -gt 0 ] || workloads=(lenet-mnist lenet-jpeg-folder)
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
    lenet-jpeg-folder)
      data=$(jpeg_data)
      [ -e "$work/grey-lenet5.pt" ] || "$validate" export-grey-lenet --out "$work/grey-lenet5.pt"
      model_options=(--model "$work/grey-lenet5.pt")
      calibrate_options=(--crop-size 28)
      ;;
    *) echo "unknown workload $workload; valid: lenet-mnist, lenet-jpeg-folder" >&2; exit 2 ;;
  esac
  wait_for_quiet
  # calibrate's sequential runs take the page cache as they find it; they are meant to be warm.
  find "$data" -type f -exec cat {} + >/dev/null
  # One calibration before the session: the host device file (measured storage and memory,
  # which the cold and balloon configurations need) and a profile to compare with.
  "$calibrate" run --workload "$workload" --dataset "$data" "${model_options[@]}" "${calibrate_options[@]}" \
    --device-name "$device" --write-device --device-out "$out/$device.toml" --quiet --out "$out/profile-before.toml"
  # The validation, calibrating once per round among the configurations (the headline).
  "$validate" --device "$out/$device.toml" --workload "$workload" --calibrate-each-round --dataset "$data" \
    "${model_options[@]}" --out "$out/report" --max-load "$max_load" --max-wait-s "$max_wait_s"
  # The same measurements predicted with the profile calibrated once before the session.
  "$validate" --device "$out/$device.toml" --workload "$workload" --profile "$out/profile-before.toml" \
    --rescore "$out/report/report.json" --dataset "$data" "${model_options[@]}" --out "$out/report-profile-before" --quiet
done
