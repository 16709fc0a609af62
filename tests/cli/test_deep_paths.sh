# cli.deep_paths: paths longer than the old fixed buffers (1 KiB) are used whole, and a path that
# does not fit at all is an error naming it, never a silently cut path that names another file
# (issue 13, item 13).
. "$2/lib.sh"
ROOT=$(cd "$HERE/../.." && pwd)
CFG="$ROOT/configs/ci/hierarchical-comm-small.yaml"
# A folder about 1200 characters deep (components of 200), not created beforehand.
deep="$WORK"
for i in 1 2 3 4 5 6; do deep="$deep/$(printf 'd%d%0199d' "$i" 0)"; done
[ ${#deep} -gt 1200 ] || fail "the deep folder is only ${#deep} characters"

# 1. --model-only writes its CSV beside the --db path: the folder is made and the files are there.
"$RT" run "$CFG" --model-only --ranks 8 --ranks-per-node 4 --db "$deep/m.db" >"$WORK/model.log" 2>&1 ||
  fail "model-only into a deep folder: $(tail -3 "$WORK/model.log")"
[ -s "$deep/hierarchical-comm-small-model.csv" ] || fail "no model CSV in the deep folder"

# 2. A run whose figures go to the deep folder, with the whole command line in its provenance.
"$RT" run "$HERE/small.yaml" --db "$WORK/s.db" --plots "$deep/plots" --set kernels.0.params.row_block=[32] \
  --set problem.layout=[row] >"$WORK/run.log" 2>&1 || fail "run with deep plots: $(tail -3 "$WORK/run.log")"
ls "$deep/plots/"*.dat >/dev/null 2>&1 || fail "no figure data in the deep folder"
cmd=$(sql "$WORK/s.db" "SELECT command_line FROM runs")
case "$cmd" in *"$deep/plots"*) ;; *) fail "the stored command line lost the --plots path" ;; esac

# 3. SQLite itself takes no path over 512 characters: a store there is refused with that cause.
set +e
"$RT" run "$HERE/small.yaml" --db "$deep/s.db" >"$WORK/sq.log" 2>&1
rs=$?
set -e
[ "$rs" != 0 ] && grep -q "more than the 512 SQLite accepts" "$WORK/sq.log" ||
  fail "a store path SQLite cannot open: exit $rs: $(tail -c 300 "$WORK/sq.log")"

# 4. Paths that cannot fit: a clear error and exit 2, nothing run.
long="$WORK"
for i in $(seq 1 25); do long="$long/$(printf 'x%0199d' 0)"; done # over PATH_MAX
set +e
ROOFTUNE_MACHINE_DIR="$long" "$RT" run "$HERE/small.yaml" --db "$WORK/m.db" >"$WORK/e1.log" 2>&1
r1=$?
"$RT" run "$CFG" --model-only --ranks 8 --db "$long/m.db" >"$WORK/e2.log" 2>&1
r2=$?
set -e
[ "$r1" = 2 ] && grep -q "ROOFTUNE_MACHINE_DIR: path too long" "$WORK/e1.log" ||
  fail "a machine folder over PATH_MAX: exit $r1: $(head -c 300 "$WORK/e1.log")"
[ ! -e "$WORK/m.db" ] || fail "a run went ahead with a machine folder it could not name"
[ "$r2" = 2 ] && grep -q "path too long" "$WORK/e2.log" ||
  fail "a --db over PATH_MAX: exit $r2: $(head -c 300 "$WORK/e2.log")"
echo "cli.deep_paths: ok"
