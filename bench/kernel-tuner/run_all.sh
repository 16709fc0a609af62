#!/usr/bin/env bash
# The side-by-side table of results/tuning/ in one run on one machine: Kernel Tuner (from PyPI,
# in an ignored venv) and rooftune's replay on every space of ../shared/tuning-spaces and on the
# full sweeps of the committed store results/baselines/h100/register-tiling.db, budgets 20, 50,
# 100, 200 (4, 8, 20 on the 40-point store sweeps), 10 repeats each; then compare.py writes the
# table and the figure. Kernel Tuner runs as three processes (about an hour on two cores).
#
# usage: bench/kernel-tuner/run_all.sh [ROOFTUNE] [SPACES_DIR] [PART]   (from the repository root)
#   PART: all (default), recorded (the files of SPACES_DIR only) or store (the sweeps of the
#   committed store only, e.g. after the store was measured again); a part replaces its own CSV
#   files and keeps the other part's.
set -euo pipefail
RT=${1:-build/rooftune}
S=${2:-../shared/tuning-spaces}
PART=${3:-all}
case $PART in all|recorded|store) ;; *) echo "run_all.sh: PART must be all, recorded or store, not '$PART'" >&2; exit 2;; esac
OUT=results/tuning
WORK=build-kt
VENV=build-ktvenv
STORE=results/baselines/h100/register-tiling.db
mkdir -p "$WORK"
[ -x "$VENV/bin/python" ] || { python3 -m venv "$VENV" && "$VENV/bin/pip" install -q kernel_tuner==1.5.0; }
KT="$VENV/bin/python bench/kernel-tuner/run_kernel_tuner.py"
# session PART TEXT: records which session measured a part in $OUT/sessions.txt (compare.py prints
# it), replacing that part's earlier line.
session() {
  local src="rooftune source $(git rev-parse --short HEAD)"
  [ -z "$(git status --porcelain -- '*.c' '*.h' '*.cu' '*.cuh' 2>/dev/null)" ] || src="$src with uncommitted C/CUDA changes"
  local kt
  kt=$("$VENV/bin/python" -c "import kernel_tuner, sys; print('kernel_tuner', kernel_tuner.__version__, 'Python', sys.version.split()[0])")
  { grep -v "^$1:" "$OUT/sessions.txt" 2>/dev/null || true
    echo "$1: $2, measured $(date -u +%Y-%m-%d) with $kt and $src"; } >"$OUT/sessions.tmp"
  mv "$OUT/sessions.tmp" "$OUT/sessions.txt"
}
P='{"K":64,"layout":"col","precision":"fp32","seed":1}'
if [ "$PART" != store ]; then
  rm -f "$OUT"/kernel_tuner_runs.csv "$OUT"/kernel_tuner_runs_{gemm,convolution,pnpoly}.csv "$OUT"/rooftune_replay.csv
  $KT "$OUT/kernel_tuner_runs_gemm.csv" "$S/gemm_RTX_3090.json.gz" --budgets 100,200,50,20 &
  a=$!
  $KT "$OUT/kernel_tuner_runs_convolution.csv" "$S/convolution_A100.json.gz" \
    "$S/convolution_A4000.json.gz" "$S/convolution_MI250X.json.gz" --budgets 100,200,50,20 &
  b=$!
  $KT "$OUT/kernel_tuner_runs_pnpoly.csv" "$S/pnpoly_RTX_3090.json.gz" --budgets 100,200,50,20
  for f in pnpoly_RTX_3090 convolution_A100 convolution_A100_T4 convolution_A4000 \
           convolution_MI250X gemm_RTX_3090; do
    "$RT" replay "$S/$f.json.gz" --csv "$OUT/rooftune_replay.csv" --repeats 10 --budget 20,50,100,200
  done
  wait "$a" "$b"
  session recorded "the recorded spaces of $(basename "$S")"
fi
if [ "$PART" != recorded ]; then
  rm -f "$OUT"/kernel_tuner_runs_h100.csv "$OUT"/rooftune_replay_h100.csv
  for m in banded-1m xct-256-hilbert; do
    python3 bench/kernel-tuner/store_to_cache.py "$STORE" "$WORK/h100-register-tiling-$m.json" \
      --kernel spmm.cuda.tiled --matrix $m --problem "$P"
  done
  $KT "$OUT/kernel_tuner_runs_h100.csv" "$WORK/h100-register-tiling-banded-1m.json" \
    "$WORK/h100-register-tiling-xct-256-hilbert.json" --budgets 20,8,4 --time-limit 10
  for m in banded-1m xct-256-hilbert; do
    "$RT" replay "$STORE" --kernel spmm.cuda.tiled --matrix $m \
      --problem "$P" --label "h100-register-tiling-$m" --csv "$OUT/rooftune_replay_h100.csv" \
      --repeats 10 --budget 4,8,20
  done
  session store "the sweeps of $STORE (its runs: $(sqlite3 "$STORE" "SELECT group_concat(substr(git_revision, 1, 7) || ' ' || status, '; ') FROM runs"))"
fi
"$VENV/bin/python" -c "import kernel_tuner, sys; print('kernel_tuner', kernel_tuner.__version__, \
'Python', sys.version.split()[0])" >"$OUT/kernel_tuner_version.txt"
python3 bench/kernel-tuner/compare.py
