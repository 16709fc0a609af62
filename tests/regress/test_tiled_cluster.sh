#!/usr/bin/env bash
# results.tiled_cluster: the committed cluster measurement (results/baselines/h200-x2/tiled-cluster.db)
# is what its summary says (ci/tiled-cluster.sql through ci/sql-print.py, byte for byte), its run is
# clean and complete, and every number of the spmm-hopper page's measured paragraph is in the
# summary.
#   test_tiled_cluster.sh SOURCE_DIR WORK [PAGE]
set -uo pipefail
SRC=$1 WORK=$2
PAGE=${3:-$SRC/docs/families/spmm-hopper.md}
db=$SRC/results/baselines/h200-x2/tiled-cluster.db
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$WORK" && mkdir -p "$WORK"
python3 "$SRC/ci/sql-print.py" "$db" "$SRC/ci/tiled-cluster.sql" >"$WORK/summary.txt" ||
  fail "ci/sql-print.py on the store"
cmp -s "$WORK/summary.txt" "$SRC/results/baselines/h200-x2/tiled-cluster-summary.txt" ||
  fail "tiled-cluster-summary.txt is not what ci/tiled-cluster.sql prints from the store"
run=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(
  'SELECT git_dirty, status FROM runs').fetchall())" "$db")
[ "$run" = "[(0, 'complete')]" ] || fail "want one clean complete run, got $run"
para=$(awk '/^Measured on an H200 from clean/{on = 1} on && /^$/{exit} on' "$PAGE" | tr '\n' ' ')
[ -n "$para" ] || fail "the page lost its measured paragraph"
checked=0
for n in $(grep -oE '[0-9]+\.[0-9]+(e\+[0-9]+)?|[0-9]{6}' <<<"$para" | sort -u); do
  case $n in 9.0) continue ;; esac
  grep -qF -- "$n" "$WORK/summary.txt" || fail "the page's $n is not in the summary"
  checked=$((checked + 1))
done
[ "$checked" -ge 15 ] || fail "only $checked numbers checked"
echo "tiled cluster: summary regenerated, $checked numbers of the page found in it"
