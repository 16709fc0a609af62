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
# Images only where gnuplot is installed (the GPU hosts have none); the data and scripts are
# written either way, and without gnuplot both figure stages must say so.
have_gnuplot=0
command -v gnuplot >/dev/null 2>&1 && have_gnuplot=1
# check_figs DIR LOG STEM...: .dat/.gp always; .png/.svg with gnuplot, else none and the
# "gnuplot not found" notes of the experiment figures and the roofline figure in LOG.
check_figs() {
  local dir=$1 log=$2 stem
  shift 2
  for stem in "$@"; do
    for ext in dat gp; do
      [ -s "$dir/$stem.$ext" ] || fail "figure file $dir/$stem.$ext missing"
    done
    for ext in png svg; do
      if [ "$have_gnuplot" = 1 ]; then
        [ -s "$dir/$stem.$ext" ] || fail "figure file $dir/$stem.$ext missing (gnuplot is here)"
      else
        [ ! -e "$dir/$stem.$ext" ] || fail "$dir/$stem.$ext drawn without gnuplot?"
      fi
    done
  done
  if [ "$have_gnuplot" = 1 ]; then
    ! grep -q "gnuplot not found" "$log" || fail "gnuplot is on PATH but reported missing: $(cat "$log")"
  else
    grep -q "^plots: .*gnuplot not found: wrote data and scripts" "$log" ||
      grep -q "for 'cli-small' .*gnuplot not found: wrote data and scripts" "$log" ||
      fail "experiment figures: no 'gnuplot not found' note in: $(cat "$log")"
    grep -q "^roofline: .*gnuplot not found on PATH: wrote roofline.dat/.gp" "$log" ||
      fail "roofline figure: no 'gnuplot not found' note in: $(cat "$log")"
  fi
}
"$RT" run "$HERE/small.yaml" --db "$db" --quiet --plots "$WORK/figs" >"$WORK/run.log"
check_figs "$WORK/figs" "$WORK/run.log" by-row-block roofline
"$RT" plot --db "$db" --out "$WORK/figs2" >"$WORK/plot.log"
check_figs "$WORK/figs2" "$WORK/plot.log" by-row-block roofline
# bound_s and efficiency are filled for every measured point.
nb=$(sql "$db" "SELECT COUNT(*) FROM points WHERE status='ok' AND (bound_s IS NULL OR efficiency IS NULL)")
[ "$nb" = 0 ] || fail "$nb ok points without bound_s/efficiency"
"$RT" probe --quick --cpu --out "$WORK/machine.yaml" 2>/dev/null
grep -q "measured:" "$WORK/machine.yaml" || fail "probe wrote no measured block"
"$RT" run "$HERE/small.yaml" --db "$WORK/q.db" --quiet --max-points 2 --set "machine=$WORK/machine.yaml"
echo "cli misc: ok ($([ "$have_gnuplot" = 1 ] && echo "images checked" || echo "gnuplot not on PATH: data, scripts and the missing-gnuplot notes checked"))"
