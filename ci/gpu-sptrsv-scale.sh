#!/usr/bin/env bash
# The multi-GPU triangular solve on a GPU host (issue 32): build, then the modes named on the
# command line, one rank per GPU (the GPU count comes from nvidia-smi; 1, 2, 4 or 8 GPUs).
#
#   validate  (~3 min) tests, then memcheck:
#   tests     ctest -R 'sptrsv\.gpu' (the GPU tests: the persistent kernel on one GPU,
#             with two or more mpirun -np 2 and the shared- and hidden-GPU fallbacks; the
#             cuSPARSE option space; the older GPU kernels; the CPU and MPI ones pass on CI)
#   memcheck  (~1 min) a small 2-rank run of sptrsv.cuda.persistent, and compute-sanitizer
#             memcheck of it with 2 ranks (one GPU: 1 rank).
#   rhs       configs/paper/sptrsv-rhs.yaml (forward and backward, 1, 8 and 32 right-hand sides,
#             every cuSPARSE option set spread over the GPUs) as its six parts,
#             configs/paper/sptrsv-rhs-{1,8,32}-{forward,backward}.yaml, in turn, each into
#             results/baselines/<host>/sptrsv-rhs-<part>.db: a part whose store holds a complete
#             run at this revision is skipped, one left unfinished by the last call is resumed,
#             and a part starts only with ROOFTUNE_RHS_MIN_S (120) seconds left; the two parts
#             with 32 right-hand sides first (each needs most of a call), or the parts
#             ROOFTUNE_RHS_PARTS names (e.g. '8-forward 1-backward'); then
#             ci/sptrsv-rhs-table.sh's table of every store into $OUT/sptrsv-rhs.txt and the
#             stores into $OUT/sptrsv-rhs-stores.tgz. Several device calls on 4 GPUs, run the same
#             way until the table has every row (skipped on fewer GPUs unless
#             ROOFTUNE_RHS_ANY_HOST=1: its multi-GPU points need 4).
#   probe     rooftune probe with one rank per GPU (NVLink peer copies among the rest) into
#             $OUT/probe-<host>.yaml, which a bar of the same call then bounds the points with
#             (else roofline/machines/<host>.yaml, else the vendor's file).
#   blas      (~1-2 min) CHOLMOD's factorisation of a smaller factor (7-point 60^3) with
#             OPENBLAS_NUM_THREADS 1, 8, the cores per GPU and every core, each from an empty
#             factor cache, one rank: the fastest count is used by a bar of the same call. On
#             the 64-core 4 x H200 host (20f2f30) 1, 8, 16 and 64 threads took 15.85, 4.11, 2.99
#             and 45.41 s: every core is 15x slower than the cores per GPU, the BLAS threads
#             working against each other (why the first run there, at 64, factorised lap3d7-84
#             no faster than the 2-core build machine); at 16 the bar factorised lap3d7-84 in
#             18.1 s (results/baselines/h200-x4/). The times go to $OUT/sptrsv-blas.txt.
#   bar       configs/paper/sptrsv-scaling.yaml under mpirun -np <GPUs> into
#             results/baselines/<host>/sptrsv-scaling.db (resumed if present), then the strong-
#             scaling table and the bar's ratios (ci/sptrsv-bar.sql) into $OUT/sptrsv-bar.txt.
#
#   ci/gpu-sptrsv-scale.sh validate          (one device call: build, tests, memcheck)
#   ci/gpu-sptrsv-scale.sh bar               (a second call on the same warm machine; add
#                                             `probe` before bar where no machine file of the
#                                             host has probed NVLink figures, e.g. 4 x H100)
#   ROOFTUNE_DEADLINE_S=560 ci/gpu-sptrsv-scale.sh rhs   (once per call on 4 GPUs until the
#                                             log says 6 of 6 parts complete)
#
# ROOFTUNE_DEADLINE_S=<seconds from the start> caps every stage at the time left before it (a
# device call's limit, as in ci/gpu-gemm-scale.sh), ROOFTUNE_STAGE_SECONDS (540) each stage.
#
# Before the device call, on this machine: bash ci/sptrsv-fetch-debs .devkit/debs (the packages
# the GPU host lacks, OpenBLAS among them for CHOLMOD), and carry .devkit. The factor cache lives
# in build-gpu/factor-cache (ignored): a second call on the same machine factorises nothing, and
# the rhs parts of one call share the factor of the first (a fresh machine factorises once).
# What comes back ($OUT, at most 8 files): sptrsv-logs.tgz (every log), sptrsv-bar.txt,
# sptrsv-validate.txt, the store (sptrsv-scaling.db), the machine probe of the host, and for rhs
# sptrsv-rhs.txt and sptrsv-rhs-stores.tgz (the parts' stores).
set -uo pipefail
cd "$(dirname "$0")/.."
case ${ROOFTUNE_DEADLINE_S:-0} in
'' | *[!0-9]*)
  echo "gpu-sptrsv-scale.sh: ROOFTUNE_DEADLINE_S='$ROOFTUNE_DEADLINE_S' is not a number of seconds" >&2
  exit 2
  ;;
