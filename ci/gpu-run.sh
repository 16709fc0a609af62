#!/usr/bin/env bash
# Runs rooftune's GPU work on a GPU host in one go: build, the test suite, the quick start, the
# CUDA kernels under compute-sanitizer, the paper configs and the probe. Stages are named on the
# command line (default: all). Logs and result stores go to $OUT (or results/gpu-run/ when unset);
# stores named by the paper configs go to results/baselines/<device>/ so a second call resumes them.
#
#   ci/gpu-run.sh build test quickstart sanitize regtile tiled probe
#   ci/gpu-run.sh build run=configs/tune/tiled-block-size.yaml   (any config, into $base)
#   ci/gpu-run.sh build fresh=configs/paper/register-tiling.yaml (the same into a new store)
#   ci/gpu-run.sh build mpi=4:2:configs/paper/hierarchical-comm-gpu.yaml (4 ranks, 2 per node)
#   ci/gpu-run.sh build mps mpi=4:2:configs/paper/hierarchical-comm-gpu-pipeline.yaml
#                 (or ROOFTUNE_MPS=1): the ranks sharing a GPU run through the CUDA MPS daemon,
#                 started before the stages that follow and stopped when the script exits
#
# mpi= stages give each rank OMP_NUM_THREADS = cores / ranks (at least 1) unless
# ROOFTUNE_OMP_THREADS says how many, so the ranks' OpenMP threads do not oversubscribe the host.
#
# On the lent GPU machine, which lacks libyaml and the SQLite headers, the packages from
# .devkit/debs are unpacked first (see ../shared/device/README.md).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-results/gpu-run}
mkdir -p "$out"
stages=${*:-build test quickstart sanitize regtile tiled probe}
dev=${ROOFTUNE_DEVICE_DIR:-h100}
base=results/baselines/$dev
mkdir -p "$base"
budget=${ROOFTUNE_STAGE_SECONDS:-500}
log() { echo "[$(date +%H:%M:%S)] $*" | tee -a "$out/gpu-run.log"; }

. ci/gpu-env.sh
export ROOFTUNE_CACHE_DIR=${ROOFTUNE_CACHE_DIR:-$PWD/build-gpu/variant-cache}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv | tee -a "$out/gpu-run.log"
RT=build-gpu/rooftune

# CUDA MPS: without it, processes sharing a GPU get time slices of it in turn (each host wait
# for the device can cost a slice); with it their kernels and copies run concurrently. The pipe
# and log folders are under $out, so nothing outside the run is touched; the daemon is stopped on
# every exit. The GPU's compute mode is left as it is.
mps_on=0
start_mps() {
  [ "$mps_on" = 1 ] && return 0
  if ! command -v nvidia-cuda-mps-control >/dev/null; then
    log "mps: nvidia-cuda-mps-control not found; ranks share the GPU by time slicing"
    return 0
  fi
  export CUDA_MPS_PIPE_DIRECTORY=$PWD/$out/mps-pipe CUDA_MPS_LOG_DIRECTORY=$PWD/$out/mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if nvidia-cuda-mps-control -d; then
    mps_on=1
    trap stop_mps EXIT
    log "mps: control daemon started (pipes in $CUDA_MPS_PIPE_DIRECTORY)"
  else
    log "mps: the control daemon did not start; ranks share the GPU by time slicing"
  fi
}
stop_mps() {
  [ "$mps_on" = 1 ] || return 0
  echo quit | nvidia-cuda-mps-control
  mps_on=0
  log "mps: control daemon stopped"
}
[ "${ROOFTUNE_MPS:-0}" = 1 ] && start_mps

