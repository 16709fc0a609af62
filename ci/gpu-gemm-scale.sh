#!/usr/bin/env bash
# The GEMM family on a multi-GPU host (issue 32's GEMM half, issue 33's GEMM baselines): build, the
# GEMM tests, the multi-GPU configs under mpirun, compute-sanitizer memcheck on two ranks, an nsys
# timeline, and the bar configs into results/baselines/<host>/. Works on the lent 1-, 2- and 4-GPU
# hosts (H100 or H200): it counts the GPUs, skips what needs four on two, and names the host's
# machine file (ci/gpu-machine.sh) so every point gets its roofline bound.
#
#   ci/gpu-gemm-scale.sh validate     build (incremental when build-gpu/ has rooftune), test, multi,
#                                     sanitize, timeline: ~3-5 minutes of device time plus the build
#   ci/gpu-gemm-scale.sh bar          bar-1xG, bar-Gx1, bar-ooc, summary: ~8-10 minutes on 4 GPUs,
#                                     more than one 10-minute device call: give the stages in
#                                     separate calls on the warm machine, e.g.
#   ci/gpu-gemm-scale.sh bar-1xG      (~3.5 min), then  bar-Gx1  (~2 min), then  bar-ooc summary
#   ci/gpu-gemm-scale.sh final        one call within a deadline (ROOFTUNE_DEADLINE_S, default 540 s
#                                     from the script's start): build-run, multi, bar-1xG, bar-Gx1,
#                                     then, while time is left, sanitize, gpu-run and bar-ooc, then
#                                     summary; each stage's timeout is its cap or the time left
#                                     (whichever is less, 20 s kept for the summary and archives),
#                                     and a stage that cannot get its minimum is skipped, saying so
#
# Stages:
#   build      CMake Release with CUDA (sm_90) into build-gpu/ (ROOFTUNE_REBUILD=1 forces it)
#   build-run  the same, only what running needs (rooftune and the CUDA plugin, no tests)
#   test       ctest -R gemm (CPU tests, and gemm.gpu_run on 1 and 2 ranks)
#   gpu-run    tests/gemm/test_gpu_run.sh alone (gemm.gpu_run without ctest's build of the tests)
#   multi      configs/ci/gemm-gpu-multi.yaml on 1, 2 (and 4) ranks, each store checked by
#              tests/gemm/check_gemm_store.sh plus: multi-GPU points copy device to device with peer
#              access, ipc points pull from node peers
#   sanitize   configs/ci/gemm-gpu-sanitize.yaml under compute-sanitizer memcheck on 2 ranks
#   timeline   configs/ci/gemm-gpu-timeline.yaml (1 process x 2 GPUs) on a timeline: nsys profile
#              when nsys exists and writes a report; otherwise (nsys is not on the lent hosts'
#              PATH) rooftune's own, `run --timeline` (CUPTI) and `figures --timeline`: the CSV, the
#              figure and the overlap summary in the archive's timeline/, the summary in the log
#              (ci/gpu-timeline.sh does the same alone, with checks)
#   bar-1xG    configs/paper/gemm-bar-1xG.yaml (1 process x 1, 2, 4 GPUs; cuBLAS; cublasXt)
#   bar-Gx1    configs/paper/gemm-bar-Gx1.yaml under mpirun -np 2 (and 4)
#   bar-ooc    configs/paper/gemm-bar-ooc.yaml with N the smallest multiple of 4096 whose A, B, C
#              exceed all the GPUs' memory, when the host's memory holds them (else skipped, saying
#              why), on all GPUs
#   summary    the bar's ratios from the stores (ci/gemm-bar.sql) into gemm-bar-summary.txt (in
#              the archive; also printed to gpu-gemm.log)
#
# Logs and small stores go to build-gpu/gemm-work/ (ignored by git), the bar's stores to
# results/baselines/<host>/ (h100, h100-x2, h100-x4, h200-x2, ...; ROOFTUNE_DEVICE_DIR overrides),
# each bar store new (a previous one of the same name is removed first) unless ROOFTUNE_RESUME=1.
# $OUT (default build-gpu/gemm-out/) gets three files only, since the device tool returns 8 at
# most: gpu-gemm.log, gemm-<stages>.tgz (the work folder) and gemm-bar-stores.tgz.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build-gpu/gemm-out}
work=build-gpu/gemm-work
rm -rf "$work" # each call's archive holds that call's logs only
mkdir -p "$out" "$work"
stages=""
deadline_s=${ROOFTUNE_DEADLINE_S:-0}
for s in ${*:-validate}; do
  case $s in
  validate) stages="$stages build test multi sanitize timeline" ;;
  bar) stages="$stages bar-1xG bar-Gx1 bar-ooc summary" ;;
  final)
    stages="$stages build-run multi bar-1xG bar-Gx1 sanitize gpu-run bar-ooc summary"
    deadline_s=${ROOFTUNE_DEADLINE_S:-540}
    ;;
  *) stages="$stages $s" ;;
  esac
