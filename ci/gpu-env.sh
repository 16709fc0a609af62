# Sourced (not run) by the ci/gpu-*.sh scripts, from the repository root, on the GPU host: the
# packages the lent host lacks when .devkit carries them (libyaml, SQLite, SuiteSparse, ...: see
# ../shared/device/README.md), and what mpirun and NCCL need there (root runs allowed; NVLink
# multicast left off).
if [ -d .devkit/debs ]; then
  eval "$(bash .devkit/gpu-host-env .devkit/debs)"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0

# gpu_env_describe LOG: the variant cache under build-gpu/ unless ROOFTUNE_CACHE_DIR is set, the
# compute-sanitizer to run in $sanitizer, and the GPUs' names, driver, memory and clocks appended
# to LOG; fails when nvidia-smi does (no GPU).
gpu_env_describe() {
  export ROOFTUNE_CACHE_DIR=${ROOFTUNE_CACHE_DIR:-$PWD/build-gpu/variant-cache}
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv \
    >>"$1" 2>&1
}
