#!/usr/bin/env bash
# Checks what belongs to the machine (docs/explanation/import.md, *What belongs to the machine*):
# a profile made from num_workers = 0 traces alone, on a device whose [worker_processes] another
# workload measured, against real runs with worker processes.
#
#   scripts/validate-machine-terms.sh [WORK_DIR] [BUILD_DIR]
#
# 1. Workload A, the one that measures the machine: LeNet on 4,000 unpadded 128-pixel JPEG files
#    through a Resize + CenterCrop transform, profiled by `python3 -m edgetwin.profile` (its full
#    plan: worker traces, share traces, the placement probe) with --device-out: the host's
#    device file, with [worker_processes]: its step's share and placement from A's runs, its
#    handoff terms from the handoff probe (python/edgetwin/handoff_probe.py).
# 2. Workload B, checked: the grey LeNet on 6,000 64-pixel JPEG files padded to about 18 KB,
#    through the PyTorch runner's RandomResizedCrop(28) (validate/pytorch_train.py): other files,
#    another size, another transform. One `edgetwin-validate --runner pytorch
#    --calibrate-each-round` session measures its grid (workers 0 to 4) and predicts it with
#    the full recipe each round.
# 3. The same runs predicted again (--rescore, no new runs) with B's profile from its
#    num_workers = 0 traces alone (the session's first round): once on the device with
#    [worker_processes], once on the device without them (the workload's guesses).
# 4. Workload C, compute-bound: ResNet-18 on 960 of B's files. edgetwin.profile makes its short
#    runs (no share traces, no placement probe); its num_workers = 0 traces alone make the profile
#    one session measures the grid with and predicts it by; the same runs are then predicted with
#    the workload's guesses and with edgetwin.profile's own profile.
#
# WORK_DIR (default machine-terms-work) receives everything; reports in WORK_DIR/report-*.
# CHECKS (default "b c") names the workloads to check after A. On the 2-core dev VM, keep the
# machine otherwise idle. A took 5 minutes (2026-12-07); on 2026-12-06 B took 12 (its make-up
# rounds included) and C 14.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(realpath -m "${1:-machine-terms-work}")
build=$(realpath "${2:-build}")
calibrate=$build/calibrate/app/edgetwin-calibrate
validate=$build/validate/edgetwin-validate
mkdir -p "$work"
export PYTHONPATH=$build/python${PYTHONPATH:+:$PYTHONPATH}
export EDGETWIN_CALIBRATE=$calibrate

# ---- A: the machine's terms -------------------------------------------------------------------
if [ ! -e "$work/a/.complete" ]; then
  rm -rf "$work/a" && mkdir -p "$work/a"
  "$calibrate" make-dataset --format jpeg-folder --samples 4000 --image-size 128 --out "$work/a/images" >&2
  cat > "$work/a/machine_a.py" <<'EOF'
import os
import torch
import torchvision
from torchvision import transforms

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "images")


def make_transform():
    return transforms.Compose([transforms.Grayscale(), transforms.Resize(32), transforms.CenterCrop(28),
                               transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])


def make_dataset(transform):
    return torchvision.datasets.ImageFolder(ROOT, transform)


def make_model():
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 6, 5, padding=2), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(6, 16, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(),
        torch.nn.Linear(400, 120), torch.nn.ReLU(), torch.nn.Linear(120, 84), torch.nn.ReLU(),
        torch.nn.Linear(84, 10))
EOF
  # Debian's python3, with python3-torch and python3-torchvision (the README's install), whatever
  # python3 comes first on PATH.
  (cd "$work/a" && /usr/bin/python3 -m edgetwin.profile --dataset machine_a:make_dataset --transform machine_a:make_transform \
     --model machine_a:make_model --batch-sizes 16,32 --device-out host.toml --workload-out a.toml \
     --keep-traces traces --out a-profile.toml)
  touch "$work/a/.complete"
fi
host=$work/a/host.toml
# The same device without [worker_processes]: what an import had before them.
awk '/^\[worker_processes\]|^\[provenance.worker_processes\]/ { skip = 1; next } /^\[/ { skip = 0 } !skip' \
  "$host" > "$work/host-without-terms.toml"

