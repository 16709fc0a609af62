# Sourced (not run) by the ci/gpu-*.sh scripts, from the repository root, on the GPU host: the
# packages the lent host lacks when .devkit carries them (libyaml, SQLite, SuiteSparse, ...: see
# ../shared/device/README.md), and what mpirun and NCCL need there (root runs allowed; NVLink
# multicast left off).
if [ -d .devkit/debs ]; then
  eval "$(bash .devkit/gpu-host-env .devkit/debs)"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
