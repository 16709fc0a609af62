# help for every subcommand, list, dry-run, plot, probe --quick.
source "$(dirname "$0")/lib.sh"
for c in run validate list export plot probe; do
  "$RT" "$c" --help | grep -q "usage: rooftune $c" || fail "$c --help"
done
set +e
"$RT" frobnicate >/dev/null 2>&1; rc=$?
set -e
[ "$rc" = 2 ] || fail "unknown command exited $rc"
"$RT" list --cpu >"$WORK/list.txt"
for k in spmm.cpu.csr spmm.cpu.ell spmm.cpu.tiled spmm.cuda.tiled spmm.cuda.cusparse register_tile xct rmat; do
  grep -q "$k" "$WORK/list.txt" || fail "list lacks $k"
done
"$RT" run "$HERE/small.yaml" --dry-run >"$WORK/dry.log"
grep -q "would run spmm.cpu.csr" "$WORK/dry.log" || fail "dry run lists nothing"
[ ! -e results/cli-small.db ] || fail "dry run wrote a store"
db="$WORK/p.db"
"$RT" run "$HERE/small.yaml" --db "$db" --quiet --plots "$WORK/figs"
for f in by-row-block.png by-row-block.svg by-row-block.gp by-row-block.dat roofline.png; do
  [ -s "$WORK/figs/$f" ] || fail "figure file $f missing"
done
"$RT" plot --db "$db" --out "$WORK/figs2" >/dev/null
[ -s "$WORK/figs2/by-row-block.png" ] || fail "plot did not redraw from the recorded config"
# bound_s and efficiency are filled for every measured point.
nb=$(sql "$db" "SELECT COUNT(*) FROM points WHERE status='ok' AND (bound_s IS NULL OR efficiency IS NULL)")
[ "$nb" = 0 ] || fail "$nb ok points without bound_s/efficiency"
"$RT" probe --quick --cpu --out "$WORK/machine.yaml" 2>/dev/null
grep -q "measured:" "$WORK/machine.yaml" || fail "probe wrote no measured block"
"$RT" run "$HERE/small.yaml" --db "$WORK/q.db" --quiet --max-points 2 --set "machine=$WORK/machine.yaml"
echo "cli misc: ok"
