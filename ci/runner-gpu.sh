#!/usr/bin/env bash
# The GPU checks of the runner's rework (config keys in one table, the stopping criteria of
# measure.stop, the runner's walk in named steps, model-only as a family hook), on the GPU host:
#
#   build   the GPU build (ci/gpu-run.sh build)
#   test    the whole test suite there (ci/gpu-run.sh test): the GPU tests that skip elsewhere
#   stop    configs/ci/stop-criteria-gpu.yaml once per stopping criterion, each into its own
#           store, then per point: status, verified, samples, noisy, median time
#   check   configs/gpu-check.yaml (verified results of every CUDA SpMM kernel on edge cases, to
#           set beside a run of the same stage on main's tree)
#
#   OUT=... ci/runner-gpu.sh [stages]        (default: build test stop)
#
# Logs and stores go to $OUT (results/gpu-run/ when unset); $OUT/runner-gpu.txt sums them up.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-results/gpu-run}
mkdir -p "$out"
stages=${*:-build test stop}
summary=$out/runner-gpu.txt
RT=build-gpu/rooftune
budget=${ROOFTUNE_STAGE_SECONDS:-500}

# Per point of a store: what the criterion did.
points() {
  $RT export --db "$1" --format csv | python3 -c '
import csv, json, math, sys
rows = list(csv.DictReader(sys.stdin))
for r in rows:
    noisy = int(json.loads(r["metrics"] or "{}").get("noisy", 0))
    median = float(r["time_median_s"] or "nan") * 1e3
    print("  %-20s %-70s %-10s verified=%s samples=%-5s noisy=%d median=%.4g ms ci_rel=%s"
          % (r["kernel"], r["params"], r["status"], r["verified"], r["samples"], noisy, median,
             r["ci_rel"]))
ok = sum(r["status"] == "ok" for r in rows)
verified = sum(r["verified"] == "1" for r in rows)
print("  %d point(s), %d ok, %d verified" % (len(rows), ok, verified))
'
}

for s in $stages; do
  case $s in
  build | test | check)
    OUT=$out bash ci/gpu-run.sh "$s"
    [ "$s" = build ] && [ ! -x "$RT" ] && { echo "build failed" | tee -a "$summary"; exit 1; }
    [ "$s" = test ] && grep -E "tests passed|tests failed|\(Failed\)" "$out/ctest.log" | tee -a "$summary"
    [ "$s" = check ] && grep summary "$out/gpu-check.log" | tee -a "$summary"
    ;;
  stop)
    for stop in confidence noise; do
      db=$out/stop-$stop.db
      rm -f "$db" "$db-wal" "$db-shm"
      timeout "$budget" $RT run configs/ci/stop-criteria-gpu.yaml --db "$db" \
        --set measure.stop=$stop >"$out/stop-$stop.log" 2>&1
      echo "measure.stop: $stop (exit $?)" | tee -a "$summary"
      grep -E "summary|noisy:|skipped" "$out/stop-$stop.log" | tee -a "$summary"
      points "$db" | tee -a "$summary"
    done
    ;;
  *) echo "unknown stage $s" | tee -a "$summary" ;;
  esac
done
