#!/usr/bin/env bash
# Runs every input of a fuzz corpus through the real program, engine and all, as a user would:
# the fuzz targets stop before SimGrid (one engine per process), this does not.
#
#   scripts/replay_corpus.sh BUILD_DIR KIND CORPUS_DIR
#
# KIND is device, workload or profile: each file is given to `edgetwin predict` as that input
# for one epoch, with shipped files as the rest (LeNet-MNIST; the AGX Xavier; the 2-core host).
# Exit 0 and exit 2 are the promised endings; anything else (a crash, a sanitizer report,
# exit 1, a run past 60 s) is a finding, listed with its file. Prints counts per ending.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/replay_corpus.sh BUILD_DIR device|workload|profile CORPUS_DIR}
kind=${2:?usage}
corpus=${3:?usage}
bin="$build/sim/edgetwin"
scratch=$(mktemp -d /tmp/edgetwin-replay-XXXXXX)
trap 'rm -rf "$scratch"' EXIT
cp -r devices/media "$scratch/media"  # device files name media beside them

declare -A endings=()
findings=0
for input in "$corpus"/*; do
  [[ -f "$input" ]] || continue
  case "$kind" in
    device) cp "$input" "$scratch/device.toml"; args=(--device "$scratch/device.toml" --workload lenet-mnist) ;;
    workload) args=(--device agx-xavier --workload "$input") ;;
    profile) args=(--device host-x86-2core --workload lenet-mnist --profile "$input") ;;
    *) echo "unknown kind $kind" >&2; exit 2 ;;
  esac
  set +e
  UBSAN_OPTIONS=halt_on_error=1 timeout 60 "$bin" predict "${args[@]}" --epochs 1 --json >/dev/null 2>"$scratch/err"
  code=$?
  set -e
  endings[$code]=$(( ${endings[$code]:-0} + 1 ))
  if [[ $code != 0 && $code != 2 ]] || grep -q "Sanitizer" "$scratch/err"; then
    findings=$((findings + 1))
    echo "FINDING (exit $code): $input: $(head -c 300 "$scratch/err")"
  fi
done
for code in "${!endings[@]}"; do echo "exit $code: ${endings[$code]} inputs"; done | sort
echo "findings: $findings"
((findings == 0))