esac
# The right-hand-side experiment's parts (mode rhs), the longest first: each of the two with 32
# right-hand sides needs most of a call (their sliced-ELL SpSV points alone are minutes each), so
# they start a fresh call, and the short ones fill the calls after. ROOFTUNE_RHS_PARTS: the parts
# to run, in order (default all).
RHS_ALL="32-forward 32-backward 8-forward 8-backward 1-forward 1-backward"
RHS_PARTS=${ROOFTUNE_RHS_PARTS:-$RHS_ALL}
for p in $RHS_PARTS; do
  case " $RHS_ALL " in
  *" $p "*) ;;
  *)
    echo "gpu-sptrsv-scale.sh: ROOFTUNE_RHS_PARTS: no part '$p' (parts: 1, 8 or 32, then -forward or -backward)" >&2
    exit 2
    ;;
  esac
done
case ${ROOFTUNE_RHS_MIN_S:-120} in
'' | *[!0-9]*)
  echo "gpu-sptrsv-scale.sh: ROOFTUNE_RHS_MIN_S='$ROOFTUNE_RHS_MIN_S' is not a number of seconds" >&2
  exit 2
  ;;
esac
out=${OUT:-results/gpu-run}
logs=$out/sptrsv-logs
mkdir -p "$logs"
modes=${*:-validate bar}
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
case "$gpu" in *H200*) kind=h200 ;; *H100*) kind=h100 ;; *) kind=gpu ;; esac
host=${ROOFTUNE_DEVICE_DIR:-$([ "$ngpu" -gt 1 ] && echo "$kind-x$ngpu" || echo "$kind")}
base=results/baselines/$host
mkdir -p "$base"
budget=${ROOFTUNE_STAGE_SECONDS:-540}
# ROOFTUNE_DEADLINE_S (seconds from the script's start, as ci/gpu-gemm-scale.sh takes it): a
# stage gets no more than what is left before it, so a device call's time limit stops nothing in
# the middle of writing its output
t0=$(date +%s)
left() {
  local b=$budget
  if [ "${ROOFTUNE_DEADLINE_S:-0}" -gt 0 ]; then
    local l=$((t0 + ROOFTUNE_DEADLINE_S - $(date +%s)))
    [ "$l" -lt "$b" ] && b=$l
    [ "$b" -lt 10 ] && b=10
  fi
  echo "$b"
}
log() { echo "[$(date +%H:%M:%S)] $*" | tee -a "$logs/gpu-sptrsv.log"; }

if [ -d .devkit/debs ]; then
  eval "$(bash ci/sptrsv-host-env .devkit/debs 2>>"$logs/gpu-sptrsv.log")"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
