#!/usr/bin/env bash
# The side-by-side table of results/tuning/ in one run on one machine: Kernel Tuner (from PyPI,
# in an ignored venv) and rooftune's replay on every space of ../shared/tuning-spaces and on the
# full sweeps of the committed store results/baselines/h100/register-tiling.db, budgets 20, 50,
# 100, 200 (4, 8, 20 on the 40-point store sweeps), 10 repeats each; then compare.py writes the
# table and the figure. Kernel Tuner runs as three processes (about an hour on two cores).
#
# usage: bench/kernel-tuner/run_all.sh [ROOFTUNE] [SPACES_DIR]   (from the repository root)
set -euo pipefail
RT=${1:-build/rooftune}
S=${2:-../shared/tuning-spaces}
OUT=results/tuning
WORK=build-kt
VENV=build-ktvenv
mkdir -p "$WORK"
[ -x "$VENV/bin/python" ] || { python3 -m venv "$VENV" && "$VENV/bin/pip" install -q kernel_tuner; }
KT="$VENV/bin/python bench/kernel-tuner/run_kernel_tuner.py"
P='{"K":64,"layout":"col","precision":"fp32","seed":1}'
for m in banded-1m xct-256-hilbert; do
  python3 bench/kernel-tuner/store_to_cache.py results/baselines/h100/register-tiling.db \
    "$WORK/h100-register-tiling-$m.json" --kernel spmm.cuda.tiled --matrix $m --problem "$P"
done
rm -f "$OUT"/kernel_tuner_runs*.csv "$OUT"/rooftune_replay*.csv
$KT "$OUT/kernel_tuner_runs_gemm.csv" "$S/gemm_RTX_3090.json.gz" --budgets 100,200,50,20 &
a=$!
$KT "$OUT/kernel_tuner_runs_convolution.csv" "$S/convolution_A100.json.gz" \
  "$S/convolution_A4000.json.gz" "$S/convolution_MI250X.json.gz" --budgets 100,200,50,20 &
b=$!
$KT "$OUT/kernel_tuner_runs_pnpoly.csv" "$S/pnpoly_RTX_3090.json.gz" --budgets 100,200,50,20
$KT "$OUT/kernel_tuner_runs_h100.csv" "$WORK/h100-register-tiling-banded-1m.json" \
  "$WORK/h100-register-tiling-xct-256-hilbert.json" --budgets 20,8,4 --time-limit 10
for f in pnpoly_RTX_3090 convolution_A100 convolution_A100_T4 convolution_A4000 \
         convolution_MI250X gemm_RTX_3090; do
  "$RT" replay "$S/$f.json.gz" --csv "$OUT/rooftune_replay.csv" --repeats 10 --budget 20,50,100,200
done
for m in banded-1m xct-256-hilbert; do
  "$RT" replay results/baselines/h100/register-tiling.db --kernel spmm.cuda.tiled --matrix $m \
    --problem "$P" --label "h100-register-tiling-$m" --csv "$OUT/rooftune_replay_h100.csv" \
    --repeats 10 --budget 4,8,20
done
wait "$a" "$b"
"$VENV/bin/python" -c "import kernel_tuner, sys; print('kernel_tuner', kernel_tuner.__version__, \
'Python', sys.version.split()[0])" >"$OUT/kernel_tuner_version.txt"
python3 bench/kernel-tuner/compare.py
