#!/usr/bin/env bash
# sptrsv.bar_summary: results/baselines/h200-x4/sptrsv-bar.txt is what ci/sptrsv-bar.sql prints
# from the committed store, and the numbers the folder's README and the sptrsv page state about it
# are the store's (check_bar_notes.py). A wrong number put into a copy of either page must fail,
# so the check is shown able to fail, not only to pass.
#   $1 source root, $2 a scratch folder
set -euo pipefail
ROOT=$1
WORK=$2
dir=$ROOT/results/baselines/h200-x4
command -v sqlite3 >/dev/null || { echo "sqlite3 not installed: skipped"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir -p "$WORK"
diff <(sqlite3 -header -column "$dir/sptrsv-scaling.db" <"$ROOT/ci/sptrsv-bar.sql") "$dir/sptrsv-bar.txt" ||
  fail "h200-x4/sptrsv-bar.txt is not what ci/sptrsv-bar.sql prints from sptrsv-scaling.db (regenerate it)"
notes=$ROOT/tests/sptrsv/check_bar_notes.py
python3 "$notes" "$ROOT" || fail "the README or the sptrsv page disagrees with the store"
# one headline number changed in each page: the check must catch it
grep -q "5.16x / 5.55x: met" "$dir/README.md" || fail "README.md's lap3d7-84 row changed: update this test's mutation"
sed 's|5.16x / 5.55x: met|5.16x / 5.65x: met|' "$dir/README.md" >"$WORK/readme-bad.md"
! python3 "$notes" "$ROOT" --readme="$WORK/readme-bad.md" >/dev/null || fail "a wrong ratio in README.md passed"
grep -q "on 14 of 16 persistent points" "$ROOT/docs/families/sptrsv.md" ||
  fail "the sptrsv page's model sentence changed: update this test's mutation"
sed 's|on 14 of 16 persistent points|on 15 of 16 persistent points|' "$ROOT/docs/families/sptrsv.md" >"$WORK/sptrsv-bad.md"
! python3 "$notes" "$ROOT" --sptrsv="$WORK/sptrsv-bad.md" >/dev/null || fail "a wrong share on the sptrsv page passed"
echo "sptrsv.bar_summary: summary regenerated identically; the pages' numbers are the store's"