export ROOFTUNE_CACHE_DIR=${ROOFTUNE_CACHE_DIR:-$PWD/build-gpu/variant-cache}
export ROOFTUNE_FACTOR_CACHE=${ROOFTUNE_FACTOR_CACHE:-$PWD/build-gpu/factor-cache}
# default: the cores per GPU (16 of 64 factorised lap3d7-60 in 2.99 s on the 4 x H200 host, all
# 64 in 45.4 s); `blas` measures and picks
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-$(($(nproc) / (ngpu > 0 ? ngpu : 1)))}
log "host $host: $ngpu x $gpu, $(nproc) cores, modes: $modes"
nvidia-smi topo -m >>"$logs/gpu-sptrsv.log" 2>&1
RT=build-gpu/rooftune
MPI=(mpirun --allow-run-as-root --oversubscribe --bind-to none)

log "build"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DROOFTUNE_CUDA=ON \
  -DROOFTUNE_CUDA_ARCHITECTURES=90 >"$logs/build.log" 2>&1 &&
  cmake --build build-gpu -j"$(nproc)" >>"$logs/build.log" 2>&1 || {
  log "build FAILED"
  tail -40 "$logs/build.log"
  tar czf "$out/sptrsv-logs.tgz" -C "$out" sptrsv-logs
  exit 1
}
grep -E "CHOLMOD|NVSHMEM|CBLAS|CUDA plugin" "$logs/build.log" | tee -a "$logs/gpu-sptrsv.log"

# run_config MODE CONFIG STORE SQL TABLE: CONFIG under mpirun, one rank per GPU, into
# results/baselines/<host>/STORE.db (resumed if present), then SQL's table into $OUT/TABLE and the
# store into $OUT (SQL -: neither, the caller gathers the store).
run_config() {
  local mode=$1 cfg=$2 store=$base/$3.db sql=$4 table=$out/$5
  # The inter-GPU bound divides link bytes by the host's probed NVLink bandwidth: this call's
  # probe (mode probe, before this one), else the committed file of this GPU kind and count
  # (ci/gpu-machine.sh, as ci/gpu-gemm-scale.sh takes it: not the store's folder, which
  # ROOFTUNE_DEVICE_DIR may rename), else the vendor's.
  local machine=$out/probe-$host.yaml
  [ -f "$machine" ] || machine=$(bash ci/gpu-machine.sh)
  [ "$machine" != auto ] || machine=roofline/machines/$([ "$kind" = h200 ] && echo h200 || echo h100-sxm).yaml
  log "$mode: mpirun -np $ngpu $cfg into $store, machine $machine"
  # each rank's OpenMP threads: its share of the cores (2 ranks x all cores oversubscribed the
  # 2-GPU host in the first run, and the runner said so)
  export OMP_NUM_THREADS=$(($(nproc) / ngpu > 0 ? $(nproc) / ngpu : 1))
  timeout "$(left)" "${MPI[@]}" -np "$ngpu" -x OPENBLAS_NUM_THREADS -x ROOFTUNE_FACTOR_CACHE -x OMP_NUM_THREADS \
    $RT run "$cfg" --db "$store" --set "machine=$machine" >"$logs/$3.log" 2>&1
  log "$mode exit $?"
  grep -E "summary|resumed|rror" "$logs/$3.log" | tail -5 | tee -a "$logs/gpu-sptrsv.log"
  # a run stopped by timeout leaves its last writes in the WAL: fold them in before the copy (a
  # run that made no store gets none: sqlite3 would create an empty one)
  [ -f "$store" ] && sqlite3 "$store" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null 2>&1
  [ "$sql" != - ] || return 0
  sqlite3 -header -column "$store" <"$sql" >"$table" 2>&1
  cat "$table"
  cp "$store" "$out/$3.db"
}

