#!/usr/bin/env bash
# Issue 34 on an H100 host: the bulk-copy Tiled SpMM (spmm.cuda.tiled_tma) checked and measured
# against the bar, in stages, from the repository root after the build recipe:
#
#   ci/gpu-hopper.sh OUT [--db DB] [stages...]      (default stages: build test sanitize bar summary)
#   ci/gpu-hopper.sh OUT build race                 (the racecheck control experiment alone, ~1 min)
#
#   build     ci/gpu-run.sh build (build-gpu/, Release, sm_90; the GPU host's packages first);
#             skipped when build-gpu/rooftune and the CUDA plugin exist (ROOFTUNE_REBUILD=1 forces)
#   test      ctest: cuda.gpu_smoke (every CUDA SpMM kernel, spmm.cuda.tiled_tma on every matrix of
#             the sweep, both precisions and layouts, K = 32, 12, 8, 6: verified or refused by the
#             named rule), cuda.tma_compile, cuda.tma_race_compile, cuda.tma_race_control (the
#             control kernel below, mode correct: must verify), cuda.catalog,
#             kernels.tiled_tma_rules and kernels.tiled_pipe_rules; log OUT/hopper-ctest.log
#   sanitize  compute-sanitizer --tool memcheck and --tool racecheck on configs/gpu-sanitize-tma.yaml
#             (about 160 launches of the new kernel: mbarrier ring of 1 and 4 buffers, producer warp
#             or warp 0, ELL and CSR, skew, vector and bulk stores of C, merged runs); logs and
#             stores OUT/gpu-sanitize-tma-{memcheck,racecheck}.{log,db}; then the `race` stage
#   race      issue 34's control experiment (tests/cuda/tma_race_control.cu through
#             build-gpu/tests/cuda/test_cuda_tma_race): the kernel's bulk-copy mbarrier ring in
#             miniature, in modes correct, broken, generic_mbar and generic_sync, each run plain and
#             under racecheck (correct also with each buffer used once, with racecheck's per-hazard
#             report, and under synccheck); every log packed into OUT/tma-race-logs.tgz (the
#             device returns at most 8 files), the summary (per run: mode, verified, hazard count)
#             in OUT/tma-race-summary.txt and on stdout. How to read it: see race_control below
#   bar       configs/paper/hopper-bar.yaml into DB (default results/baselines/<device>/hopper-bar.db)
#             for at most ROOFTUNE_STAGE_SECONDS (default 540); a later call resumes where it
#             stopped (measured points are skipped): call `bar summary` again until the log says
#             the run completed
#   summary   ci/hopper-bar.sql on DB (per matrix and K: best Tiled / best cuSPARSE any layout and
#             row-major / row-major, the geometric means and floors against the bar, the best points,
#             DRAM traffic on banded-1m at K = 32) into OUT/hopper-bar-summary.txt, and the store
#             exported as OUT/hopper-bar.csv
#
# One device call is at most 10 minutes: give `build test sanitize` in one call and `bar summary`
# in the next on the warm machine (the bar alone is estimated, not measured, at about 8 minutes).
# Every stage logs to OUT/gpu-hopper.log; a failing stage is logged and the next one still runs.
# ROOFTUNE_DEVICE_DIR names the store folder (h100).
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ] || [ "${1#-}" != "$1" ]; then
  echo "usage: ci/gpu-hopper.sh OUT [--db DB] [build|test|sanitize|bar|summary ...]" >&2
  exit 2
