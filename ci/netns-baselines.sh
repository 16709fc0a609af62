#!/usr/bin/env bash
# The committed stores of the network-namespace cluster (results/baselines/netns/): builds
# build-netns/bin from a clone of HEAD (committed work only: the stores record that revision),
# brings up ci/netns-cluster.sh (2 nodes x 2 ranks over a link shaped to RATE, default 2gbit), probes the link (the machine file netns-2x2.yaml: socket tier
# inside a node, global tier over the link) and runs the CPU hierarchical-communication and
# stationary SpMM configs with that machine file, so their inter-node bounds are the measured link.
#
#   ci/netns-baselines.sh [CONFIG...]      (default: configs/paper/hierarchical-comm.yaml
#                                           configs/ci/stationary-spmm-small.yaml)
# Environment: RATE (tc rate, default 2gbit), OUT (default results/baselines/netns).
# A store named after each config's file goes to OUT; running again resumes it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$root/${OUT:-results/baselines/netns}
rate=${RATE:-2gbit}
configs=("$@")
[ ${#configs[@]} -gt 0 ] ||
  configs=(configs/paper/hierarchical-comm.yaml configs/ci/stationary-spmm-small.yaml)
# Built from a clone of HEAD, so that edits made in this tree while the runs go on cannot leak in.
sha=$(git rev-parse HEAD)
src=$root/build-netns/src
if [ ! -d "$src/.git" ]; then
  rm -rf "$src" && mkdir -p build-netns && git clone -q "$root" "$src"
fi
git -C "$src" fetch -q "$root" "$sha" && git -C "$src" checkout -q --detach "$sha"
cmake -S "$src" -B build-netns/bin -DCMAKE_BUILD_TYPE=Release -DROOFTUNE_CUDA=OFF \
  >build-netns/configure.log
cmake --build build-netns/bin -j2 --target rooftune >build-netns/build.log
mkdir -p "$out"
export RT="$root/build-netns/bin/rooftune" OUTDIR="$out" ROOFTUNE_NO_CUDA=1 OMP_NUM_THREADS=1
export CONFIGS="${configs[*]}" ROOT="$src"
bash ci/netns-cluster.sh --nodes 2 --slots 2 --rate "$rate" --timeout 3000 -- bash -c '
set -euo pipefail
cd "$ROOT"
mpi="$RT_CLUSTER_MPIRUN"
# One probe for every store: a later call (same shaping) keeps the machine file the stores were
# bounded with; delete it to probe again.
[ -s "$OUTDIR/netns-2x2.yaml" ] ||
  "$mpi" -np 4 --map-by ppr:2:node "$RT" probe --cpu --name netns-2x2 --out "$OUTDIR/netns-2x2.yaml"
for cfg in $CONFIGS; do
  name=$(basename "$cfg" .yaml)
  echo "== $cfg -> $OUTDIR/$name.db"
  "$mpi" -np 4 --map-by ppr:2:node "$RT" run "$cfg" --db "$OUTDIR/$name.db" \
    --set machine="$OUTDIR/netns-2x2.yaml" 2>&1 | tee "$OUTDIR/$name.log"
done
'