# ---- B: the workload checked --------------------------------------------------------------------
data=$work/b/images
if [ ! -e "$work/b/.complete" ]; then
  rm -rf "$work/b" && mkdir -p "$work/b"
  "$calibrate" make-dataset --format jpeg-folder --samples 6000 --image-size 64 --out "$data" >&2
  "$validate" pad-jpeg-metadata --dataset "$data" --bytes 16384 >&2
  "$validate" export-grey-lenet --out "$work/b/grey-lenet5.pt" >&2
  touch "$work/b/.complete"
fi
bytes=$(find "$data" -type f -name '*.jpg' -printf '%s\n' | awk '{ s += $1; n++ } END { printf "%d", s / n }')
sed -e 's/^name = "lenet-jpeg-folder"/name = "lenet-jpeg-18k"/' -e 's/^samples = 20000$/samples = 6000/' \
    -e "s/^sample_bytes = 71851 /sample_bytes = $bytes /" -e 's/^device = "host-x86-2core"/device = "host"/' \
    workloads/lenet-jpeg-folder.toml > "$work/b/b.toml"
grep -q 'name = "lenet-jpeg-18k"' "$work/b/b.toml" && grep -q "sample_bytes = $bytes " "$work/b/b.toml"
# A grid's settings and the points B and C share: workers 0 at batch 32 (not the calibration's
# batch 16), then 1, 2 and 4 workers at batch 16.
#   grid_with REPEATS MAX_SAMPLES > FILE, more [[config]] tables appended after it
grid_with() {
  cat <<EOF
[grid]
repeats = $1
epochs = 2
max_samples = $2
seed = 1

[defaults]
batch_size = 16
workers = 2
prefetch_factor = 2
cache = "warm"

[[config]]
name = "w0-b32"
workers = 0
batch_size = 32

[[config]]
name = "w1-b16"
workers = 1

[[config]]
name = "w2-b16"

[[config]]
name = "w4-b16"
workers = 4
EOF
}
# Workload B's grid adds points with worker processes, where the machine's terms matter.
{ grid_with 3 0; cat <<'EOF'; } > "$work/b/grid.toml"

[[config]]
name = "w2-b32"
batch_size = 32

[[config]]
name = "w2-b16-pf4"
prefetch_factor = 4

[[config]]
name = "w2-b16-1core"
cores = 1
EOF
find "$data" -type f -exec cat {} + > /dev/null  # calibration expects a warm cache
clock=$(awk -F' = ' '/^freq_hz/ { print $2; exit }' "$host")
medium=$(awk -F'"' '/^default_storage/ { print $2 }' "$host")

# A workload's profiles from num_workers = 0 traces alone, once on the device with
# [worker_processes] and once on the same device without them (the workload's guesses):
#   import_w0 NAME WORKLOAD_TOML COLD_THEN_WARM_TRACE TRACE...
#   -> WORK_DIR/NAME-w0-with-machine-terms.toml, WORK_DIR/NAME-w0-with-workload-guesses.toml
import_w0() {
  local name=$1 workload=$2 cold=$3 kind device t
  shift 3
  for kind in with-machine-terms with-workload-guesses; do
    device=$host
    [ "$kind" = with-machine-terms ] || device=$work/host-without-terms.toml
    local args=(import --workload "$workload" --device "$device" --reference-cpu-freq-hz "$clock"
                --cold-then-warm-trace "$cold" --storage-name "$medium" --accept-disturbed
                --out "$work/$name-w0-$kind.toml")
    for t in "$@"; do args+=(--trace "$t"); done
    "$calibrate" "${args[@]}"
  done
}

# One workload's check: a session calibrated each round with the full recipe, then its runs
# predicted again from its first round's num_workers = 0 traces alone, with the machine's terms
# and with the workload's guesses.
#   check NAME WORKLOAD_TOML GRID_TOML VALIDATE_OPTIONS...   (reports in WORK_DIR/report-NAME-*)
check() {
  local name=$1 workload=$2 grid=$3
  shift 3
  local session=(--runner pytorch --workload "$workload" --dataset "$data" --format jpeg-folder --grid "$grid" "$@")
  local full=$work/report-$name-full
  [ -e "$full/report.json" ] ||
    "$validate" "${session[@]}" --device "$host" --calibrate-each-round --max-load 0 --out "$full"
  local traces cold scaling
  traces=$(find "$full" -name 'round-1-w0-b*.csv' ! -name '*cold*' | sort)
  cold=$(find "$full" -name 'round-1-w0-b*-cold-then-warm.csv')
  scaling=$(find "$full" -name 'round-1-scaling.csv' -o -name 'round-1-loader-scaling.csv' | sort)
  [ -n "$traces" ] && [ -n "$cold" ] && [ -n "$scaling" ]
  # shellcheck disable=SC2086  # one path a word
  import_w0 "$name" "$workload" "$cold" $traces $scaling
  local kind
  for kind in with-machine-terms with-workload-guesses; do
    "$validate" "${session[@]}" --device "$host" --profile "$work/$name-w0-$kind.toml" \
      --rescore "$full/report.json" --out "$work/report-$name-w0-$kind"
  done
}

