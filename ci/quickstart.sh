#!/usr/bin/env bash
# The quick start: install what is missing, build, run configs/quickstart.yaml on this machine
# (the CPU, plus the GPU when one is present), write results/quickstart.db and its figures under
# results/quickstart/.
set -euo pipefail
cd "$(dirname "$0")/.."

bash ci/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >build-configure.log 2>&1 || {
  cat build-configure.log; exit 1; }
sed -n '/rooftune configuration/,/sanitizers/p' build-configure.log
rm -f build-configure.log
cmake --build build -j"$(nproc)"

rm -f results/quickstart.db results/quickstart.db-wal results/quickstart.db-shm
rm -rf results/quickstart
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p results/quickstart
# This host's own ceilings (STREAM bandwidth, FMA peak) so every CPU point's bound and efficiency
# are against measured numbers rather than the generic machine file. --install writes them where
# `machine: auto` looks (roofline/machines/local-<host>.yaml, ignored by git), so this run and every
# later one on this host use them. GPU kernels, when a GPU is present, are bounded by the machine
# file `machine: auto` picks for the device.
./build/rooftune probe --cpu --install
./build/rooftune run configs/quickstart.yaml --db results/quickstart.db --plots results/quickstart
./build/rooftune export --db results/quickstart.db --format csv --out results/quickstart/points.csv

cat <<'MSG'

Quick start done.
  results/quickstart.db          every point: parameters, verification, raw samples, metrics, roofline bound
  results/quickstart/points.csv  the same as one flat table (rooftune export)
  roofline/machines/local-*.yaml this host's measured ceilings (rooftune probe --install), which
                                 `machine: auto` picks for the CPU kernels from now on
  results/quickstart/*.png|svg   figures; *.dat and *.gp beside them (cd results/quickstart && gnuplot NAME.gp)
Read a point as: status ok = verified against the double-precision reference, then timed;
time_median_s over its samples; efficiency = roofline bound / measured time (1.0 = at the bound).
MSG
