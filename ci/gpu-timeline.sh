#!/usr/bin/env bash
# The GPU timeline of the tiled GEMM (issue 32's overlap figure) in one device call on a host with
# two or more GPUs, after the build (about a minute of device time with build-gpu/ there):
#
#   1. build: rooftune, the CUDA plugin and the timeline's GPU test into build-gpu/ (Release,
#      sm_90; configured when build-gpu/ has no cache, else incremental)
#   2. test: roofline.timeline_gpu (copies, a cuBLAS kernel and a peer copy traced, their bytes
#      and order checked)
#   3. run: configs/ci/gemm-gpu-timeline.yaml (1 process x 2 GPUs, N = 16384 FP64 in 2048-tiles,
#      2 GiB per GPU: case (c), tiles stream) with --timeline, which traces the timed repetition
#   4. draw: rooftune figures --timeline (the Gantt chart and the overlap numbers per GPU)
#   5. check: records of kernels, host-to-device and peer copies on both GPUs; the bytes of each
#      copy direction in the CSV against the kernel's own counters in the store (bytes_h2d,
#      bytes_d2h, bytes_d2d of the last execution, which is the traced one: max_reps 1)
#
# $OUT (default build-gpu/timeline-out) gets six files (the device tool returns a few only):
#   timeline.log          every step, its output, and PASS / FAIL / NOTE lines
#   gemm-timeline.csv     the records (point,device,stream,kind,name,start_ns,end_ns,bytes)
#   gemm-timeline.png     the figure, and .svg
#   timeline-summary.txt  busy time per engine, kernels while copying, overlap share, per GPU
#   timeline-work.tgz     the rest: the figure's .dat/.gp, the store, the run's log
# Exit status 0 when every PASS/FAIL check passed (the overlap share is reported, not judged: it
# is the measurement), 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build-gpu/timeline-out}
work=build-gpu/timeline-work
rm -rf "$work"
mkdir -p "$out" "$work"
. ci/gpu-env.sh
export ROOFTUNE_CACHE_DIR=${ROOFTUNE_CACHE_DIR:-$PWD/build-gpu/variant-cache}
log() { echo "[$(date +%H:%M:%S)] $*" | tee -a "$out/timeline.log"; }
: >"$out/timeline.log"
failures=0
check() { # check NAME CONDITION-EXIT-STATUS DETAIL
  if [ "$2" = 0 ]; then log "PASS $1: $3"; else log "FAIL $1: $3"; failures=$((failures + 1)); fi
}
RT=build-gpu/rooftune
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
log "gpu-timeline: $ngpu GPU(s): $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"

# 1. build
if [ ! -f build-gpu/CMakeCache.txt ]; then
  log "configure build-gpu (Release, CUDA sm_90)"
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DROOFTUNE_CUDA=ON \
    -DROOFTUNE_CUDA_ARCHITECTURES=90 >"$work/build.log" 2>&1 || { log "configure FAILED"; tail -30 "$work/build.log" | tee -a "$out/timeline.log"; exit 1; }
fi
log "build rooftune, the CUDA plugin, the timeline GPU test"
cmake --build build-gpu -j"$(nproc)" --target rooftune rooftune_cuda test_roofline_timeline_gpu \
  rt_gpu_launch >>"$work/build.log" 2>&1 || { log "build FAILED"; tail -30 "$work/build.log" | tee -a "$out/timeline.log"; exit 1; }

# 2. the GPU test
log "roofline.timeline_gpu"
timeout 120 build-gpu/tests/gpu/rt_gpu_launch build-gpu/tests/roofline/test_roofline_timeline_gpu \
  >"$work/gpu-test.log" 2>&1
rc=$?
tee -a "$out/timeline.log" <"$work/gpu-test.log"
check "roofline.timeline_gpu" "$rc" "exit $rc"

# 3. the traced run
if [ "$ngpu" -lt 2 ]; then
  log "NOTE: $ngpu GPU(s): the 2-GPU timeline config needs two; skipped"
