# cli.full_disk (issue 13, item 14): a figure whose files cannot be written (here: its .dat and
# .gp are links to /dev/full, which answers every write with "No space left on device") fails
# with that cause, and leaves no empty or cut .dat/.gp/.svg behind.
. "$2/lib.sh"
[ -w /dev/full ] || fail "no /dev/full on this machine"
"$RT" run "$HERE/small.yaml" --db "$WORK/s.db" --set kernels.0.params.row_block=[32] \
  --set problem.layout=[row] --quiet >"$WORK/run.log" 2>&1 || fail "run: $(tail -3 "$WORK/run.log")"
# The experiment's figure is by-row-block (small.yaml): first its data, then its script cannot be
# written.
for bad in dat gp; do
  rm -rf "$WORK/figs" && mkdir -p "$WORK/figs"
  ln -s /dev/full "$WORK/figs/by-row-block.$bad"
  set +e
  "$RT" plot --db "$WORK/s.db" --out "$WORK/figs" >"$WORK/plot.log" 2>&1
  r=$?
  set -e
  [ "$r" != 0 ] && grep -q "by-row-block.$bad: No space left on device" "$WORK/plot.log" ||
    fail "plot with a full .$bad: exit $r: $(cat "$WORK/plot.log")"
  for f in by-row-block.gp by-row-block.svg by-row-block.png; do
    [ ! -e "$WORK/figs/$f" ] && [ ! -L "$WORK/figs/$f" ] || fail "full .$bad: $f left behind: $(ls -l "$WORK/figs")"
  done
  [ ! -L "$WORK/figs/by-row-block.$bad" ] || fail "full .$bad: the unwritable file was not removed"
done
echo "cli.full_disk: ok"