fi
out=$1
shift
dev=${ROOFTUNE_DEVICE_DIR:-h100}
db=results/baselines/$dev/hopper-bar.db
if [ "${1:-}" = --db ]; then
  [ $# -ge 2 ] || { echo "ci/gpu-hopper.sh: --db needs a path" >&2; exit 2; }
  db=$2
  shift 2
fi
stages=${*:-build test sanitize bar summary}
mkdir -p "$out" "$(dirname "$db")"
out=$(cd "$out" && pwd)
budget=${ROOFTUNE_STAGE_SECONDS:-540}
RT=build-gpu/rooftune
log() { echo "[$(date +%H:%M:%S)] $*" | tee -a "$out/gpu-hopper.log"; }
. ci/gpu-env.sh
gpu_env_describe "$out/gpu-hopper.log" || log "nvidia-smi failed (no GPU?)"

# Issue 34's racecheck control experiment. racecheck reported 264 hazards on spmm.cuda.tiled_tma,
# each between a bulk copy (rt_bulk_load, async proxy, completing on a "full" mbarrier with
# complete_tx) writing a stage buffer and consumers reading it after mbarrier.try_wait on that
# barrier; memcheck was clean and every point verified. test_cuda_tma_race runs the same protocol
# in miniature (same primitives, same embed step) in four modes; the summary has one line per run:
#   <run> verified=<yes|no> racecheck_hazards=<errors in RACECHECK SUMMARY> (synccheck: errors)
# How to read the outcome:
#   - generic_sync (ordinary stores, __syncthreads) must be clean and verified; if it is not, the
#     control itself is wrong and says nothing yet.
#   - broken (consumers read before waiting on full) should report hazards, Write at rt_bulk_load
#     against Read at rt_race_consume, and may not verify: that shows racecheck sees bulk-copy
#     writes at all. If broken is clean, racecheck does not track them in this setting and the
#     comparison below is void.
#   - correct reports hazards of the same kind (bulk write vs consumer read) while generic_sync is
#     clean: racecheck does not model the ordering that mbarrier complete_tx / try_wait gives to
#     async-proxy writes, and the production kernel's 264 hazards are that artifact (its protocol
#     is this one). Then generic_mbar tells how far: clean, racecheck orders generic stores by
#     mbarrier arrive/try_wait and only the async proxy is unmodelled; flagged, it orders nothing
#     by mbarriers. correct-once (each buffer used once: no empty waits) and the per-hazard report
#     (racecheck-correct-hazards.log: RAW or WAR) tell whether the flagged pairs are the copy
#     vs the read of the same phase (full barrier) or a read vs the next copy into the buffer
#     (empty barrier).
#   - correct is clean: racecheck does model that ordering, so the production kernel's hazards
#     need a real look: diff its protocol against this one (warp 0 as producer with PRODUCER 0,
#     merged runs spanning several slots, the last tile's slots read past kcount holding an
#     earlier phase's bytes, the bulk-store C area, interleaved tiles) and rerun the sanitizer
#     config's points one by one.
#   - synccheck on correct should report 0 errors (mbarrier and __syncwarp used as intended).
race_control() {
  local bin=build-gpu/tests/cuda/test_cuda_tma_race dir=$out/tma-race summary=$out/tma-race-summary.txt
  if [ ! -x "$bin" ]; then
    log "race: $bin is missing (run the build stage first)"
    return
  fi
  rm -rf "$dir" "$out/tma-race-logs.tgz"
  mkdir -p "$dir"
  "$sanitizer" --version >"$dir/versions.txt" 2>&1
  nvidia-smi --query-gpu=name,driver_version --format=csv >>"$dir/versions.txt" 2>&1
  echo "# run verified racecheck_hazards (tests/cuda/tma_race_control.cu; ci/gpu-hopper.sh says how to read it)" >"$summary"
  # Plain runs first: each mode's result at full speed (whether broken's race shows in the sums;
  # under racecheck the warps are serialised and it may not).
  local m rc label hazards verified
  local -a args
  for m in correct broken generic_mbar generic_sync; do
    timeout 120 "$bin" "$m" >"$dir/plain-$m.log" 2>&1
    rc=$?
    verified=$(sed -n 's/.*verified=\([a-z]*\).*/\1/p' "$dir/plain-$m.log" | tail -1)
    echo "$m(plain) verified=${verified:-? (exit $rc)}" >>"$summary"
  done
  # The same default racecheck settings as the production run above, so counts compare.
  for label in correct correct-once broken generic_mbar generic_sync; do
    case $label in
    correct-once) args=(correct --stages 3) ;; # the ring's size: every buffer filled once
    *) args=("$label") ;;
    esac
    timeout 180 "$sanitizer" --tool racecheck --error-exitcode 9 "$bin" "${args[@]}" \
      >"$dir/racecheck-$label.log" 2>&1
    rc=$?
    hazards=$(sed -n 's/.*RACECHECK SUMMARY:.*(\([0-9]*\) error.*/\1/p' "$dir/racecheck-$label.log" | tail -1)
    verified=$(sed -n 's/.*verified=\([a-z]*\).*/\1/p' "$dir/racecheck-$label.log" | tail -1)
    echo "$label verified=${verified:-?} racecheck_hazards=${hazards:-? (no summary; exit $rc)}" >>"$summary"
  done
  # Which hazards (RAW, WAR) the correct mode draws, one report per pair of accesses.
  timeout 180 "$sanitizer" --tool racecheck --racecheck-report hazard "$bin" correct \
    >"$dir/racecheck-correct-hazards.log" 2>&1
  timeout 180 "$sanitizer" --tool synccheck --error-exitcode 9 "$bin" correct >"$dir/synccheck-correct.log" 2>&1
  rc=$?
  hazards=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' "$dir/synccheck-correct.log" | tail -1)
  verified=$(sed -n 's/.*verified=\([a-z]*\).*/\1/p' "$dir/synccheck-correct.log" | tail -1)
  echo "correct(synccheck) verified=${verified:-?} synccheck_errors=${hazards:-? (no summary; exit $rc)}" >>"$summary"
  cp "$summary" "$dir/"
  tar czf "$out/tma-race-logs.tgz" -C "$out" tma-race && rm -rf "$dir"
  log "race: control experiment summary (logs in $out/tma-race-logs.tgz)"
  cat "$summary"
}

