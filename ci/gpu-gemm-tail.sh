#!/usr/bin/env bash
# The tiled GEMM's C write-back tail (issue 32, tail_split) on a 2-GPU host (nvidia-h200-x2 or
# h100-x2), in one device call of under 9 minutes from a fresh host:
#
#   1. build: rooftune, the CUDA plugin and the GEMM tests' programs into build-gpu/ (Release,
#      sm_90; configured when build-gpu/ has no cache, else incremental)
#   2. test: ctest -R gemm (the CPU tests of the family, the split's plan, ordering and counts
#      among them, and gemm.gpu_run on 1 and 2 ranks)
#   3. tail: configs/tune/gemm-tail.yaml into one store (cuBLAS in every FP64 math mode; the
#      tiled GEMM on 1 GPU with everything fitting and on 2 GPUs at 8 GiB, N = 32768 and 16384,
#      tail_split 1, 2, 4, 8), checked by tests/gemm/check_gemm_store.sh (every count, the tail's
#      included, equal to the exact model; one C whatever the split; every point under its bound)
#   4. summary: ci/gemm-tail.sql (the ratios to G x the best cuBLAS of the same N, side by side by
#      split, the gain over no split, the tail and the host loads per GPU)
#   5. timelines: the N = 32768 points of 2 GPUs at 8 GiB and of 1 GPU with everything fitting,
#      each with tail_split 1 and with its best split of step 3 (configs/ci/gemm-tail-timeline.yaml
#      with `run --timeline`, drawn by `figures --timeline`; the D2H after the last kernel is the
#      tail the split removes)
# A deadline (ROOFTUNE_DEADLINE_S, default 530 s from the start) caps step 3 so that step 5 keeps
# ~70 s; the tail store keeps the points measured before a cut (N = 32768 first).
#
# $OUT (default build-gpu/tail-out) gets 8 files at most (what the device tool returns):
#   gpu-gemm-tail.log       every step and its result, the summary, the timelines' overlap numbers
#   gemm-tail-summary.txt   ci/gemm-tail.sql on the store
#   gemm-tail.db            the store
#   tl-<G>gpu-split<s>.png  the timelines (up to 4)
#   gemm-tail-work.tgz      the rest: logs, ctest's, the timelines' CSVs, summaries and stores
# Exit status 0 when the build, the tests, the store's checks and the timelines passed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-build-gpu/tail-out}
work=build-gpu/tail-work
rm -rf "$work"
mkdir -p "$out" "$work"
t0=$(date +%s)
deadline_s=${ROOFTUNE_DEADLINE_S:-530}
# The packages the lent host lacks (libyaml, the sqlite3 shell) when .devkit carries them.
. ci/gpu-env.sh
export ROOFTUNE_CACHE_DIR=${ROOFTUNE_CACHE_DIR:-$PWD/build-gpu/variant-cache}
failures=0
: >"$out/gpu-gemm-tail.log"
log() { echo "[$(date +%H:%M:%S) +$(($(date +%s) - t0))s] $*" | tee -a "$out/gpu-gemm-tail.log"; }
check() { # check NAME EXIT-STATUS DETAIL: a PASS or FAIL line, counted
  [ "$2" = 0 ] && log "PASS $1: $3" && return
  log "FAIL $1: $3"
  failures=$((failures + 1))
}
left() { echo $((t0 + deadline_s - $(date +%s))); }
RT=build-gpu/rooftune
cores=$(nproc)
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
log "gpu-gemm-tail: $ngpu x $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), $cores cores, deadline $deadline_s s"
archive() {
  tar czf "$out/gemm-tail-work.tgz" -C "$work" . 2>/dev/null
  log "done: $failures check(s) failed"
}

# 1. build
if [ ! -f build-gpu/CMakeCache.txt ]; then
  log "configure build-gpu (Release, CUDA sm_90)"
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DROOFTUNE_CUDA=ON \
    -DROOFTUNE_CUDA_ARCHITECTURES=90 >"$work/build.log" 2>&1 ||
    { check configure 1 "$(tail -5 "$work/build.log")"; archive; exit 1; }
fi
log "build rooftune, the CUDA plugin and the GEMM tests"
cmake --build build-gpu -j"$cores" --target rooftune rooftune_cuda test_gemm_plan \
  test_gemm_ordering test_gemm_baselines >>"$work/build.log" 2>&1 ||
  { check build 1 "$(tail -5 "$work/build.log")"; archive; exit 1; }
