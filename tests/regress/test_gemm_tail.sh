#!/usr/bin/env bash
# results.gemm_tail: the 2 x H200 GEMM records of the tail split and the bar
# (results/baselines/h200-x2/gemm-tail.db, gemm-bar-*.db; results/timelines/h200-x2/gemm-tail/)
# are what the tools print from them, and every number the pages quote is in those outputs:
#   - gemm-tail-summary.txt is what ci/gemm-tail.sql prints from gemm-tail.db;
#   - each committed timeline summary and figure data is what `rooftune figures --timeline`
#     draws from its committed CSV (byte for byte, but for the summary's first line, the path);
#   - the numbers of results/figures/README.md's two 2 x H200 sections and of the family page's
#     tail paragraph are found in those summaries (the samples' spread as computed here).
#   test_gemm_tail.sh ROOFTUNE SOURCE_DIR WORK [README] [GEMM_PAGE]
set -uo pipefail
RT=$1 SRC=$2 WORK=$3
README=${4:-$SRC/results/figures/README.md}
PAGE=${5:-$SRC/docs/families/gemm.md}
base=$SRC/results/baselines/h200-x2
tl=$SRC/results/timelines/h200-x2/gemm-tail
fail() { echo "FAIL: $*"; exit 1; }
command -v sqlite3 >/dev/null || { echo "sqlite3 not installed: skipped"; exit 77; }
rm -rf "$WORK" && mkdir -p "$WORK/out"
sqlite3 -header -column "$base/gemm-tail.db" <"$SRC/ci/gemm-tail.sql" >"$WORK/tail.txt" ||
  fail "ci/gemm-tail.sql on gemm-tail.db"
cmp -s "$WORK/tail.txt" "$base/gemm-tail-summary.txt" ||
  fail "gemm-tail-summary.txt is not what ci/gemm-tail.sql prints from the store (regenerate it)"
for run in tl-1gpu-split1 tl-1gpu-split4 tl-2gpu-split1 tl-2gpu-split4; do
  cp "$tl/$run.csv" "$WORK/" || fail "no committed $run.csv"
  "$RT" figures --timeline "$WORK/$run.csv" --out "$WORK/out" >"$WORK/$run.log" 2>&1 ||
    fail "figures --timeline $run: $(tail -3 "$WORK/$run.log")"
  cmp -s <(tail -n +2 "$tl/$run-summary.txt") <(tail -n +2 "$WORK/out/$run-summary.txt") ||
    fail "$run-summary.txt differs from its regeneration"
  cmp -s "$tl/$run.dat" "$WORK/out/$run.dat" || fail "$run.dat differs from its regeneration"
done
# The samples' relative spread of the noisy tiled and cuBLAS points, as the pages round it.
for db in gemm-bar-1xG gemm-tail; do
  sqlite3 -noheader "$base/$db.db" "SELECT printf('%.1f%%', 100 * time_stddev_s / time_mean_s)
    FROM points p WHERE status = 'ok' AND kernel IN ('gemm.cuda.tiled', 'gemm.cuda.cublas')
    AND EXISTS (SELECT 1 FROM metrics m WHERE m.point_id = p.id AND m.name = 'noisy')"
done >"$WORK/spread.txt"
sources="$WORK/tail.txt $base/gemm-bar-summary.txt $WORK/spread.txt $WORK/out/*-summary.txt"
# check_numbers NAME TEXT: every decimal number of TEXT but the bar's thresholds is in a source.
check_numbers() {
  local name=$1 text=$2 n checked=0
  for n in $(grep -oE '[0-9]+\.[0-9]+%?' <<<"$text" | sort -u); do
    case $n in 0.95 | 0.9 | 0.85) continue ;; esac
    # shellcheck disable=SC2086
    grep -qF -- "$n" $sources || fail "$name: $n is not in the summaries"
    checked=$((checked + 1))
  done
  echo "$checked"
}
sec() { awk -v h="$1" 'index($0, h) == 1 {on = 1; next} on && (/^#/ || /^How they compare/) {exit} on' "$README" | tr '\n' ' '; }
bar=$(sec "### Multi-GPU GEMM on 2 x H200")
tail=$(sec "### The tail split on 2 x H200")
[ -n "$bar" ] && [ -n "$tail" ] || fail "the README lost its 2 x H200 GEMM sections"
nb=$(check_numbers "README, the 2 x H200 bar" "$bar") || { echo "$nb"; exit 1; }
nt=$(check_numbers "README, the tail split" "$tail") || { echo "$nt"; exit 1; }
para=$(awk '/^Measured on 2 x H200/{on = 1} on && /^$/{exit} on' "$PAGE" | tr '\n' ' ')
[ -n "$para" ] || fail "docs/families/gemm.md lost its measured tail paragraph"
np=$(check_numbers "docs/families/gemm.md" "$para") || { echo "$np"; exit 1; }
[ "$nb" -ge 6 ] && [ "$nt" -ge 15 ] && [ "$np" -ge 4 ] ||
  fail "too few numbers checked ($nb, $nt, $np): did a section lose its figures?"
echo "gemm tail: summary and 4 timelines regenerated; $nb + $nt + $np quoted numbers found"