for s in $stages; do
  case $s in
  build)
    if [ -x "$RT" ] && [ -f build-gpu/librooftune_cuda.so ] && [ "${ROOFTUNE_REBUILD:-0}" != 1 ]; then
      log "build: build-gpu/ exists, incremental"
      cmake --build build-gpu -j"$(nproc)" >>"$out/build.log" 2>&1 || { log "build FAILED"; tail -40 "$out/build.log"; exit 1; }
    else
      OUT=$out bash ci/gpu-run.sh build || { log "build FAILED"; exit 1; }
    fi
    ;;
  test)
    log "ctest: cuda.gpu_smoke cuda.tma_compile cuda.tma_race_compile cuda.tma_race_control cuda.catalog kernels.tiled_tma_rules kernels.tiled_pipe_rules"
    (cd build-gpu && ctest --timeout 600 --output-on-failure \
      -R '^(cuda\.gpu_smoke|cuda\.tma_compile|cuda\.tma_race_compile|cuda\.tma_race_control|cuda\.catalog|kernels\.tiled_tma_rules|kernels\.tiled_pipe_rules)$' 2>&1) \
      >"$out/hopper-ctest.log"
    log "ctest exit $?"
    grep -E "tests passed|tests failed|\(Failed\)|Skipped|check failed|FAIL" "$out/hopper-ctest.log" | head -40
    ;;
  sanitize)
    cfg=configs/gpu-sanitize-tma.yaml
    for tool in memcheck racecheck; do
      name=gpu-sanitize-tma-$tool
      rm -f "$out/$name.db"*
      log "compute-sanitizer --tool $tool $cfg"
      timeout "$budget" "$sanitizer" --tool $tool --error-exitcode 9 \
        $RT run "$cfg" --db "$out/$name.db" --quiet >"$out/$name.log" 2>&1
      rc=$?
      log "compute-sanitizer $name exit $rc$([ $rc = 9 ] && echo ' (errors reported)')$([ $rc = 124 ] && echo ' (stopped by the budget)')"
      grep -E "ERROR SUMMARY|RACECHECK SUMMARY|summary:" "$out/$name.log"
    done
    race_control
    ;;
  race) race_control ;;
  bar)
    log "bar: configs/paper/hopper-bar.yaml into $db (at most $budget s)"
    timeout "$budget" $RT run configs/paper/hopper-bar.yaml --db "$db" >>"$out/hopper-bar.log" 2>&1
    rc=$?
    log "hopper-bar exit $rc$([ $rc = 124 ] && echo ' (stopped by the budget: call bar again, it resumes)')"
    grep -E "summary|resumed" "$out/hopper-bar.log" | tail -2
    ;;
  summary)
    [ -f "$db" ] || { log "summary: no store at $db"; continue; }
    $RT export --db "$db" --format csv --experiment hopper-bar >"$out/hopper-bar.csv" 2>>"$out/gpu-hopper.log" ||
      log "export FAILED"
    # The sqlite3 shell when the host has one (with its math functions), else ci/sql-print.py
    # (Python's sqlite3 with EXP and LN added and the shell's .print lines echoed).
    if command -v sqlite3 >/dev/null && sqlite3 :memory: "SELECT EXP(LN(2));" >/dev/null 2>&1; then
      sqlite3 -header -column "$db" <ci/hopper-bar.sql
    else
      python3 ci/sql-print.py "$db" ci/hopper-bar.sql
    fi >"$out/hopper-bar-summary.txt" 2>&1
    log "summary written to $out/hopper-bar-summary.txt"
    cat "$out/hopper-bar-summary.txt"
    ;;
  *) log "unknown stage $s" ;;
  esac
done
