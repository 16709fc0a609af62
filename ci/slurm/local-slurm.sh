#!/usr/bin/env bash
# A single-machine Slurm for CI and for trying the job scripts: Debian's slurmctld and slurmd,
# started from a slurm.conf generated in a temporary folder (this host is the only node, with all
# its cores; ports picked free; auth/none, so no munge daemon is needed), then COMMAND runs with
# SLURM_CONF pointing at it (sbatch, srun, squeue and sacct-free waiting work as on a cluster).
# Both daemons are stopped and the folder removed at the end, failure or not.
#
#   ci/slurm/local-slurm.sh [--timeout S] -- COMMAND [ARGS...]
#
# Needs root (the daemons run jobs as the submitting user) and the Debian packages slurmctld,
# slurmd and slurm-client; exits 77 (the tests' "skipped") without them, COMMAND's status otherwise.
set -euo pipefail
timeout_s=600
while [ $# -gt 0 ]; do
  case "$1" in
    --timeout) timeout_s=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "local-slurm: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "local-slurm: no command (usage: $0 [--timeout S] -- COMMAND...)" >&2; exit 2; }
for p in slurmctld slurmd sbatch squeue scontrol; do
  command -v "$p" >/dev/null || { echo "local-slurm: $p not found (Debian: slurmctld slurmd slurm-client)" >&2; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "local-slurm: needs root to start slurmd" >&2; exit 77; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/rooftune-slurm.XXXXXX")
chmod 755 "$dir"
pids=()
teardown() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  if [ "${ROOFTUNE_SLURM_KEEP_LOGS:-0}" = 1 ]; then echo "local-slurm: logs kept in $dir" >&2; else rm -rf "$dir"; fi
}
trap teardown EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
node=$(hostname -s)
cpus=$(getconf _NPROCESSORS_ONLN)  # not nproc: it obeys OMP_NUM_THREADS
mkdir -p "$dir/state" "$dir/spool"
cat >"$dir/slurm.conf" <<CONF
ClusterName=rooftune-ci
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=ci Nodes=$node Default=YES MaxTime=30 State=UP OverSubscribe=YES
CONF
export SLURM_CONF="$dir/slurm.conf"

slurmctld -D -i -f "$SLURM_CONF" >"$dir/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$node" -f "$SLURM_CONF" >"$dir/slurmd.out" 2>&1 &
pids+=($!)
# The node is up when the controller sees it idle (bounded: 30 s).
for _ in $(seq 300); do
  state=$(sinfo -h -N -o '%t' 2>/dev/null | head -n1 || true)
  [ "$state" = idle ] && break
  sleep 0.1
done
if [ "${state:-}" != idle ]; then
  echo "local-slurm: the node did not come up (state '${state:-none}'); logs:" >&2
  tail -n 20 "$dir"/slurmctld.log "$dir"/slurmd.log "$dir"/*.out >&2 2>/dev/null || true
  exit 1
fi
echo "local-slurm: node $node ($cpus CPUs) idle; SLURM_CONF=$SLURM_CONF" >&2
status=0
timeout --kill-after=10 "$timeout_s" "$@" || status=$?
exit "$status"
