#!/usr/bin/env bash
# The GPU checks of the job argument (rt_job: the families' make_inputs and footprint take the job
# that measures the point instead of a process-wide declaration), on the GPU host:
#
#   build   the GPU build (ci/gpu-run.sh build)
#   suite   the GPU suite: ctest -R "gpu|cuda\.|family|runner|user"
#           -E "gemm.gpu_run|sptrsv.gpu_cusparse" -j4 (the CUDA families' hooks through the runner)
#   spread  GPU kernels of the families that split their problem by rank (spdnn's features, the
#           triangular solve's rows, GEMM's sampled entries) run alone and spread over 2 ranks
#           (mpirun -np 2, --parallel ranks): each spread point must be ok, verified, on one rank
#           and carry the lone run's nominal flops (a 1/N share would show as half of them).
#           sptrsv's kernels are left out, and said so, where the build has no CHOLMOD.
#
#   OUT=... ci/gpu-place.sh [stages]        (default: build suite spread)
#
# Logs and stores go to $OUT (results/gpu-run/ when unset); $OUT/gpu-place.txt sums them up: the
# ctest totals, then per spread point "same" or "DIFFER", per family "<family>: N point(s), 0
# differ", and a last line "spread: every spread point is the lone run's" or "spread: FAILED".
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-results/gpu-run}
mkdir -p "$out"
stages=${*:-build suite spread}
summary=$out/gpu-place.txt
RT=build-gpu/rooftune
budget=${ROOFTUNE_STAGE_SECONDS:-500}
note() { echo "$*" | tee -a "$summary"; }

. ci/gpu-env.sh
export ROOFTUNE_CACHE_DIR=${ROOFTUNE_CACHE_DIR:-$PWD/build-gpu/variant-cache}

# The configs of the spread stage: small, seconds each; every point verified.
write_configs() {
  cat >"$out/place-spdnn.yaml" <<'YAML'
experiment: {name: place-spdnn}
matrices:
  - {name: dnn1024, generator: sparse_dnn, neurons: 1024, seed: 1}
problem: {layers: [3], features: [40], feature_density: [0.3], network_seed: [1]}
kernels:
  - name: spdnn.cuda.fused
    params: {register_tile: [4, 8]}
  - name: spdnn.cuda.cusparse
measure: {mode: hot, warmup: 1, min_reps: 3, max_reps: 6, max_time_s: 0.05, target_rel_ci: 0.5}
YAML
  cat >"$out/place-sptrsv.yaml" <<'YAML'
experiment: {name: place-sptrsv}
matrices:
  - {name: lap2d-24, generator: laplacian, stencil: 5, nx: 24}
problem: {nrhs: [1, 4], ordering: [amd], max_supernode: [0], solve: [forward]}
kernels:
  - name: sptrsv.cuda.cusparse
  - name: sptrsv.cuda.levelset
    params: {threads_per_block: [256], merge_levels: [1]}
measure: {mode: hot, warmup: 1, min_reps: 3, max_reps: 6, max_time_s: 0.05, target_rel_ci: 0.5}
YAML
  cat >"$out/place-gemm.yaml" <<'YAML'
experiment: {name: place-gemm}
matrices:
  - {name: dense, generator: banded, rows: 4, bandwidth: 1}
problem: {N: [1024], precision: [fp64, fp32]}
kernels:
  - name: gemm.cuda.cublas
    params: {math_mode: [default]}
measure: {mode: hot, warmup: 1, min_reps: 3, max_reps: 6, max_time_s: 1, target_rel_ci: 0.5}
YAML
}

# Compares a lone run's store with a spread run's, point by point (kernel, matrix, params,
# problem): prints a line per point and exits 1 when a spread point is missing, not ok, not
# verified, not on one rank, or has other nominal flops (gflops x median time).
compare() { # LONE.json SPREAD.json LABEL
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
def load(path):
    pts = {}
    for r in json.load(open(path)):
        key = (r["kernel"], r["matrix"], json.dumps(r["params"], sort_keys=True),
               json.dumps(r["problem"], sort_keys=True))
        flops = (r["gflops"] or 0.0) * (r["time_median_s"] or 0.0) * 1e9
        pts[key] = (r["status"], bool(r["verified"]), r["ranks"], flops)
    return pts
lone, spread, label = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3]
bad = 0
for key in sorted(lone):
    st, ver, ranks, flops = lone[key]
    got = spread.get(key)
    ok = (got is not None and st == "ok" and ver and got[0] == "ok" and got[1] and got[2] == 1
          and abs(got[3] - flops) <= 1e-6 * flops)
    bad += not ok
    shown = "missing" if got is None else "%s verified=%d ranks=%d flops=%.6g" % (
        got[0], got[1], got[2], got[3])
    print("  %-6s %s %s %s %s: lone %s verified=%d flops=%.6g; spread %s" % (
        "same" if ok else "DIFFER", label, key[0], key[2], key[3], st, ver, flops, shown))
print("  %s: %d point(s), %d differ" % (label, len(lone), bad))
sys.exit(1 if bad or not lone else 0)
PY
}

for s in $stages; do
  case $s in
  build)
    OUT=$out bash ci/gpu-run.sh build
    [ -x "$RT" ] || { note "build failed"; exit 1; }
    ;;
  suite)
    # Below the device call's 10 minutes, so the log comes back even when the suite runs long.
    (cd build-gpu && timeout "${ROOFTUNE_SUITE_SECONDS:-570}" ctest -R "gpu|cuda\.|family|runner|user" \
      -E "gemm.gpu_run|sptrsv.gpu_cusparse" -j4 --timeout 400 --output-on-failure 2>&1) \
      >"$out/ctest-place.log"
    grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|\(SEGFAULT\)|Not Run" \
      "$out/ctest-place.log" | tee -a "$summary"
    ;;
  spread)
    write_configs
    families="spdnn gemm"
    if $RT list 2>/dev/null | grep "sptrsv.cuda.levelset" | grep -qv unavailable; then
      families="spdnn sptrsv gemm"
    else
      note "spread: sptrsv left out (sptrsv.cuda.levelset unavailable in this build)"
    fi
    failed=0
    for f in $families; do
      cfg=$out/place-$f.yaml
      rm -f "$out/place-$f"-{lone,spread}.db*
      timeout "$budget" $RT run "$cfg" --db "$out/place-$f-lone.db" >"$out/place-$f-lone.log" 2>&1
      rc1=$?
      timeout "$budget" mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 \
        $RT run "$cfg" --db "$out/place-$f-spread.db" --parallel ranks >"$out/place-$f-spread.log" 2>&1
      rc2=$?
      note "spread $f: lone run exit $rc1, spread run exit $rc2"
      grep -h summary "$out/place-$f-lone.log" "$out/place-$f-spread.log" | tee -a "$summary"
      $RT export --db "$out/place-$f-lone.db" --format json >"$out/place-$f-lone.json" 2>>"$summary"
      $RT export --db "$out/place-$f-spread.db" --format json >"$out/place-$f-spread.json" 2>>"$summary"
      compare "$out/place-$f-lone.json" "$out/place-$f-spread.json" "$f" | tee -a "$summary"
      [ "${PIPESTATUS[0]}" = 0 ] && [ "$rc1" = 0 ] && [ "$rc2" = 0 ] || failed=1
    done
    if [ "$failed" = 0 ]; then note "spread: every spread point is the lone run's"; else note "spread: FAILED"; fi
    ;;
  *) note "unknown stage $s" ;;
  esac
done
