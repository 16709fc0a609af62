#!/usr/bin/env bash
# gemm.bar_summary: results/baselines/h100-x2/, h100-x4/, h200-x2/ and h200-x4/gemm-bar-summary.txt are what ci/gemm-bar.sql prints
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
# Each host's summary, its stores in the order the summary lists them.
while read -r host stores; do
  # shellcheck disable=SC2086
  diff <(summary_of "$host" $stores) "$ROOT/results/baselines/$host/gemm-bar-summary.txt" >/dev/null ||
    fail "$host/gemm-bar-summary.txt is not what ci/gemm-bar.sql prints from the stores (regenerate it)"
done <<'HOSTS'
h100-x2 gemm-bar-1xG.db gemm-bar-Gx1-np2.db
h100-x4 gemm-bar-1xG.db gemm-bar-Gx1-np2.db gemm-bar-Gx1-np4.db gemm-bar-ooc.db
h200-x2 gemm-bar-1xG.db gemm-bar-Gx1-np2.db
h200-x4 gemm-bar-1xG.db gemm-bar-Gx1-np2.db gemm-bar-Gx1-np4.db
HOSTS
x4=$ROOT/results/baselines/h100-x4
cv() {
  for db in "$dir"/gemm-bar-1xG.db "$dir"/gemm-bar-Gx1-np2.db; do
    sqlite3 -noheader "$db" "SELECT time_stddev_s / time_mean_s FROM points WHERE status = 'ok'"
  done | sort -g
}
low=$(cv | awk '$1 < 0.05' | sed -n 1p | awk '{printf "%.1f", 100 * $1}')
high=$(cv | awk '$1 < 0.05' | tail -1 | awk '{printf "%.1f", 100 * $1}')
outlier=$(cv | awk '$1 >= 0.05' | awk '{printf "%.1f\n", 100 * $1}' | paste -sd,)
grep -q "${low}-${high} % for every point but one cublasXt point (${outlier} %)" "$dir/README.md" ||
  fail "README.md should say ${low}-${high} % and one point at ${outlier} %"
# The 4 x H100 README's noise statements: the noisy points of the 1xG store (all cublasXt, per GPU
# count) and their spread, and the out-of-core points' spread.
x4_noisy=$(sqlite3 -noheader "$x4/gemm-bar-1xG.db" "SELECT COUNT(*), MIN(kernel), MAX(kernel),
  SUM(json_extract(params, '$.xt_gpus') = 1), SUM(json_extract(params, '$.xt_gpus') = 2),
  SUM(json_extract(params, '$.xt_gpus') = 4), printf('%.1f', 100 * MIN(time_stddev_s / time_mean_s)),
  printf('%.1f', 100 * MAX(time_stddev_s / time_mean_s))
  FROM points p WHERE status = 'ok' AND EXISTS (SELECT 1 FROM metrics m WHERE m.point_id = p.id
  AND m.name = 'noisy' AND m.value = 1)")
[ "$x4_noisy" = "6|gemm.cuda.cublasxt|gemm.cuda.cublasxt|1|2|3|3.0|5.0" ] ||
  fail "h100-x4/gemm-bar-1xG.db's noisy points are '$x4_noisy', not what README.md says"
grep -q "six cublasXt points missed the 2 % target (one on 1 GPU, two on 2, three on" "$x4/README.md" &&
  grep -q "relative standard deviation is 3.0-5.0 %" "$x4/README.md" || fail "h100-x4/README.md's noise sentence changed"
ooc=$(sqlite3 -noheader "$x4/gemm-bar-ooc.db" "SELECT printf('%.2f-%.2f', 100 * MIN(time_stddev_s /
  time_mean_s), 100 * MAX(time_stddev_s / time_mean_s)) FROM points WHERE status = 'ok'")
grep -q "standard deviations are $ooc %" "$x4/README.md" ||
  fail "h100-x4/README.md should give the out-of-core points' spread as $ooc %"
# The 4 x H200 README's table: every tiled ratio of the summary, the noisy points' spreads and the
# peaks it quotes are the stores' own.
h4=$ROOT/results/baselines/h200-x4
for r in $(awk '$1 ~ /^[0-9]+$/ && NF >= 8 {print $8}' "$h4/gemm-bar-summary.txt"); do
  grep -q "| $r[ |]\|| $r (noisy)" "$h4/README.md" || fail "h200-x4/README.md lacks the summary's ratio $r"
done
for db in gemm-bar-1xG.db gemm-bar-Gx1-np4.db; do
  for sp in $(sqlite3 -noheader "$h4/$db" "SELECT printf('%.2f', 100 * time_stddev_s / time_mean_s) FROM points p
      WHERE status = 'ok' AND kernel = 'gemm.cuda.tiled' AND EXISTS (SELECT 1 FROM metrics m
      WHERE m.point_id = p.id AND m.name = 'noisy' AND m.value = 1)"); do
    grep -q "spread $sp%\|spread ${sp}% both" "$h4/README.md" || fail "h200-x4/README.md lacks the noisy spread $sp% ($db)"
  done
done
peak=$(sqlite3 -noheader "$h4/gemm-bar-1xG.db" "SELECT printf('%.2f', MAX(gflops) / 1000) FROM points WHERE status = 'ok'
  AND verified = 1 AND kernel = 'gemm.cuda.cublas' AND json_extract(problem, '$.N') = 32768")
xt=$(sqlite3 -noheader "$h4/gemm-bar-1xG.db" "SELECT printf('%.1f', MAX(gflops) / 1000) FROM points WHERE status = 'ok'
  AND verified = 1 AND kernel = 'gemm.cuda.cublasxt' AND json_extract(params, '$.xt_gpus') = 4")
grep -q "$peak TFLOP/s at N = 32768" "$h4/README.md" && grep -q "$xt TFLOP/s, block 16384" "$h4/README.md" ||
  fail "h200-x4/README.md's peaks should be $peak (cuBLAS) and $xt (cublasXt, 4 GPUs) TFLOP/s"
# The figures page's 4 x H200 section: every ratio it gives is one of the h200-x4 (or, for the
# comparison, h100-x4) summary's ratios or bars, every spread one of the noisy points'.
sec=$(awk '/^### Multi-GPU GEMM on 4 x H200/{on=1; next} /^### /{on=0} on' "$ROOT/results/figures/README.md")
[ -n "$sec" ] || fail "results/figures/README.md lost its 4 x H200 GEMM section"
ratios=$(awk '$1 ~ /^[0-9]+$/ && NF >= 8 {print $8; print $9}' "$h4/gemm-bar-summary.txt" "$x4/gemm-bar-summary.txt")
for r in $(grep -o '\b0\.[0-9]\+' <<<"$sec" | sort -u); do
  grep -qx "$r" <<<"$ratios" || fail "the figures page's 4 x H200 section gives $r, no ratio of the summaries"
done
for sp in $(grep -o '[0-9]\.[0-9]\+%' <<<"$sec" | tr -d % | sort -u); do
  grep -q "spread $sp%\|spread ${sp}% both" "$h4/README.md" || fail "the figures page's spread $sp% is no noisy point's"
done
echo "gemm.bar_summary: summary regenerated identically; noise ${low}-${high} %, one point ${outlier} %"
