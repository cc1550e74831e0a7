#!/usr/bin/env bash
# Submits a sharded sweep and its dependent merge:
#   scripts/slurm-submit.sh N SHARD_DIR "SWEEP-OPTIONS" "OUTPUT-OPTIONS"
# e.g. scripts/slurm-submit.sh 64 /shared/agx "--device agx-xavier --workload resnet18-cifar10 --modes all" \
#        "--csv /shared/agx.csv --json /shared/agx.json"
set -euo pipefail
if [[ $# -ne 4 ]]; then
  echo "usage: $0 N SHARD_DIR \"SWEEP-OPTIONS\" \"OUTPUT-OPTIONS\"" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
read -r -a sweep_options <<<"$3"
read -r -a output_options <<<"$4"
array=$(sbatch --parsable --array="1-$1" "$here/slurm-sweep.sbatch" "$2" "${sweep_options[@]}")
merge=$(sbatch --parsable --dependency="afterok:${array%%;*}" "$here/slurm-merge.sbatch" "$2" "${output_options[@]}")
echo "array job $array, merge job $merge"