done
stages=${stages# }
t0=$(date +%s)
. ci/gpu-env.sh
export ROOFTUNE_CACHE_DIR=${ROOFTUNE_CACHE_DIR:-$PWD/build-gpu/variant-cache}
log() { echo "[$(date +%H:%M:%S)] $*" | tee -a "$work/gpu-gemm.log"; }
RT=build-gpu/rooftune
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
gname=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
gmib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits 2>/dev/null | sort -n | head -1)
host_kib=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
machine=${ROOFTUNE_MACHINE:-$(bash ci/gpu-machine.sh)}
export ROOFTUNE_MACHINE=$machine # tests/gemm/test_gpu_run.sh takes it too
case "$gname" in *H100*) fam=h100 ;; *H200*) fam=h200 ;; *) fam=gpu ;; esac
dev=${ROOFTUNE_DEVICE_DIR:-$fam-x$ngpu}
[ "$dev" = h100-x1 ] && dev=h100
base=results/baselines/$dev
mkdir -p "$base"
budget=${ROOFTUNE_STAGE_SECONDS:-540}
cores=$(nproc)
reserve=20 # seconds kept, under a deadline, for the summary and the archives
lim=$budget
# limit CAP [MIN]: sets lim, the timeout of what comes next: CAP seconds, or under a deadline the
# time left less the reserve if that is less; returns 1 (skip) when that is below MIN.
limit() {
  lim=$1
  [ "$deadline_s" -gt 0 ] || return 0
  local left=$((t0 + deadline_s - $(date +%s) - reserve))
  [ "$left" -lt "$lim" ] && lim=$left
  [ "$lim" -ge "${2:-1}" ]
}
log "gpu-gemm-scale: $ngpu x $gname ($gmib MiB each), host $((host_kib / 1048576)) GiB, $cores cores; machine $machine; stores in $base; stages: $stages"
nvidia-smi topo -m >>"$work/gpu-gemm.log" 2>&1

# mpirun NP CMD...: NP ranks, each with its share of the cores for OpenMP (the host fills).
mpirun_np() {
  local np=$1
  shift
  local threads=$((cores / np))
  [ "$threads" -ge 1 ] || threads=1
  OMP_NUM_THREADS=$threads timeout -k 15 "$lim" mpirun --allow-run-as-root --oversubscribe \
    --bind-to none -np "$np" -x OMP_NUM_THREADS -x ROOFTUNE_CACHE_DIR "$@"
}

# A fresh bar store (or the old one, to resume).
fresh() {
  [ "${ROOFTUNE_RESUME:-0}" = 1 ] || rm -f "$1" "$1-wal" "$1-shm"
}

# Multi-GPU facts a store must show beyond check_gemm_store.sh: with G > 1 devices the A tiles go
# device to device with peer access on; with ipc between processes tiles are pulled GPU to GPU.
check_multi() {
  local db=$1 label=$2 np=$3
  local m="SELECT value FROM metrics WHERE point_id = p.id AND name"
  local g
  g=$(sqlite3 -batch -noheader "$db" "SELECT COUNT(*) FROM points p WHERE kernel = 'gemm.cuda.tiled' AND status = 'ok' AND ($m = 'gpu_devices') > 1 AND (($m = 'gpu_peer_access') != 1 OR ($m = 'tiles_d2d_a') = 0)")
  [ "$g" = 0 ] || { log "FAIL ($label): $g multi-device points without peer access or device-to-device tiles"; return 1; }
  if [ "$np" -gt 1 ]; then
    g=$(sqlite3 -batch -noheader "$db" "SELECT COUNT(*) FROM points p WHERE kernel = 'gemm.cuda.tiled' AND status = 'ok' AND ($m = 'transport_ipc') = 1 AND ($m = 'tiles_ipc_a') + ($m = 'tiles_ipc_b') > 0")
    [ "$g" -ge 1 ] || { log "FAIL ($label): no ipc point pulled tiles from a node peer"; return 1; }
  fi
  log "$label: multi-GPU checks ok"
}

