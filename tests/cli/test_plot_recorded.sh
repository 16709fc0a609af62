# cli.plot_recorded (issue 13, item 14): `plot` draws the plots of the config text stored with the
# run, wherever it runs from: the run recorded a relative config path that does not resolve from
# another folder (and the file is gone), yet the config's figure (by-row-block) is drawn.
. "$2/lib.sh"
mkdir -p "$WORK/exp" "$WORK/elsewhere"
cp "$HERE/small.yaml" "$WORK/exp/small.yaml"
(cd "$WORK/exp" && "$RT" run small.yaml --db s.db --set kernels.0.params.row_block=[32] \
  --set problem.layout=[row] --quiet >"$WORK/run.log" 2>&1) || fail "run: $(tail -3 "$WORK/run.log")"
[ "$(sql "$WORK/exp/s.db" "SELECT config_path FROM runs")" = small.yaml ] || fail "the recorded path is not relative"
rm "$WORK/exp/small.yaml"
(cd "$WORK/elsewhere" && "$RT" plot --db ../exp/s.db --out figs >"$WORK/plot.log" 2>&1) ||
  fail "plot: $(cat "$WORK/plot.log")"
[ -s "$WORK/elsewhere/figs/by-row-block.gp" ] || fail "the config's figure was not drawn: $(ls "$WORK/elsewhere/figs")"
echo "cli.plot_recorded: ok"
