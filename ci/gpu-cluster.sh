#!/usr/bin/env bash
# Issue 34, thread-block clusters: spmm.cuda.tiled_pipe's `cluster` (2, 4, 8 blocks sharing staged
# rows of B through distributed shared memory) checked and measured on one H100/H200 (sm_90) in
# ONE device call of at most 9 minutes, from the repository root:
#
#   ci/gpu-cluster.sh OUT [stages...]     (default: build test sanitize measure summary)
#
#   build     build-gpu/ (Release, sm_90) through ci/gpu-run.sh build, about 25 s; an existing
#             build-gpu/ is built incrementally (ROOFTUNE_REBUILD=1 builds it anew)
#   test      ctest: cuda.gpu_smoke (every CUDA SpMM kernel; the cluster points: 2, 4 and 8 blocks
#             on every matrix of the sweep, both precisions and layouts, ELL and CSR, stage split,
#             interleaved tiles, the warp mapping, 16-byte copies and swizzled stages, each verified
#             against the reference or refused by its named rule), cuda.cluster_compile,
#             cuda.catalog, kernels.tiled_cluster, kernels.tiled_pipe_rules; OUT/cluster-ctest.log
#   sanitize  compute-sanitizer --tool memcheck on configs/gpu-sanitize-cluster.yaml (about 120
#             launches, every block reading the others' buffers through DSMEM);
#             OUT/gpu-sanitize-cluster-memcheck.{log,db}
#   measure   configs/tune/tiled-cluster.yaml (cluster 1, 2, 4, 8 at today's best shape, today's
#             bank-ordered shape, every cuSPARSE algorithm; banded-1m, xct-256-hilbert,
#             stencil27-96; K = 32, 128; both layouts; medians of >= 5 samples) into
#             OUT/tiled-cluster.db, for what is left of ROOFTUNE_CALL_SECONDS (default 520) since
#             the script started; a later call with the same store resumes it
#   summary   ci/tiled-cluster.sql on the store (cuSPARSE / Tiled per cluster size, per matrix, K
#             and layout; geometric means; plan facts: staged rows, stages, resident clusters)
#             into OUT/tiled-cluster-summary.txt, and the store exported as OUT/tiled-cluster.csv
#
# What proves it works: cluster-ctest.log says 100% of the 5 tests passed (gpu_smoke not skipped),
# the memcheck log's ERROR SUMMARY is 0 errors, and the summary lists ok points for every cluster
# size. Every stage logs to OUT/gpu-cluster.log; a failing stage is logged and the next one runs.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ] || [ "${1#-}" != "$1" ]; then
  echo "usage: ci/gpu-cluster.sh OUT [build|test|sanitize|measure|summary ...]" >&2
  exit 2
fi
started=$SECONDS
out=$1
shift
stages=${*:-build test sanitize measure summary}
mkdir -p "$out"
out=$(cd "$out" && pwd)
call_seconds=${ROOFTUNE_CALL_SECONDS:-520}
db=$out/tiled-cluster.db
RT=build-gpu/rooftune
log() { echo "[$(date +%H:%M:%S) +$((SECONDS - started))s] $*" | tee -a "$out/gpu-cluster.log"; }
. ci/gpu-env.sh
gpu_env_describe "$out/gpu-cluster.log" || log "nvidia-smi failed (no GPU?)"

# Seconds left of the call, at least `floor`.
left() {
  local s=$((call_seconds - (SECONDS - started)))
  [ "$s" -lt "$1" ] && s=$1
  echo "$s"
}

build_gpu() {
  if [ "${ROOFTUNE_REBUILD:-0}" != 1 ] && [ -x "$RT" ] && [ -f build-gpu/librooftune_cuda.so ]; then
    log "build: incremental in build-gpu/"
    cmake --build build-gpu -j"$(nproc)" >>"$out/build.log" 2>&1
  else
    OUT=$out bash ci/gpu-run.sh build
  fi
}

for s in $stages; do
  case $s in
  build)
    build_gpu || { log "build FAILED"; tail -40 "$out/build.log" 2>/dev/null; exit 1; }
    log "build done"
    ;;
  test)
    log "ctest: cuda.gpu_smoke cuda.cluster_compile cuda.catalog kernels.tiled_cluster kernels.tiled_pipe_rules"
    (cd build-gpu && ctest --timeout 240 --output-on-failure \
      -R '^(cuda\.gpu_smoke|cuda\.cluster_compile|cuda\.catalog|kernels\.tiled_cluster|kernels\.tiled_pipe_rules)$' 2>&1) \
      >"$out/cluster-ctest.log"
    log "ctest exit $?"
    grep -E "tests passed|tests failed|\(Failed\)|Skipped|check failed|FAIL" "$out/cluster-ctest.log" | head -40
    ;;
  sanitize)
    cfg=configs/gpu-sanitize-cluster.yaml
    name=gpu-sanitize-cluster-memcheck
    rm -f "$out/$name.db"*
    log "compute-sanitizer --tool memcheck $cfg"
    timeout "$(left 60)" "$sanitizer" --tool memcheck --error-exitcode 9 \
      $RT run "$cfg" --db "$out/$name.db" --quiet >"$out/$name.log" 2>&1
    rc=$?
    log "memcheck exit $rc$([ $rc = 9 ] && echo ' (errors reported)')$([ $rc = 124 ] && echo ' (stopped by the time limit)')"
    grep -E "ERROR SUMMARY|summary:" "$out/$name.log"
    ;;
  measure)
    budget=$(left 60)
    log "measure: configs/tune/tiled-cluster.yaml into $db (at most $budget s)"
    timeout "$budget" $RT run configs/tune/tiled-cluster.yaml --db "$db" >>"$out/tiled-cluster.log" 2>&1
    rc=$?
    log "tiled-cluster exit $rc$([ $rc = 124 ] && echo ' (stopped by the time limit: call measure summary again, it resumes)')"
    grep -E "summary|resumed" "$out/tiled-cluster.log" | tail -2
    ;;
  summary)
    if [ ! -f "$db" ]; then
      log "summary: no store at $db"
      continue
    fi
    # The GPU host has the SQLite runtime but not its shell: ci/sql-print.py runs the file.
    python3 ci/sql-print.py "$db" ci/tiled-cluster.sql >"$out/tiled-cluster-summary.txt" 2>&1 ||
      log "summary FAILED"
    $RT export --db "$db" --format csv --experiment tiled-cluster >"$out/tiled-cluster.csv" \
      2>>"$out/gpu-cluster.log" || log "export FAILED"
    log "summary written to $out/tiled-cluster-summary.txt"
    cat "$out/tiled-cluster-summary.txt"
    ;;
  *) log "unknown stage $s" ;;
  esac
done
