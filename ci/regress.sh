#!/usr/bin/env bash
# Regression check of one experiment against its committed baseline (docs/guides/regression.md).
#
#   ci/regress.sh CONFIG [DEVICE]
#
# Runs CONFIG into a fresh store, then `rooftune compare` against
# results/baselines/DEVICE/<experiment>.db. DEVICE defaults to the GPU's short name (h100, h200,
# a100, ...; from nvidia-smi) or `cpu` when there is no GPU. On a CPU-only runner the timings are
# informational (a shared CI machine cannot promise stable times) and points match whatever CPU
# they ran on: only deterministic metrics and statuses (ok -> wrong) gate.
#
# Exit status: that of rooftune compare (0 pass, 1 regression), or 2 for bad usage, a run that
# could not complete, or a missing baseline.
#
# Environment:
#   ROOFTUNE_BIN        the rooftune binary (default build/rooftune)
#   ROOFTUNE_RESULTS    the results folder holding baselines/ (default results)
#   REGRESS_OUT         where the new store and the summaries go (default regress-out)
#   REGRESS_UPDATE=1    with no baseline yet, make the new store the baseline instead of failing
#   REGRESS_THRESHOLD, REGRESS_ALPHA   passed to compare (defaults 0.05 and 0.01)
#   GITHUB_STEP_SUMMARY when set (GitHub Actions), the Markdown summary is appended to it
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rt=${ROOFTUNE_BIN:-$root/build/rooftune}
results=${ROOFTUNE_RESULTS:-$root/results}
out=${REGRESS_OUT:-$root/regress-out}

usage() { echo "usage: ci/regress.sh CONFIG [DEVICE]" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
config=$1
[ -r "$config" ] || { echo "regress: cannot read config '$config'" >&2; exit 2; }
[ -x "$rt" ] || { echo "regress: no rooftune binary at $rt (build it, or set ROOFTUNE_BIN)" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "regress: sqlite3 is needed (apt-get install sqlite3)" >&2; exit 2; }

# A GPU is there when nvidia-smi lists one (ROOFTUNE_NO_CUDA=1 runs as a CPU-only runner would).
gpu_name=""
if [ "${ROOFTUNE_NO_CUDA:-0}" = 1 ]; then
  :
elif command -v nvidia-smi >/dev/null 2>&1; then
  gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || true)
fi
if [ $# -ge 2 ]; then
  device=$2
elif [ -n "$gpu_name" ]; then
  # "NVIDIA H100 80GB HBM3" -> h100: the folder names of results/baselines/.
  device=$(echo "$gpu_name" | tr 'A-Z' 'a-z' | grep -oE '\b[a-z][0-9]{2,4}\b' | head -n 1 || true)
  [ -n "$device" ] || { echo "regress: cannot name the GPU '$gpu_name'; give DEVICE" >&2; exit 2; }
else
  device=cpu
fi

run_opts=(--quiet)
compare_opts=(--threshold "${REGRESS_THRESHOLD:-0.05}" --alpha "${REGRESS_ALPHA:-0.01}")
if [ -z "$gpu_name" ]; then
  echo "regress: no GPU on this runner: timings are informational; deterministic metrics and statuses gate"
  run_opts+=(--cpu)
  compare_opts+=(--timings-informational --ignore-device)
fi

mkdir -p "$out"
new="$out/new.db"
rm -f "$new" "$new-wal" "$new-shm"
set +e
"$rt" run "$config" --db "$new" "${run_opts[@]}"
run_rc=$?
set -e
# 1 means some point needs attention (wrong, above its roofline): compare judges that against the
# baseline. 2 and 3 mean the run itself could not be made.
if [ "$run_rc" -ge 2 ]; then
  echo "regress: rooftune run failed (exit $run_rc)" >&2
  exit 2
fi
sqlite3 "$new" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
experiment=$(sqlite3 -batch -noheader "$new" "SELECT experiment FROM runs ORDER BY id DESC LIMIT 1")
[ -n "$experiment" ] || { echo "regress: the run recorded no experiment" >&2; exit 2; }
kept="$out/$experiment.db"
mv -f "$new" "$kept"
rm -f "$new-wal" "$new-shm"

baseline="$results/baselines/$device/$experiment.db"
if [ ! -f "$baseline" ]; then
  if [ "${REGRESS_UPDATE:-0}" = 1 ]; then
    mkdir -p "$(dirname "$baseline")"
    cp "$kept" "$baseline"
    echo "regress: no baseline for $experiment on $device: $baseline created from this run"
    exit 0
  fi
  echo "regress: no baseline $baseline (commit one, or run with REGRESS_UPDATE=1)" >&2
  exit 2
fi

set +e
"$rt" compare "$baseline" "$kept" "${compare_opts[@]}" --markdown "$out/regress.md"
rc=$?
set -e
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -s "$out/regress.md" ]; then
  cat "$out/regress.md" >>"$GITHUB_STEP_SUMMARY"
fi
echo "regress: $experiment on $device: compare exited $rc; summary in $out/regress.md"
exit "$rc"
