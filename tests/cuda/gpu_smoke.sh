#!/bin/bash
# Builds the CUDA plugin and runs the CUDA tests on a GPU machine (ctest cuda.*). Usage, from the
# repository root:  tests/cuda/gpu_smoke.sh [build dir, default build-gpu]
# The machine needs nvcc, cuSPARSE, NVRTC, CUPTI and the project's other dependencies (on the lent
# GPU hosts: eval "$(bash .devkit/gpu-host-env .devkit/debs)" first, see shared/device/README.md).
set -euo pipefail
build=${1:-build-gpu}
cmake -S . -B "$build" -DROOFTUNE_CUDA=ON -DROOFTUNE_WERROR=ON
cmake --build "$build" -j"$(nproc)" --target rooftune_cuda test_cuda_gpu test_cuda_nvrtc test_cuda_catalog
cd "$build"
ctest -R '^cuda\.' --output-on-failure
# The smoke test must really have run here, not skipped.
ctest -R '^cuda\.gpu_smoke$' --output-on-failure -V | grep -q "device: " || {
  echo "cuda.gpu_smoke did not see a device" >&2
  exit 1
}