check build 0 "$(grep -c 'Building' "$work/build.log") object(s) built"
machine=${ROOFTUNE_MACHINE:-$(bash ci/gpu-machine.sh)}
export ROOFTUNE_MACHINE=$machine # tests/gemm/test_gpu_run.sh takes it too
log "machine file $machine"

# 2. ctest -R gemm
(cd build-gpu && timeout 240 ctest -R gemm -j4 --timeout 200 --output-on-failure 2>&1) >"$work/ctest-gemm.log"
rc=$?
grep -E "tests passed|tests failed|\(Failed\)|Not Run|FAIL" "$work/ctest-gemm.log" | tail -12 | tee -a "$out/gpu-gemm-tail.log"
check "ctest -R gemm" "$rc" "exit $rc"

# 3. the tail config, under the deadline less what the timelines need
db=$out/gemm-tail.db
rm -f "$db" "$db-wal" "$db-shm"
lim=$(($(left) - 70))
[ "$lim" -le 360 ] || lim=360
if [ "$lim" -lt 60 ]; then
  check "tail run" 1 "only $lim s left before the deadline"
else
  log "run configs/tune/gemm-tail.yaml (timeout $lim s)"
  OMP_NUM_THREADS=$cores timeout -k 15 "$lim" $RT run configs/tune/gemm-tail.yaml --db "$db" \
    --set "machine=$machine" >"$work/gemm-tail.log" 2>&1
  rc=$?
  grep -E "^summary" "$work/gemm-tail.log" | tee -a "$out/gpu-gemm-tail.log"
  check "tail run" "$rc" "exit $rc (0: every point verified and under its roofline; 124: cut by the deadline)"
  bash tests/gemm/check_gemm_store.sh "$db" "gemm-tail" >"$work/check-store.log" 2>&1
  rc=$?
  tee -a "$out/gpu-gemm-tail.log" <"$work/check-store.log"
  check "store at the exact model" "$rc" "tests/gemm/check_gemm_store.sh"
fi

# 4. the ratios
sqlite3 -batch -header -column "$db" <ci/gemm-tail.sql >"$out/gemm-tail-summary.txt" 2>&1
tee -a "$out/gpu-gemm-tail.log" <"$out/gemm-tail-summary.txt"

# 5. timelines: tail_split 1 and the best split of each N = 32768 point
best() { # best GPUS BUDGET: the split of the fastest verified tiled point (1 when none)
  local s
  s=$(sqlite3 -batch -noheader "$db" "SELECT IFNULL(json_extract(params, '\$.tail_split'), 1) FROM points WHERE kernel = 'gemm.cuda.tiled' AND status = 'ok' AND json_extract(problem, '\$.N') = 32768 AND json_extract(params, '\$.gpus') = $1 AND json_extract(params, '\$.gpu_mem_budget') = $2 ORDER BY gflops DESC LIMIT 1" 2>/dev/null)
  echo "${s:-1}"
}
for spec in "2 8589934592" "1 0"; do
  read -r g budget <<<"$spec"
  [ "$g" -le "$ngpu" ] || { log "timeline $g GPUs: skipped ($ngpu GPUs)"; continue; }
  b=$(best "$g" "$budget")
  splits=1
  [ "$b" = 1 ] || splits="1 $b"
  log "timeline: $g GPU(s), budget $budget, best split $b: tracing split(s) $splits"
  for s in $splits; do
    [ "$(left)" -ge 20 ] || { log "timeline $g GPUs split $s: skipped (deadline)"; continue; }
    name=tl-${g}gpu-split$s
    OMP_NUM_THREADS=$cores timeout -k 10 $(($(left) > 90 ? 90 : $(left))) $RT run \
      configs/ci/gemm-tail-timeline.yaml --db "$work/$name.db" --set "machine=$machine" \
      --set "kernels.0.params.gpus=[$g]" --set "kernels.0.params.gpu_mem_budget=[$budget]" \
      --set "kernels.0.params.tail_split=[$s]" --timeline "$work/$name.csv" >"$work/$name.log" 2>&1
    rc=$?
    check "timeline $name" "$rc" "$(grep -E '^summary|^timeline' "$work/$name.log" | tr '\n' ' ')"
    $RT figures --timeline "$work/$name.csv" --out "$work" >>"$work/$name.log" 2>&1
    rc=$?
    check "figure $name" "$rc" "exit $rc"
    cp "$work/$name.png" "$out/" 2>/dev/null
    grep -E "^point|overlap share|after the last kernel|  d2h " "$work/$name-summary.txt" 2>/dev/null |
      sed "s/^/$name: /" | tee -a "$out/gpu-gemm-tail.log"
  done
done
archive
[ "$failures" = 0 ]