# rhs_complete STORE: the store's latest run is complete and of this checkout's revision (the one
# the build records: cmake/build_info.cmake's, "unknown" outside a git checkout).
rhs_complete() {
  local head got
  head=$(git rev-parse HEAD 2>/dev/null) || head=unknown
  got=$(sqlite3 "$1" "SELECT git_revision FROM runs WHERE status = 'complete' AND id = (SELECT MAX(id) FROM runs)" 2>/dev/null)
  [ -n "$got" ] && [ "$got" = "$head" ]
}

# Mode rhs: each part not yet complete at this revision, in turn, while the call has time (a part
# cut by the deadline keeps the points it recorded and is resumed by the next call), then the
# table of every part's store and the stores themselves.
sptrsv_rhs() {
  local part store min=${ROOFTUNE_RHS_MIN_S:-120} stores=() done_parts=0
  for part in $RHS_PARTS; do
    store=$base/sptrsv-rhs-$part.db
    if [ -f "$store" ] && rhs_complete "$store"; then
      log "rhs $part: complete at this revision"
    elif [ "$(left)" -lt "$min" ]; then
      log "rhs $part: $(left) s left, under ROOFTUNE_RHS_MIN_S=$min: the next call"
    else
      run_config "rhs $part" "configs/paper/sptrsv-rhs-$part.yaml" "sptrsv-rhs-$part" - -
    fi
  done
  # every part's store with runs (one whose run failed before its first record has none)
  for part in $RHS_ALL; do
    store=$base/sptrsv-rhs-$part.db
    [ -f "$store" ] && sqlite3 -readonly "$store" "SELECT 1 FROM runs LIMIT 1" >/dev/null 2>&1 || continue
    stores+=("$store")
    rhs_complete "$store" && done_parts=$((done_parts + 1))
  done
  log "rhs: $done_parts of 6 parts complete at this revision"
  [ "${#stores[@]}" -gt 0 ] || return 0
  bash ci/sptrsv-rhs-table.sh "${stores[@]}" >"$out/sptrsv-rhs.txt" 2>&1
  cat "$out/sptrsv-rhs.txt"
  tar czf "$out/sptrsv-rhs-stores.tgz" -C "$base" "${stores[@]##*/}"
}

# The GPU tests of the family (mode tests).
sptrsv_tests() {
  log "validate: ctest -R sptrsv.gpu"
  (cd build-gpu && timeout "$budget" ctest -R 'sptrsv\.gpu' -j2 --timeout 600 --output-on-failure) \
    >"$logs/ctest-sptrsv.log" 2>&1
  log "ctest exit $?"
  grep -E "tests passed|tests failed|Passed|Failed|Skipped|Not Run" "$logs/ctest-sptrsv.log" |
    tee "$out/sptrsv-validate.txt"
}

# A small 2-rank persistent run, then compute-sanitizer memcheck of it (mode memcheck).
sptrsv_memcheck() {
  local cfg=configs/ci/sptrsv-gpu-persistent-small.yaml np
  local small=(--set 'problem.nrhs=[1]' --set 'kernels.2.params.leaf_kb=[16]')
  np=$([ "$ngpu" -ge 2 ] && echo 2 || echo 1)
  log "validate: $np-rank run of $cfg"
  rm -f "$logs"/persist-small.db*
  timeout "$budget" "${MPI[@]}" -np "$np" $RT run "$cfg" --db "$logs/persist-small.db" \
    "${small[@]}" >"$logs/persist-small.log" 2>&1
  log "persistent small exit $?"
  grep -E "summary" "$logs/persist-small.log" | tee -a "$out/sptrsv-validate.txt"
  log "validate: compute-sanitizer memcheck, $np ranks"
  rm -f "$logs"/memcheck.db*
  timeout "$budget" "${MPI[@]}" -np "$np" compute-sanitizer --tool memcheck --error-exitcode 9 \
    $RT run configs/ci/sptrsv-gpu-memcheck.yaml --db "$logs/memcheck.db" --quiet \
    >"$logs/memcheck.log" 2>&1
  log "memcheck exit $? (9: errors found)"
  grep -E "ERROR SUMMARY|summary:" "$logs/memcheck.log" | tee -a "$out/sptrsv-validate.txt"
  sqlite3 "$logs/memcheck.db" "SELECT status, COUNT(*) FROM points GROUP BY status" 2>&1 |
    tee -a "$out/sptrsv-validate.txt"
}

