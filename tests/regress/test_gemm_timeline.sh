#!/usr/bin/env bash
# results.gemm_timeline: the committed GEMM timeline (results/timelines/h200-x2/gemm) is what
# `rooftune figures --timeline` draws from its committed CSV (the summary and the figure's data
# byte for byte), and the numbers results/figures/README.md quotes from it are the summary's.
#   test_gemm_timeline.sh ROOFTUNE SOURCE_DIR WORK [README]
set -uo pipefail
RT=$1 SRC=$2 WORK=$3
README=${4:-$SRC/results/figures/README.md}
dir=$SRC/results/timelines/h200-x2/gemm
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$WORK" && mkdir -p "$WORK"
cp "$dir/gemm-timeline.csv" "$WORK/" || fail "no committed CSV in $dir"
"$RT" figures --timeline "$WORK/gemm-timeline.csv" --out "$WORK/out" >"$WORK/figures.log" 2>&1 ||
  fail "figures --timeline: $(tail -3 "$WORK/figures.log")"
# The summary's first line names the CSV it read: the rest must match.
cmp -s <(tail -n +2 "$dir/gemm-timeline-summary.txt") <(tail -n +2 "$WORK/out/gemm-timeline-summary.txt") ||
  fail "the committed summary differs from its regeneration: $(diff <(tail -n +2 "$dir/gemm-timeline-summary.txt") <(tail -n +2 "$WORK/out/gemm-timeline-summary.txt") | head -5)"
cmp -s "$dir/gemm-timeline.dat" "$WORK/out/gemm-timeline.dat" || fail "gemm-timeline.dat differs from its regeneration"
# Every number of the README's timeline section that the summary prints (overlap shares, the
# times before the first kernel and after the last, their share of the span).
section=$(awk '/^### The tiled GEMM.s timeline on 2 x H200/{on=1; next} on && (/^#/ || /^How they compare/){exit} on' "$README" | tr '\n' ' ')
[ -n "$section" ] || fail "no timeline section in $README"
summary=$WORK/out/gemm-timeline-summary.txt
checked=0
for n in $(grep -oE '[0-9]+\.[0-9]{3} ms|0\.[0-9]{3}( and|\.)|[0-9]+\.[0-9]%' <<<"$section" | grep -oE '[0-9]+\.[0-9]+%?'); do
  grep -q -- "$n" "$summary" || fail "the README's $n is not in the timeline summary"
  checked=$((checked + 1))
done
[ "$checked" -ge 8 ] || fail "only $checked numbers of the README's section checked (want the 8 it states)"
# The GEMM family page quotes the same run: its overlap shares and the ends' shares.
page=${GEMM_PAGE:-$SRC/docs/families/gemm.md}
para=$(grep -A6 'Its first run, on 2 x H200' "$page" | tr '\n' ' ')
[ -n "$para" ] || fail "docs/families/gemm.md no longer describes the committed run"
for n in $(grep -oE '0\.[0-9]{3}|[0-9]+\.[0-9]%' <<<"$para"); do
  grep -q -- "$n" "$summary" || fail "docs/families/gemm.md's $n is not in the timeline summary"
  checked=$((checked + 1))
done
echo "gemm timeline: regenerated, $checked numbers of the two pages found in its summary"
