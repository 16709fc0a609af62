#!/usr/bin/env bash
# gemm.bar_summary: results/baselines/h100-x2/ and h100-x4/gemm-bar-summary.txt are what ci/gemm-bar.sql prints
# from the committed stores, and the README's sample-noise figures are the stores' own (relative
# standard deviation of the samples of every verified point, rounded as written there).
#   $1 source root
set -euo pipefail
ROOT=$1
dir=$ROOT/results/baselines/h100-x2
command -v sqlite3 >/dev/null || { echo "sqlite3 not installed: skipped"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
# summary_of HOST STORE...: what ci/gemm-bar.sql prints from the stores, as the summary file holds it.
summary_of() {
  local host=$1
  shift
  for name in "$@"; do
    echo "== results/baselines/$host/$name"
    sqlite3 -header -column "$ROOT/results/baselines/$host/$name" <"$ROOT/ci/gemm-bar.sql"
  done
}
diff <(summary_of h100-x2 gemm-bar-1xG.db gemm-bar-Gx1-np2.db) "$dir/gemm-bar-summary.txt" >/dev/null ||
  fail "h100-x2/gemm-bar-summary.txt is not what ci/gemm-bar.sql prints from the stores (regenerate it)"
x4=$ROOT/results/baselines/h100-x4
diff <(summary_of h100-x4 gemm-bar-1xG.db gemm-bar-Gx1-np2.db gemm-bar-Gx1-np4.db gemm-bar-ooc.db) \
  "$x4/gemm-bar-summary.txt" >/dev/null ||
  fail "h100-x4/gemm-bar-summary.txt is not what ci/gemm-bar.sql prints from the stores (regenerate it)"
cv() {
  for db in "$dir"/gemm-bar-1xG.db "$dir"/gemm-bar-Gx1-np2.db; do
    sqlite3 -noheader "$db" "SELECT time_stddev_s / time_mean_s FROM points WHERE status = 'ok'"
  done | sort -g
}
low=$(cv | awk '$1 < 0.05' | head -1 | awk '{printf "%.1f", 100 * $1}')
high=$(cv | awk '$1 < 0.05' | tail -1 | awk '{printf "%.1f", 100 * $1}')
outlier=$(cv | awk '$1 >= 0.05' | awk '{printf "%.1f\n", 100 * $1}' | paste -sd,)
grep -q "${low}-${high} % for every point but one cublasXt point (${outlier} %)" "$dir/README.md" ||
  fail "README.md should say ${low}-${high} % and one point at ${outlier} %"
echo "gemm.bar_summary: summary regenerated identically; noise ${low}-${high} %, one point ${outlier} %"
