#!/usr/bin/env bash
# The sparse-DNN cuSPARSE baseline on a GPU host (issue 33 item 1: every SpMM algorithm cuSPARSE
# offers, in both layouts of the features, with the fused kernel's compaction), in stages:
#
#   build    ci/gpu-run.sh build (build-gpu/, Release, sm_90; the GPU host's packages first)
#   test     the GPU tests the baseline rests on: spdnn.gpu (every algorithm in both layouts on
#            small networks, against the double-precision reference, categories exact),
#            cuda.gpu_smoke (spmm.cuda.cusparse, now on the shared cuSPARSE module), cuda.memo
#            (the context's memos by key), spdnn.nvrtc; log in $OUT/spdnn-baseline-ctest.log
#   run      configs/paper/spdnn-inference.yaml on all four networks (1024 to 65536 neurons) into
#            results/baselines/<device>/spdnn-inference.db, for at most ROOFTUNE_STAGE_SECONDS
#            (default 540) per call; a later call resumes where it stopped (points measured by the
#            same build and config are skipped), so call `run summary` again until the summary
#            says `complete`
#   baseline the same config with its kernels cut to the cuSPARSE baseline (every alg and layout
#            of the catalog, as `rooftune list` prints them) into the same store: the quick way to
#            the baseline's numbers when the fused points of the paper config are not re-measured
#            (those come from another run: say so next to any ratio taken from both)
#   summary  per network: the fused kernel's best verified median, then every cuSPARSE point
#            (alg, layout: status, median, samples, fused speedup over it) and the best cuSPARSE
#            point per layout; written to $OUT/spdnn-baseline-summary.txt
#
#   OUT=/tmp/out ci/gpu-spdnn-baseline.sh build test run summary    (the default: all four)
#
# Logs go to $OUT (default results/gpu-run); ROOFTUNE_DEVICE_DIR names the store folder (h100).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-results/gpu-run}
mkdir -p "$out"
stages=${*:-build test run summary}
dev=${ROOFTUNE_DEVICE_DIR:-h100}
db=results/baselines/$dev/spdnn-inference.db
mkdir -p "results/baselines/$dev"
budget=${ROOFTUNE_STAGE_SECONDS:-540}
RT=build-gpu/rooftune
log() { echo "[$(date +%H:%M:%S)] $*" | tee -a "$out/spdnn-baseline.log"; }
. ci/gpu-env.sh
export ROOFTUNE_CACHE_DIR=${ROOFTUNE_CACHE_DIR:-$PWD/build-gpu/variant-cache}

for s in $stages; do
  case $s in
  build)
    OUT=$out bash ci/gpu-run.sh build || exit 1
    ;;
  test)
    log "ctest: spdnn.gpu cuda.gpu_smoke cuda.memo spdnn.nvrtc spdnn.baseline"
    (cd build-gpu && ctest --timeout 600 --output-on-failure \
      -R '^(spdnn\.gpu|cuda\.gpu_smoke|cuda\.memo|spdnn\.nvrtc|spdnn\.baseline_.*)$' 2>&1) \
      >"$out/spdnn-baseline-ctest.log"
    grep -E "tests passed|tests failed|\(Failed\)|Skipped|\*\*\*" "$out/spdnn-baseline-ctest.log" | tail -12
    ;;
  run)
    log "run configs/paper/spdnn-inference.yaml into $db (at most $budget s)"
    timeout "$budget" $RT run configs/paper/spdnn-inference.yaml --db "$db" \
      >>"$out/spdnn-inference.log" 2>&1
    rc=$?
    log "spdnn-inference exit $rc$([ $rc = 124 ] && echo ' (stopped by the budget: call run again)')"
    grep -E "summary|resumed" "$out/spdnn-inference.log" | tail -2
    ;;
  baseline)
    domain() { $RT list | awk -v p="$1" '/^  spdnn.cuda.cusparse /{k=1; next} /^  [a-z]/{k=0} k && $1 == p {print $3}' | tr '|' ','; }
    algs=$(domain alg); layouts=$(domain layout)
    [ -n "$algs" ] && [ -n "$layouts" ] || { log "baseline: no alg/layout domain from rooftune list"; continue; }
    log "baseline: spdnn.cuda.cusparse alg [$algs] layout [$layouts] into $db (at most $budget s)"
    timeout "$budget" $RT run configs/paper/spdnn-inference.yaml --db "$db" \
      --set "kernels=[{name: spdnn.cuda.cusparse, params: {alg: [$algs], layout: [$layouts]}}]" \
      >>"$out/spdnn-inference.log" 2>&1
    rc=$?
    log "baseline exit $rc$([ $rc = 124 ] && echo ' (stopped by the budget: call baseline again)')"
    grep -E "summary|resumed" "$out/spdnn-inference.log" | tail -2
    ;;
  summary)
    $RT export --db "$db" --format csv --experiment spdnn-inference >"$out/spdnn-inference.csv" ||
      { log "export FAILED"; continue; }
    python3 - "$out/spdnn-inference.csv" "$out/spdnn-inference.log" <<'EOF' | tee "$out/spdnn-baseline-summary.txt"
import csv, json, sys
# The newest row of every point (a resumed run skips what an earlier call of it measured).
latest = {}
for r in csv.DictReader(open(sys.argv[1])):
    key = (r["kernel"], r["matrix"], r["params"], r["problem"])
    if key not in latest or int(r["run_id"]) > int(latest[key]["run_id"]):
        latest[key] = r
rows = list(latest.values())
try:
    log = open(sys.argv[2]).read()
except OSError:
    log = ""
last = log.split("rooftune run:")[-1] if "rooftune run:" in log else ""
print("spdnn-inference: %d points in the store; the last call %s" % (len(rows),
      "completed the run" if "summary:" in last else
      "did not complete: call `run summary` again"))
def ok(r):
    return r["status"] == "ok" and r["verified"] == "1"
for m in ["dnn-1024", "dnn-4096", "dnn-16384", "dnn-65536"]:
    here = [r for r in rows if r["matrix"] == m]
    fused = [float(r["time_median_s"]) for r in here if r["kernel"] == "spdnn.cuda.fused" and ok(r)]
    best_fused = min(fused) if fused else None
    print("\n%s: fused best %s (%d verified points)" % (
        m, "%.4f s" % best_fused if best_fused else "-", len(fused)))
    best = {}
    for r in sorted((r for r in here if r["kernel"] == "spdnn.cuda.cusparse"),
                    key=lambda r: (json.loads(r["params"]).get("layout", "col"),
                                   json.loads(r["params"])["alg"])):
        p = json.loads(r["params"])
        lay = p.get("layout", "col")
        t = float(r["time_median_s"]) if r["time_median_s"] else None
        if ok(r) and (lay not in best or t < best[lay][0]):
            best[lay] = (t, p["alg"])
        ratio = "%.2fx" % (t / best_fused) if ok(r) and best_fused else "-"
        print("  cusparse %-12s %-3s %-10s %s samples %-3s fused speedup %s %s" % (
            p["alg"], lay, r["status"], "%.4f s" % t if t else "-", r["samples"], ratio,
            r["reason"][:90] if r["status"] != "ok" else ""))
    for lay, (t, alg) in sorted(best.items()):
        print("  best cusparse %s: %s %.4f s, fused speedup %s" % (
            lay, alg, t, "%.2fx" % (t / best_fused) if best_fused else "-"))
EOF
    ;;
  *) log "unknown stage $s" ;;
  esac
done