for s in $stages; do
  case $s in
  build)
    log "build"
    cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DROOFTUNE_CUDA=ON \
      -DROOFTUNE_CUDA_ARCHITECTURES=90 >"$out/build.log" 2>&1 &&
      cmake --build build-gpu -j"$(nproc)" >>"$out/build.log" 2>&1 || { log "build FAILED"; tail -40 "$out/build.log"; exit 1; }
    sed -n '/rooftune configuration/,/sanitizers/p' "$out/build.log"
    ;;
  test)
    log "ctest"
    (cd build-gpu && ctest -j8 --timeout 300 --output-on-failure 2>&1) >"$out/ctest.log"
    grep -E "tests passed|tests failed|\(Failed\)|\(SEGFAULT\)|Not Run|\*\*\*" "$out/ctest.log" | tail -15
    ;;
  quickstart)
    log "quickstart"
    rm -f "$out"/quickstart.db*
    $RT probe --cpu --out "$out/host.yaml" 2>>"$out/gpu-run.log"
    timeout "$budget" $RT run configs/quickstart.yaml --db "$out/quickstart.db" \
      --set "machine=$out/host.yaml" >"$out/quickstart.log" 2>&1
    log "quickstart exit $?"; grep -E "summary|backend|roofline" "$out/quickstart.log"
    ;;
  sanitize)
    log "compute-sanitizer"
    for cfg in configs/gpu-sanitize.yaml configs/gpu-sanitize-spdnn.yaml configs/gpu-sanitize-pipe.yaml \
      configs/gpu-sanitize-banks.yaml configs/gpu-sanitize-tma.yaml; do
      for tool in memcheck racecheck; do
        name=$(basename "$cfg" .yaml)-$tool
        timeout "$budget" compute-sanitizer --tool $tool --error-exitcode 9 \
          $RT run "$cfg" --db "$out/$name.db" --quiet >"$out/$name.log" 2>&1
        log "compute-sanitizer $name exit $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|summary:" "$out/$name.log"
      done
    done
    ;;
  check)
    log "gpu-check"
    timeout "$budget" $RT run configs/gpu-check.yaml --db "$out/gpu-check.db" --quiet >"$out/gpu-check.log" 2>&1
    log "gpu-check exit $?"; grep summary "$out/gpu-check.log"
    ;;
  regtile)
    log "paper: register tiling"
    timeout "$budget" $RT run configs/paper/register-tiling.yaml --db "$base/register-tiling.db" \
      >"$out/register-tiling.log" 2>&1
    log "register-tiling exit $?"; grep -E "summary|resumed" "$out/register-tiling.log"
    ;;
  tiled)
    log "paper: tiled vs cusparse"
    timeout "$budget" $RT run configs/paper/tiled-spmm-vs-cusparse.yaml \
      --db "$base/tiled-spmm-vs-cusparse.db" >"$out/tiled-vs-cusparse.log" 2>&1
    log "tiled-vs-cusparse exit $?"; grep -E "summary|resumed" "$out/tiled-vs-cusparse.log"
    ;;
  probe)
    log "probe"
    $RT probe --out "$out/probe-$dev.yaml" >"$out/probe.log" 2>&1
    log "probe exit $?"; tail -5 "$out/probe.log"
    ;;
  mpiprobe)
    # One rank per GPU: MPI latency/bandwidth between the ranks plus the GPU and peer-copy probe.
    ngpu=$(nvidia-smi -L | wc -l)
    log "probe with $ngpu ranks"
    mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$ngpu" $RT probe --out "$out/probe-$dev.yaml" \
      >"$out/probe.log" 2>&1
    log "probe exit $?"; tail -5 "$out/probe.log"
    ;;
  fresh=*)
    # A new store for the config: the old runs of it are dropped (e.g. the config gained counters).
    cfg=${s#fresh=}
    name=$(basename "$cfg" .yaml)
    rm -f "$base/$name.db" "$base/$name.db-wal" "$base/$name.db-shm"
    log "fresh run $cfg"
    timeout "$budget" $RT run "$cfg" --db "$base/$name.db" >"$out/$name.log" 2>&1
    log "$name exit $?"; grep -E "summary|resumed" "$out/$name.log"
    ;;
  mps)
    start_mps
    ;;
  mpi=*)
    # mpi=NP:RPN[:RPS]:CONFIG — NP ranks (one per GPU, or several), RPN ranks per emulated node
    # (RPS per emulated socket), into $base/<name>.db (the same store for every NP, so the scaling
    # figure has them side by side).
    spec=${s#mpi=}; np=${spec%%:*}; rest=${spec#*:}; rpn=${rest%%:*}; cfg=${rest#*:}
    rps_opt=""
    case ${cfg%%:*} in [0-9]*) rps_opt="--ranks-per-socket ${cfg%%:*}"; cfg=${cfg#*:} ;; esac
    name=$(basename "$cfg" .yaml)
    threads=${ROOFTUNE_OMP_THREADS:-$(($(nproc) / np))}
    [ "$threads" -ge 1 ] || threads=1
    export OMP_NUM_THREADS=$threads
    mps_env=""
    [ "$mps_on" = 1 ] && mps_env="-x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY"
    log "mpirun -np $np --ranks-per-node $rpn $cfg (OMP_NUM_THREADS=$threads, mps=$mps_on)"
    # ROOFTUNE_MACHINE names the machine file of the physical host: with emulated nodes, `auto`
    # would pick the file of a host whose GPU count equals the emulated node's.
    timeout "$budget" mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$np" \
      -x OMP_NUM_THREADS $mps_env $RT run "$cfg" --db "$base/$name.db" --ranks-per-node "$rpn" $rps_opt \
      ${ROOFTUNE_MACHINE:+--set machine=$ROOFTUNE_MACHINE} >"$out/$name-np$np.log" 2>&1
    log "$name np $np exit $?"; grep -E "summary|resumed|rror" "$out/$name-np$np.log" | tail -5
    ;;
  run=*)
    cfg=${s#run=}
    name=$(basename "$cfg" .yaml)
    log "run $cfg"
    timeout "$budget" $RT run "$cfg" --db "$base/$name.db" >"$out/$name.log" 2>&1
    log "$name exit $?"; grep -E "summary|resumed" "$out/$name.log"
    ;;
  *) log "unknown stage $s" ;;
  esac
done
# Everything small comes back as one archive (the device tool returns at most 8 files).
tar czf "$out/bundle.tgz" --exclude=bundle.tgz --exclude=mps-pipe -C "$out" . "$PWD/$base" 2>/dev/null
log "done"