check b "$work/b/b.toml" "$work/b/grid.toml" --model "$work/b/grey-lenet5.pt" --crop-size 28

[[ " ${CHECKS:-b c} " == *" c "* ]] || exit 0

# ---- C: compute-bound ------------------------------------------------------------------------------
# ResNet-18 (CIFAR variant) on the first 960 of B's files through RandomResizedCrop(32): the loader
# is a few per cent of the step, so the workers contend for cores rather than keep it waiting.
mkdir -p "$work/c"
sed -e 's/^name = "resnet18-cifar10"/name = "resnet18-jpeg-18k"/' \
    -e 's/^name = "CIFAR-10"/name = "synthetic JPEG folder (64x64 RGB, 16 KiB metadata)"/' \
    -e 's/^samples = 50000$/samples = 6000/' -e "s/^sample_bytes = 3073 .*/sample_bytes = $bytes/" \
    -e 's/^layout = "in_ram"/layout = "file_per_sample"/' -e 's/^device = "host-x86-2core"/device = "host"/' \
    workloads/resnet18-cifar10.toml > "$work/c/c.toml"
grep -q 'name = "resnet18-jpeg-18k"' "$work/c/c.toml" && grep -q 'layout = "file_per_sample"' "$work/c/c.toml"
grid_with 2 960 > "$work/c/grid.toml"
# A session calibrated each round with the full recipe would take well over an hour here (each
# PyTorch calibration round of ResNet-18 takes 11 minutes, most of it in the placement probe), so
# C is checked from the other end: edgetwin.profile makes the short runs on the same 960 files and
# transform (validate/pytorch_train.py's, imported), without share traces and placement probe;
# the import takes its num_workers = 0 traces alone; one session measures the grid and predicts
# it with that profile; its runs are then predicted again with the workload's guesses, and with
# the profile edgetwin.profile made from all of its runs.
if [ ! -e "$work/c/.complete" ]; then
  cat > "$work/c/machine_c.py" <<EOF
import sys
sys.path.insert(0, "$PWD/validate")
import pytorch_train

ROOT = "$data"


def make_dataset():
    folder, _ = pytorch_train.jpeg_folder_dataset(ROOT, 32)
    folder.samples = folder.imgs = folder.samples[:960]  # the grid's max_samples, in folder order
    folder.targets = [label for _, label in folder.samples]
    return folder


def make_model():
    return pytorch_train.make_model("resnet18-cifar", 10)
EOF
  rm -rf "$work/c/traces"
  (cd "$work/c" && /usr/bin/python3 -m edgetwin.profile --dataset machine_c:make_dataset --model machine_c:make_model \
     --batch-sizes 16,32 --device "$host" --workload "$work/c/c.toml" --skip share,placement \
     --keep-traces traces --out c-profile.toml)
  touch "$work/c/.complete"
fi
c_session=(--runner pytorch --workload "$work/c/c.toml" --dataset "$data" --format jpeg-folder --grid "$work/c/grid.toml"
           --model resnet18-cifar --crop-size 32 --device "$host")
import_w0 c "$work/c/c.toml" "$work/c/traces/cold-then-warm-b16.csv" \
  "$work/c/traces/"{w0-b16,w0-b32,scaling,loader-scaling}.csv
# Beside ResNet-18's step the host watch reads slow in 5-46 % of its probes on this VM with
# nothing else running, so here it only watches (--host-retries 0) rather than measure most
# runs again.
[ -e "$work/report-c-w0-with-machine-terms/report.json" ] ||
  "$validate" "${c_session[@]}" --profile "$work/c-w0-with-machine-terms.toml" --max-load 0 --host-retries 0 \
    --out "$work/report-c-w0-with-machine-terms"
for profile in c-w0-with-workload-guesses c/c-profile; do
  "$validate" "${c_session[@]}" --profile "$work/$profile.toml" \
    --rescore "$work/report-c-w0-with-machine-terms/report.json" --out "$work/report-${profile#c/}"
done
