# plot.roofline_redraw: `rooftune figures` drawing over its own output (as it redraws
# results/figures in place) keeps every figure, the roofline's too. It removes the old figure files
# it did not draw again, told apart by their inode; a roofline figure written in place kept its
# inode and was removed as stale, so results/figures lost every roofline figure.
#   $1 = rooftune, $2 = repository root, $3 = scratch folder
. "$(dirname "$0")/../rt_test_lib.sh"
rt_args RT ROOT WORK -- "$@"
rt_scratch "$WORK" one/baselines/h100
cp "$ROOT/results/baselines/h100/spdnn-inference.db" "$WORK/one/baselines/h100/"
for pass in 1 2; do
  "$RT" figures --results "$WORK/one" --out "$WORK/out" >"$WORK/log.$pass" 2>&1 ||
    { cat "$WORK/log.$pass"; fail "rooftune figures (pass $pass) failed"; }
  (cd "$WORK/out" && find . -type f | sort) >"$WORK/files.$pass"
  cp "$WORK/out/h100/spdnn-inference/roofline.dat" "$WORK/roofline.dat.$pass" 2>/dev/null || true
done
grep -q '/roofline\.dat$' "$WORK/files.1" || fail "no roofline figure drawn: $(cat "$WORK/files.1")"
diff "$WORK/files.1" "$WORK/files.2" >"$WORK/files.diff" ||
  fail "drawing over its own output lost or added files: $(cat "$WORK/files.diff")"
cmp -s "$WORK/roofline.dat.1" "$WORK/roofline.dat.2" || fail "the roofline data changed between passes"
echo "plot.roofline_redraw: $(wc -l <"$WORK/files.2") files kept over two passes"
