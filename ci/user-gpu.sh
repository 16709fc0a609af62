#!/usr/bin/env bash
# Kernel specs (kernels/user) on a GPU host in one go: build rooftune with its CUDA plugin, run the
# tests that need NVRTC or the GPU (user.nvrtc, user.gpu: the four examples' CUDA kernels
# verified and timed, GPU counters of a user kernel, and the bad CUDA kernels: compile error,
# out-of-bounds write, illegal address, hang), then rooftune and Kernel Tuner side by side on the
# 2D convolution (bench/kernel-tuner/user_side_by_side.sh). Logs and the table go to $OUT (or
# results/user-gpu/ when unset); user.gpu must have run, not skipped.
#
#   ci/user-gpu.sh          from the repository root; carry .devkit (the packages the GPU host
#                           lacks, ../shared/device/README.md) and .whl (Kernel Tuner's wheels)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-results/user-gpu}
mkdir -p "$out"
log() { echo "[$(date +%H:%M:%S)] $*" | tee -a "$out/user-gpu.log"; }
. ci/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee -a "$out/user-gpu.log"
log "build"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DROOFTUNE_CUDA=ON \
  -DROOFTUNE_CUDA_ARCHITECTURES=90 >"$out/build.log" 2>&1 &&
  cmake --build build-gpu -j"$(nproc)" --target rooftune rooftune_cuda rooftune-user-worker \
    test_user_units test_user_nvrtc >>"$out/build.log" 2>&1 ||
  { log "build FAILED"; tail -40 "$out/build.log"; exit 1; }
log "ctest user.nvrtc user.gpu"
(cd build-gpu && ctest -R '^user\.(nvrtc|gpu)$' -V --timeout 600) >"$out/ctest-user.log" 2>&1
rc=$?
grep -E "Test +#.*user\.|compiled|verified and timed|dram_bytes_read|bad CUDA|FAIL" "$out/ctest-user.log" |
  tee -a "$out/user-gpu.log"
grep -q "user.gpu .*Passed" "$out/ctest-user.log" || { log "user.gpu did not pass (rc $rc)"; rc=1; }
log "side by side with Kernel Tuner"
OUT=$out bench/kernel-tuner/user_side_by_side.sh build-gpu/rooftune >>"$out/user-gpu.log" 2>&1 ||
  { log "side by side FAILED"; tail -30 "$out/user-gpu.log"; exit 1; }
log "done (ctest rc $rc)"
exit $rc
