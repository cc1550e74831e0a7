#!/usr/bin/env bash
# Runs the Slurm scripts on a real single-node Slurm started here (munged, slurmctld and
# slurmd from Debian's slurm-wlm and munge, on localhost, everything in a temp directory):
# a sharded sweep as a job array of N tasks and its dependent merge job, compared byte for
# byte with the same sweep in one process; given edgetwin-federate too, a learning run as a
# two-task job (scripts/slurm-federate.sbatch, two MPI ranks), compared with one process. Needs
# root (slurmd) and: apt-get install slurm-wlm munge. ctest runs it as scale_out_slurm (label
# slow).
# Usage: scripts/slurm-local-test.sh [edgetwin binary] [N] [edgetwin-federate binary]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
edgetwin=$(realpath "${1:-build/sim/edgetwin}")
shards=${2:-4}
federate=${3:+$(realpath "$3")}
for tool in munged mungekey slurmctld slurmd sbatch squeue scontrol; do
  command -v "$tool" >/dev/null || { echo "slurm-local-test: $tool missing (apt-get install slurm-wlm munge)" >&2; exit 77; }
done
[[ $(id -u) -eq 0 ]] || { echo "slurm-local-test: slurmd needs root" >&2; exit 77; }

work=$(mktemp -d /tmp/edgetwin-slurm.XXXXXX)
export SLURM_CONF=$work/slurm.conf
stop() {
  scontrol shutdown >/dev/null 2>&1 || true
  [[ -f $work/munge/munged.pid ]] && kill "$(cat "$work/munge/munged.pid")" 2>/dev/null || true
  sleep 1
  rm -rf "$work"
}
trap stop EXIT
mkdir -p "$work"/{state,spool,munge,log,run}
mungekey -c -k "$work/munge/munge.key" -f
chmod 600 "$work/munge/munge.key"
munged --force -S "$work/munge/munge.socket" --key-file "$work/munge/munge.key" \
  --pid-file "$work/munge/munged.pid" --log-file "$work/munge/munged.log" --seed-file "$work/munge/seed"
# Ports of their own, so that a Slurm already on the machine is not disturbed.
port=$((20000 + RANDOM % 20000))
cat > "$SLURM_CONF" <<CONF
ClusterName=edgetwin-test
SlurmctldHost=$(hostname)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldPort=$port
SlurmdPort=$((port + 1))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
NodeName=$(hostname) CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=local Nodes=$(hostname) Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do sinfo -h -o %T 2>/dev/null | grep -q idle && break; sleep 1; done
sinfo -h -o %T | grep -q idle || { echo "slurm-local-test: the node did not come up" >&2; cat "$work"/log/*.log >&2; exit 1; }

sweep=(--device agx-xavier --workload resnet18-cifar10 --workers 0,2 --batch-size 16,32 --chunk-size 4)
"$edgetwin" sweep "${sweep[@]}" --quiet --csv "$work/one.csv" --json "$work/one.json" > "$work/one.out"
cd "$work/run"
EDGETWIN=$edgetwin "$here/slurm-submit.sh" "$shards" "$work/shards" "${sweep[*]}" \
  "--csv $work/merged.csv --json $work/merged.json"
for _ in $(seq 300); do [[ -z $(squeue -h) ]] && break; sleep 1; done
[[ -z $(squeue -h) ]] || { echo "slurm-local-test: jobs still queued after 300 s" >&2; squeue >&2; exit 1; }
status=0
cmp "$work/one.csv" "$work/merged.csv" && cmp "$work/one.json" "$work/merged.json" &&
  cmp "$work/one.out" "$work"/run/edgetwin-merge-*.out || status=1
ls "$work/shards"
if [[ $status -eq 0 ]]; then
  echo "slurm-local-test: $shards array tasks and the merge job on a local Slurm: outputs byte-identical"
else
  echo "slurm-local-test: outputs differ" >&2
  cat "$work"/run/*.out >&2
fi

if [[ -n "$federate" ]]; then
  learn=(--fleet jetson-mixed-lenet-fashion-mnist --rounds 2 --max-test-samples 1000 --json --quiet)
  "$federate" "${learn[@]}" --jobs 1 > "$work/learn-one.json"
  job=$(EDGETWIN_FEDERATE=$federate EDGETWIN_MPIRUN_OPTIONS="--allow-run-as-root --oversubscribe" \
        OMPI_MCA_btl_vader_single_copy_mechanism=none sbatch --parsable -n 2 "$here/slurm-federate.sbatch" "${learn[@]}")
  for _ in $(seq 300); do [[ -z $(squeue -h) ]] && break; sleep 1; done
  if cmp "$work/learn-one.json" "$work/run/edgetwin-federate-${job%%;*}.out"; then
    echo "slurm-local-test: a learning run on two Slurm tasks (MPI ranks): JSON byte-identical to one process"
  else
    echo "slurm-local-test: the learning run's JSON differs" >&2
    cat "$work"/run/edgetwin-federate-*.err >&2
    status=1
  fi
fi
exit $status
