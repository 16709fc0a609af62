#!/usr/bin/env bash
# Installs the Debian packages rooftune needs that are missing (run as root on Debian/Ubuntu).
# Required: a C compiler, CMake, pkg-config, Open MPI, libyaml, SQLite, LAPACKE (Bayesian
# optimisation), json-c and zlib (replay of recorded tuning spaces). Optional but installed
# when missing because the tests and figures use them: gnuplot, hwloc, PAPI, METIS, python3 (and
# scipy, the independent Matrix Market reader of the cli.matrix_scipy test), Slurm (the
# one-machine Slurm of ci/slurm/local-slurm.sh and the cluster.slurm test), LIKWID (marker regions),
# CHOLMOD (SuiteSparse: the sptrsv family's factors), OpenBLAS (CBLAS for the gemm family),
# clang with libFuzzer (the fuzz.* tests).
# The CUDA toolkit is never installed here: when nvcc is present the CUDA plugin is built too.
set -euo pipefail

packages=(build-essential cmake pkg-config git libopenmpi-dev openmpi-bin libyaml-dev
          libsqlite3-dev sqlite3 gnuplot-nox libhwloc-dev hwloc libpapi-dev papi-tools
          libmetis-dev python3 python3-scipy slurmctld slurmd slurm-client likwid libopenblas-dev
          libsuitesparse-dev liblapacke-dev libjson-c-dev zlib1g-dev
          clang libclang-rt-14-dev)
if [ "${ROOFTUNE_WITH_CHROMIUM:-0}" = 1 ]; then
  packages+=(chromium)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: run as root (or: sudo apt-get install ${missing[*]})" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