else
  machine=${ROOFTUNE_MACHINE:-$(bash ci/gpu-machine.sh)}
  csv=$work/gemm-timeline.csv
  log "run configs/ci/gemm-gpu-timeline.yaml --timeline (machine $machine)"
  OMP_NUM_THREADS=$(nproc) timeout -k 15 300 $RT run configs/ci/gemm-gpu-timeline.yaml \
    --db "$work/gemm-timeline.db" --set "machine=$machine" --timeline "$csv" >"$work/run.log" 2>&1
  rc=$?
  grep -E "^  gemm|^summary|^timeline|rooftune run" "$work/run.log" | tee -a "$out/timeline.log"
  check "run --timeline" "$rc" "exit $rc (0: the point verified and within its roofline)"
  [ -s "$csv" ]
  rc=$?
  check "CSV written" "$rc" "$(($(wc -l <"$csv" 2>/dev/null || echo 1) - 1)) record(s) in $csv"

  # 4. the figure and the summary
  $RT figures --timeline "$csv" --out "$work/figure" >"$work/figures.log" 2>&1
  rc=$?
  check "figures --timeline" "$rc" "exit $rc"
  cp "$work/figure/gemm-timeline-summary.txt" "$out/timeline-summary.txt" 2>/dev/null
  cat "$out/timeline-summary.txt" >>"$out/timeline.log" 2>/dev/null
  for f in png svg; do cp "$work/figure/gemm-timeline.$f" "$out/" 2>/dev/null; done
  cp "$csv" "$out/" 2>/dev/null

  # 5. checks on the records: per device, the kinds present and the bytes of each kind.
  awk -F, 'NR > 1 { n[$2 "," $4]++; b[$4] += $8; d[$2] = 1 }
    END { for (k in n) print "count", k, n[k]; for (k in b) printf "bytes %s %.0f\n", k, b[k];
          for (k in d) print "device", k }' "$csv" >"$work/kinds.txt" 2>/dev/null
  sort "$work/kinds.txt" | tee -a "$out/timeline.log"
  for dev in 0 1; do
    for kind in kernel h2d; do
      n=$(grep "^count $dev,$kind " "$work/kinds.txt" | cut -d' ' -f3)
      [ -n "$n" ]
      check "GPU $dev $kind records" "$?" "${n:-0} record(s)"
    done
  done
  p2p=$(awk '$1 == "bytes" && $2 == "p2p" { print $3 }' "$work/kinds.txt")
  [ -n "$p2p" ] && [ "$p2p" != 0 ]
  rc=$?
  check "peer copies traced" "$rc" "${p2p:-0} bytes GPU to GPU (the config's case (c) loads A tiles device to device)"
  # The kernel's own byte counters of the last (traced) execution, from the store.
  $RT export --db "$work/gemm-timeline.db" --format json >"$work/export.json" 2>>"$work/run.log"
  metric() { grep -o "\"$1\": [0-9.e+]*" "$work/export.json" | head -1 | awk '{ printf "%.0f", $2 }'; }
  csv_bytes() { awk -v k="$1" '$1 == "bytes" && $2 == k { s += $3 } END { printf "%.0f", s }' "$work/kinds.txt"; }
  h2d_csv=$(csv_bytes h2d) d2h_csv=$(csv_bytes d2h)
  dd_csv=$(awk '$1 == "bytes" && ($2 == "p2p" || $2 == "d2d") { s += $3 } END { printf "%.0f", s }' "$work/kinds.txt")
  for pair in "h2d:$h2d_csv:bytes_h2d" "d2h:$d2h_csv:bytes_d2h" "p2p+d2d:$dd_csv:bytes_d2d"; do
    IFS=: read -r what traced name <<<"$pair"
    stored=$(metric "$name")
    [ -n "$stored" ] && [ "$traced" = "$stored" ]
    rc=$?
    check "$what bytes" "$rc" "traced $traced, the kernel's $name $stored"
  done
  grep -E "^point|overlap share|while a copy" "$out/timeline-summary.txt" 2>/dev/null | sed 's/^/OVERLAP /' | tee -a "$out/timeline.log"
fi

tar czf "$out/timeline-work.tgz" -C "$work" . 2>/dev/null
log "done: $failures check(s) failed"
[ "$failures" = 0 ]
