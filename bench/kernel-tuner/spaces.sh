#!/usr/bin/env bash
# Gathers the recorded spaces of the evaluation (docs/guides/tuning.md, "One protocol for both
# tools") into DIR (default build-spaces/, ignored by git; nothing here is committed):
#   DIR/hub/<kernel>_<gpu>.json.gz   every cache file of AutoTuningAssociation/benchmark_hub
#                                    (cachefiles/<kernel>_milo/<gpu>.json.gz, Kernel Tuner format)
#                                    present in HUB, a clone or a bare mirror of that repository;
#                                    a file the clone lacks (Git LFS, or a snapshot without its
#                                    largest blobs) is listed as missing
#   DIR/shared/*.json.gz             the spaces of SHARED (../shared/tuning-spaces) the hub does not
#                                    hold (its convolution files are the hub's, byte for byte)
#   DIR/stores/*.json                full sweeps of the committed rooftune stores, as Kernel Tuner
#                                    caches (store_to_cache.py), so both tools read the same file
# and installs Kernel Tuner with the optional packages of its strategies into .cache/kt.
#
# usage: bench/kernel-tuner/spaces.sh [HUB] [SHARED] [DIR]     (from the repository root)
#   HUB defaults to a clone in DIR/benchmark_hub (git clone, needs the network)
set -euo pipefail
DIR=${3:-build-spaces}
HUB=${1:-$DIR/benchmark_hub}
SHARED=${2:-../shared/tuning-spaces}
mkdir -p "$DIR/hub" "$DIR/shared" "$DIR/stores"
if [ ! -e "$HUB" ]; then
  git clone --quiet https://github.com/AutoTuningAssociation/benchmark_hub "$HUB"
fi
rev=$(git -C "$HUB" rev-parse HEAD)
echo "benchmark_hub $rev" >"$DIR/hub/REVISION"
missing=0
for f in $(git -C "$HUB" ls-tree -r --name-only HEAD cachefiles); do
  case "$f" in *_T4.json.gz | *_original*) continue ;; esac
  kernel=$(basename "$(dirname "$f")"); kernel=${kernel%_milo}
  out="$DIR/hub/${kernel}_$(basename "$f")"
  if git -C "$HUB" cat-file -e "HEAD:$f" 2>/dev/null &&
     [ "$(git -C "$HUB" cat-file -s "HEAD:$f")" -gt 1000 ]; then
    git -C "$HUB" cat-file blob "HEAD:$f" >"$out"
  else
    echo "missing from $HUB: $f" | tee -a "$DIR/hub/REVISION" >&2
    missing=$((missing + 1))
  fi
done
for f in "$SHARED"/*.json.gz; do
  name=$(basename "$f")
  case "$name" in *_T4.json.gz) continue ;; esac
  if ! cmp -s "$f" "$DIR/hub/$name"; then cp "$f" "$DIR/shared/$name"; fi
  [ -e "$DIR/hub/$name" ] && rm -f "$DIR/shared/$name"
done
P='{"K":64,"layout":"col","precision":"fp32","seed":1}'
for m in banded-1m xct-256-hilbert; do
  python3 bench/kernel-tuner/store_to_cache.py results/baselines/h100/register-tiling.db \
    "$DIR/stores/h100-register-tiling-$m.json" --kernel spmm.cuda.tiled --matrix $m --problem "$P"
done
D='{"feature_density":0.32000000000000001,"features":60000,"layers":120,"network_seed":1,"seed":1}'
for m in dnn-1024 dnn-4096; do
  python3 bench/kernel-tuner/store_to_cache.py results/baselines/h100/spdnn-inference.db \
    "$DIR/stores/h100-spdnn-fused-$m.json" --kernel spdnn.cuda.fused --matrix $m --problem "$D"
done
if ! PYTHONPATH=.cache/kt python3 -c "import kernel_tuner, skopt, pyatf" 2>/dev/null; then
  python3 -m pip install -q --target .cache/kt "kernel_tuner==1.5.*" scikit-optimize pyatf
fi
echo "spaces: $(ls "$DIR"/hub/*.json.gz "$DIR"/shared/*.json.gz "$DIR"/stores/*.json | wc -l)" \
  "($missing hub files missing)"