for m in $modes; do
  case $m in
  validate) sptrsv_tests; sptrsv_memcheck ;;
  tests) sptrsv_tests ;;
  memcheck) sptrsv_memcheck ;;
  bar) run_config bar configs/paper/sptrsv-scaling.yaml sptrsv-scaling ci/sptrsv-bar.sql sptrsv-bar.txt ;;
  rhs)
    # issue 32 item 4's other cases: forward and backward, 1, 8 and 32 right-hand sides. Its
    # multi-GPU points are 4-GPU ones: on fewer GPUs its 312 points would add only single-GPU
    # points (a 2 x H200 call spent 549 s so), so it runs there only when asked.
    if [ "$ngpu" -lt 4 ] && [ "${ROOFTUNE_RHS_ANY_HOST:-0}" != 1 ]; then
      log "rhs: skipped, $ngpu GPU(s) here: the config's multi-GPU points need 4 (ROOFTUNE_RHS_ANY_HOST=1 runs it anyway)"
    else
      sptrsv_rhs
    fi
    ;;
  blas)
    bcfg=$logs/sptrsv-blas.yaml
    cat >"$bcfg" <<'YAML'
experiment: {name: sptrsv-blas}
matrices:
  - {name: lap3d7-60, generator: laplacian, stencil: 7, nx: 60}
problem: {nrhs: [1], ordering: [metis], max_supernode: [128], solve: [forward]}
kernels:
  - name: sptrsv.cpu.levelset
measure: {mode: hot, warmup: 0, min_reps: 1, max_reps: 1}
YAML
    best_t=0 best_s=
    for t in 1 8 $(($(nproc) / ngpu > 0 ? $(nproc) / ngpu : 1)) "$(nproc)"; do
      rm -rf "$logs/blas-cache" "$logs/blas-$t.db"*
      mkdir -p "$logs/blas-cache"
      OPENBLAS_NUM_THREADS=$t OMP_NUM_THREADS=$t ROOFTUNE_FACTOR_CACHE=$logs/blas-cache \
        timeout "$(left)" $RT run "$bcfg" --db "$logs/blas-$t.db" --quiet >"$logs/blas-$t.log" 2>&1
      f=$(sqlite3 "$logs/blas-$t.db" "SELECT value FROM metrics WHERE name = 'cholmod_factor_s' LIMIT 1" 2>/dev/null)
      echo "OPENBLAS_NUM_THREADS=$t cholmod_factor_s=${f:-none}" | tee -a "$out/sptrsv-blas.txt"
      if [ -n "$f" ] && { [ -z "$best_s" ] || awk "BEGIN{exit !($f < $best_s)}"; }; then
        best_t=$t best_s=$f
      fi
    done
    if [ "$best_t" -gt 0 ]; then
      export OPENBLAS_NUM_THREADS=$best_t
      log "blas: OPENBLAS_NUM_THREADS=$best_t factorised fastest (${best_s} s)"
    fi
    ;;
  probe)
    log "probe with $ngpu ranks"
    "${MPI[@]}" -np "$ngpu" $RT probe --out "$out/probe-$host.yaml" >"$logs/probe.log" 2>&1
    log "probe exit $?"
    ;;
  *) log "unknown mode $m" ;;
  esac
done
log "done"
tar czf "$out/sptrsv-logs.tgz" -C "$out" sptrsv-logs
rm -rf "$logs"
