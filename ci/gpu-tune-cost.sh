#!/usr/bin/env bash
# Issue 35 on a GPU host: the per-point cost of tuning the Tiled SpMM (what a point spends beside
# its repetitions: plan, uploads, verification, the rest). One call, about two minutes on a fresh
# nvidia-h200 (build included); everything it writes goes to $OUT.
#
#   build   the GPU build (ci/gpu-run.sh build)
#   check   the tests of what changed, on the GPU build: cuda.gpu_smoke (every CUDA kernel verified,
#           the Tiled ones over several parameter sets in one context: the footprints remembered
#           between points), cuda.memo, kernels.tiled_plan, kernels.tiled_cpu, trust.verify_chunks,
#           trust.elementwise
#   bench   bench/point-cost on the host's cores: the host steps of one point, per matrix
#           (register_tile 1-8 of the config's sweep, to keep the call short)
#   tune    one serial `rooftune tune configs/tune/tiled-parallel.yaml` (64 points, one GPU, cold
#           variant cache as in ci/gpu-tune-parallel.sh's serial run) and its phase summary
#           (ci/tune-phases.py): busy time by step, to hold against an earlier run's
#
#   OUT=... ci/gpu-tune-cost.sh [stages]      (default: build check bench tune)
#
# Evidence: $OUT/tune-cost.txt (the check's verdicts, the bench's lines, the run's summary line
# and phases), $OUT/serial.db (the store, phases table included), the logs beside them.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-results/gpu-run}
mkdir -p "$out"
stages=${*:-build check bench tune}
summary=$out/tune-cost.txt
RT=build-gpu/rooftune
CFG=configs/tune/tiled-parallel.yaml
budget=${ROOFTUNE_STAGE_SECONDS:-300}
. ci/gpu-env.sh
say() { echo "$*" | tee -a "$summary"; }
now() { date +%s.%N; }

for stage in $stages; do
  case $stage in
  build)
    OUT=$out bash ci/gpu-run.sh build || exit 1
    ;;
  check)
    say "check: $(nproc) cores, $(nvidia-smi -L | head -1)"
    (cd build-gpu && ctest --timeout 300 --output-on-failure -R \
      '^(cuda\.gpu_smoke|cuda\.memo|kernels\.tiled_plan|kernels\.tiled_cpu|trust\.verify_chunks|trust\.elementwise)$' \
      2>&1) >"$out/check.log"
    grep -E "Test +#|tests passed|tests failed" "$out/check.log" | tee -a "$summary"
    ;;
  bench)
    say "bench: bench/point-cost, $(nproc) cores"
    timeout "$budget" build-gpu/bench/point-cost/point_cost "$CFG" --tiles 1-8 2>&1 | tee -a "$summary"
    ;;
  tune)
    db=$out/serial.db
    rm -f "$db" "$db-wal" "$db-shm" "$db.lock"
    cache=build-gpu/tune-cost-cache
    rm -rf "$cache" && mkdir -p "$cache"
    t0=$(now)
    rc=0
    ROOFTUNE_CACHE_DIR=$cache timeout "$budget" $RT tune "$CFG" --db "$db" >"$out/serial.log" 2>&1 || rc=$?
    wall=$(python3 -c "print('%.2f' % ($(now) - $t0))")
    say "serial: exit $rc, $wall s wall, $(grep -m1 '^summary' "$out/serial.log")"
    python3 ci/tune-phases.py "$db" --wall "$wall" --name "  serial phases" 2>&1 | tee -a "$summary"
    ;;
  *)
    echo "gpu-tune-cost: unknown stage '$stage' (build, check, bench, tune)" >&2
    exit 2
    ;;
  esac
done