# Stage caps and minimums (seconds) under a deadline: the priorities of `final`.
cap_of() {
  case $1 in
  build-run | build) echo "240 60" ;;
  multi) echo "180 30" ;; # each rank count: 60 s at most
  bar-1xG) echo "300 120" ;;
  bar-Gx1) echo "240 60" ;; # each rank count: 120 s at most
  sanitize) echo "90 45" ;;
  gpu-run) echo "120 60" ;;
  bar-ooc) echo "300 240" ;;
  *) echo "$budget 1" ;;
  esac
}

for s in $stages; do
  ts=$(date +%s)
  if [ "$s" != summary ] && ! limit $(cap_of "$s"); then
    log "$s: skipped: $lim s left before the deadline (${deadline_s} s), it needs $(cap_of "$s" | cut -d' ' -f2)"
    continue
  fi
  case $s in
  build-run)
    log "build-run (rooftune and the CUDA plugin; timeout $lim s)"
    if [ ! -f build-gpu/CMakeCache.txt ] || [ "${ROOFTUNE_REBUILD:-0}" = 1 ]; then
      timeout "$lim" cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DROOFTUNE_CUDA=ON \
        -DROOFTUNE_CUDA_ARCHITECTURES=90 >"$work/build.log" 2>&1 || { log "configure FAILED"; tail -40 "$work/build.log"; break; }
    fi
    limit $(cap_of "$s") || true
    timeout "$lim" cmake --build build-gpu -j"$cores" --target rooftune rooftune_cuda >>"$work/build.log" 2>&1 ||
      { log "build FAILED"; tail -40 "$work/build.log"; break; }
    ;;
  build)
    if [ -x "$RT" ] && [ "${ROOFTUNE_REBUILD:-0}" != 1 ]; then
      log "build: incremental ($RT exists)"
      cmake --build build-gpu -j"$cores" >"$work/build.log" 2>&1 || { log "build FAILED"; tail -40 "$work/build.log"; break; }
    else
      log "build"
      cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DROOFTUNE_CUDA=ON \
        -DROOFTUNE_CUDA_ARCHITECTURES=90 >"$work/build.log" 2>&1 &&
        cmake --build build-gpu -j"$cores" >>"$work/build.log" 2>&1 || { log "build FAILED"; tail -40 "$work/build.log"; break; }
    fi
    ;;
  test)
    log "ctest -R gemm"
    (cd build-gpu && timeout "$lim" ctest -R gemm -j4 --timeout 400 --output-on-failure 2>&1) >"$work/ctest-gemm.log"
    grep -E "tests passed|tests failed|\(Failed\)|Not Run|\*\*\*|FAIL|gemm gpu np" "$work/ctest-gemm.log" | tail -20 | tee -a "$work/gpu-gemm.log"
    ;;
  multi)
    for np in 1 2 4; do
      [ "$np" -le "$ngpu" ] || { log "multi np $np: skipped ($ngpu GPUs)"; continue; }
      limit 60 10 || { log "multi np $np: skipped: no time left"; continue; }
      db="$work/gemm-gpu-multi-np$np.db"
      rm -f "$db"
      log "multi: mpirun -np $np configs/ci/gemm-gpu-multi.yaml"
      mpirun_np "$np" $RT run configs/ci/gemm-gpu-multi.yaml --db "$db" --set "machine=$machine" \
        >"$work/gemm-gpu-multi-np$np.log" 2>&1
      log "multi np $np exit $?: $(grep '^summary' "$work/gemm-gpu-multi-np$np.log")"
      bash tests/gemm/check_gemm_store.sh "$db" "multi np $np" 2>&1 | tee -a "$work/gpu-gemm.log"
      check_multi "$db" "multi np $np" "$np"
    done
    ;;
  sanitize)
    if ! command -v compute-sanitizer >/dev/null; then
      log "sanitize: compute-sanitizer not found: skipped"
      continue
    fi
    log "compute-sanitizer memcheck, 2 ranks: configs/ci/gemm-gpu-sanitize.yaml"
    rm -f "$work"/gemm-memcheck.*
    mpirun_np 2 compute-sanitizer --tool memcheck --error-exitcode 9 \
      --log-file "$work/gemm-memcheck.rank%q{OMPI_COMM_WORLD_RANK}.log" \
      $RT run configs/ci/gemm-gpu-sanitize.yaml --db "$work/gemm-memcheck.db" --set "machine=$machine" \
      >"$work/gemm-memcheck.log" 2>&1
    log "memcheck exit $? (9: errors found): $(grep '^summary' "$work/gemm-memcheck.log")"
    grep -h "ERROR SUMMARY" "$work"/gemm-memcheck.rank*.log | tee -a "$work/gpu-gemm.log"
    bash tests/gemm/check_gemm_store.sh "$work/gemm-memcheck.db" "memcheck np 2" 2>&1 | tee -a "$work/gpu-gemm.log"
    ;;
  timeline)
    if [ "$ngpu" -lt 2 ]; then
      log "timeline: fewer than 2 GPUs: skipped"
      continue
    fi
    rm -rf "$work"/gemm-timeline.* "$work/timeline"
    if command -v nsys >/dev/null; then
      log "nsys timeline: configs/ci/gemm-gpu-timeline.yaml"
      timeout "$lim" nsys profile --trace=cuda,osrt --force-overwrite=true \
        -o "$work/gemm-timeline" $RT run configs/ci/gemm-gpu-timeline.yaml \
        --db "$work/gemm-timeline.db" --set "machine=$machine" >"$work/gemm-timeline.log" 2>&1
      log "nsys exit $?: $(grep '^summary' "$work/gemm-timeline.log")"
      if [ -s "$work/gemm-timeline.nsys-rep" ]; then
        nsys stats --report cuda_gpu_sum --format csv -o "$work/gemm-timeline" \
          "$work/gemm-timeline.nsys-rep" >/dev/null 2>&1 || true
        continue
      fi
      log "timeline: nsys wrote no report: rooftune's own timeline instead"
      rm -f "$work"/gemm-timeline.*
    fi
    log "timeline: rooftune run --timeline configs/ci/gemm-gpu-timeline.yaml (CUPTI activity)"
    timeout -k 15 "$lim" $RT run configs/ci/gemm-gpu-timeline.yaml --db "$work/gemm-timeline.db" \
      --set "machine=$machine" --timeline "$work/timeline/gemm-timeline.csv" \
      >"$work/gemm-timeline.log" 2>&1
    log "timeline run exit $?: $(grep -E '^summary|^timeline' "$work/gemm-timeline.log" | tr '\n' ' ')"
    $RT figures --timeline "$work/timeline/gemm-timeline.csv" --out "$work/timeline" \
      >>"$work/gemm-timeline.log" 2>&1
    log "timeline figure exit $?"
    tee -a "$work/gpu-gemm.log" <"$work/timeline/gemm-timeline-summary.txt" 2>/dev/null
    ;;
  bar-1xG)
    fresh "$base/gemm-bar-1xG.db"
    log "bar: 1 process x G GPUs (configs/paper/gemm-bar-1xG.yaml)"
    OMP_NUM_THREADS=$cores timeout -k 15 "$lim" $RT run configs/paper/gemm-bar-1xG.yaml \
      --db "$base/gemm-bar-1xG.db" --set "machine=$machine" >"$work/gemm-bar-1xG.log" 2>&1
    log "bar-1xG exit $?: $(grep -E '^summary' "$work/gemm-bar-1xG.log")"
    bash tests/gemm/check_gemm_store.sh "$base/gemm-bar-1xG.db" "bar 1xG" 2>&1 | tee -a "$work/gpu-gemm.log"
    ;;
  bar-Gx1)
    for np in 2 4; do
      [ "$np" -le "$ngpu" ] || { log "bar Gx1 np $np: skipped ($ngpu GPUs)"; continue; }
      db="$base/gemm-bar-Gx1-np$np.db"
      limit 120 30 || { log "bar Gx1 np $np: skipped: no time left"; continue; }
      fresh "$db"
      log "bar: $np processes x 1 GPU (configs/paper/gemm-bar-Gx1.yaml)"
      mpirun_np "$np" $RT run configs/paper/gemm-bar-Gx1.yaml --db "$db" --set "machine=$machine" \
        >"$work/gemm-bar-Gx1-np$np.log" 2>&1
      log "bar-Gx1 np $np exit $?: $(grep -E '^summary' "$work/gemm-bar-Gx1-np$np.log")"
      bash tests/gemm/check_gemm_store.sh "$db" "bar Gx1 np $np" 2>&1 | tee -a "$work/gpu-gemm.log"
    done
    ;;
  bar-ooc)
    # The smallest N (a multiple of t = 4096) whose A, B and C (3 N^2 doubles) exceed the GPUs'
    # memory together; host memory must hold them with room to spare (85%).
    agg=$((ngpu * gmib * 1048576))
    n=4096
    while [ $((24 * n * n)) -le "$agg" ]; do n=$((n + 4096)); done
    need=$((24 * n * n))
    if [ $((need / 1024)) -gt $((host_kib * 85 / 100)) ]; then
      log "bar-ooc: skipped: A, B and C exceeding $ngpu x $gmib MiB need N = $n, $((need / 1000000000)) GB, over 85% of the host's $((host_kib / 1000000)) GB"
      continue
    fi
    fresh "$base/gemm-bar-ooc.db"
    log "bar: out of core, N = $n ($((need / 1000000000)) GB against $((agg / 1000000000)) GB of GPU memory), $ngpu GPUs"
    OMP_NUM_THREADS=$cores timeout -k 15 "$lim" $RT run configs/paper/gemm-bar-ooc.yaml \
      --db "$base/gemm-bar-ooc.db" --set "machine=$machine" --set "problem.N=[32768,$n]" \
      --set "kernels.1.params.gpus=[$ngpu]" >"$work/gemm-bar-ooc.log" 2>&1
    log "bar-ooc exit $?: $(grep -E '^summary' "$work/gemm-bar-ooc.log")"
    bash tests/gemm/check_gemm_store.sh "$base/gemm-bar-ooc.db" "bar ooc" 2>&1 | tee -a "$work/gpu-gemm.log"
    ;;
  gpu-run)
    log "gemm.gpu_run: tests/gemm/test_gpu_run.sh (configs/ci/gemm-gpu-small.yaml on 1 and 2 ranks)"
    timeout -k 15 "$lim" bash tests/gemm/test_gpu_run.sh "$RT" "$work/gpu_run" mpirun \
      configs/ci/gemm-gpu-small.yaml >"$work/gpu-run.log" 2>&1
    log "gpu-run exit $?: $(grep -E 'FAIL|gemm gpu np|skipped' "$work/gpu-run.log" | tail -3 | tr '\n' ' ')"
    ;;
  summary)
    log "summary of the bar (ci/gemm-bar.sql)"
    : >"$work/gemm-bar-summary.txt"
    for db in "$base"/gemm-bar-*.db; do
      [ -f "$db" ] || continue
      echo "== $db" >>"$work/gemm-bar-summary.txt"
      sqlite3 -batch -header -column "$db" <ci/gemm-bar.sql >>"$work/gemm-bar-summary.txt" 2>&1
    done
    cat "$work/gemm-bar-summary.txt" | tee -a "$work/gpu-gemm.log"
    ;;
  *) log "unknown stage $s" ;;
  esac
  log "$s: $(($(date +%s) - ts)) s (call at $(($(date +%s) - t0)) s)"
done
# Everything comes back in three files (the device tool returns 8 at most).
name=$(echo "${*:-validate}" | tr ' ' '-' | cut -c1-60)
tar czf "$out/gemm-$name.tgz" -C "$work" . 2>/dev/null
if ls "$base"/gemm-bar-*.db >/dev/null 2>&1; then
  # With the -wal files of a run a timeout stopped (the points it recorded are there).
  tar czf "$out/gemm-bar-stores.tgz" "$base"/gemm-bar-*.db*
fi
log "done"
cp "$work/gpu-gemm.log" "$out/gpu-gemm.log"
