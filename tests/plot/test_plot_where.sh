# plot.where (issue 13, item 8): a figure's `where` draws only the points that meet it. The
# quick start's "CPU CSR" figure took row_block from every kernel that has one (ELL too); with
# `where: {kernel: spmm.cpu.csr}` it shows CSR alone. Also: several values and fields, the
# condition written into the .dat, and clear errors for a field or value the store does not have.
#   $1 = rooftune, $2 = repository root, $3 = scratch folder
. "$(dirname "$0")/../rt_test_lib.sh"
set +e
rt_args RT ROOT WORK -- "$@"
rt_scratch "$WORK"
cat >"$WORK/w.yaml" <<'YAML'
experiment: {name: where}
matrices: [{name: band, generator: banded, rows: 2000, bandwidth: 3}]
problem: {K: [8], precision: [fp64]}
kernels:
  - {name: spmm.cpu.csr, params: {row_block: [64, 256]}}
  - {name: spmm.cpu.ell, params: {row_block: [256]}}
measure: {warmup: 0, min_reps: 2, max_reps: 2, max_time_s: 0.01}
plots:
  - {name: all, type: line, x: row_block, series: matrix}
  - {name: csr, type: line, x: row_block, series: matrix, where: {kernel: spmm.cpu.csr}}
  - {name: both256, type: bars, x: matrix, series: kernel,
     where: {kernel: [spmm.cpu.ell, spmm.cpu.csr], row_block: 256}}
YAML
"$RT" run "$WORK/w.yaml" --db "$WORK/s.db" --quiet >"$WORK/run.log" 2>&1 || fail "run: $(tail -3 "$WORK/run.log")"
"$RT" plot --db "$WORK/s.db" --out "$WORK/figs" >"$WORK/plot.log" 2>&1 || fail "plot: $(tail -3 "$WORK/plot.log")"
rows() { grep -v '^#' "$1" | grep -v '^$' | tr '\n' ' '; }
# Without where, row_block 256 is the best of two points (CSR and ELL); with it, of CSR's one.
all=$(rows "$WORK/figs/all.dat")
csr=$(rows "$WORK/figs/csr.dat")
echo "all: $all"
echo "csr: $csr"
echo "$all" | grep -Eq '^64 [0-9.e+-]+ 1 256 [0-9.e+-]+ 2 $' || fail "all.dat: $all"
echo "$csr" | grep -Eq '^64 [0-9.e+-]+ 1 256 [0-9.e+-]+ 1 $' || fail "csr.dat: $csr"
grep -q "^# points: only those where .*kernel.* IN ('spmm.cpu.csr')$" "$WORK/figs/csr.dat" ||
  fail "csr.dat does not say which points it shows"
grep -q "^# points:" "$WORK/figs/all.dat" && fail "all.dat claims a restriction"
both=$(rows "$WORK/figs/both256.dat")
echo "both256: $both"
echo "$both" | grep -Eq '^"band" [0-9.e+-]+ [0-9.e+-]+ $' || fail "both256.dat: $both"

# A value no point has, and a field the store does not know: errors naming them.
sed 's/where: {kernel: spmm.cpu.csr}/where: {kernel: spmm.cpu.cs}/' "$WORK/w.yaml" >"$WORK/bad-value.yaml"
"$RT" plot --db "$WORK/s.db" --config "$WORK/bad-value.yaml" --out "$WORK/bad" >"$WORK/bad.log" 2>&1 &&
  fail "plot with a value no point has succeeded"
grep -q "no status-ok point of experiment 'where' meets .*'spmm.cpu.cs'" "$WORK/bad.log" ||
  fail "bad value: $(cat "$WORK/bad.log")"
sed 's/where: {kernel: spmm.cpu.csr}/where: {kernal: spmm.cpu.csr}/' "$WORK/w.yaml" >"$WORK/bad-field.yaml"
"$RT" plot --db "$WORK/s.db" --config "$WORK/bad-field.yaml" --out "$WORK/bad" >"$WORK/bad.log" 2>&1 &&
  fail "plot with an unknown field succeeded"
grep -q "where: kernal" "$WORK/bad.log" || fail "bad field: $(cat "$WORK/bad.log")"
# A where that is not a map is refused by validate, at its line and column.
sed 's/where: {kernel: spmm.cpu.csr}/where: spmm.cpu.csr/' "$WORK/w.yaml" >"$WORK/bad-kind.yaml"
"$RT" validate "$WORK/bad-kind.yaml" >"$WORK/validate.log" 2>&1 && fail "validate accepted where: TEXT"
grep -q "bad-kind.yaml:10:[0-9]*: .*plots\[1\].where" "$WORK/validate.log" ||
  fail "validate: $(cat "$WORK/validate.log")"
# The quick start's figure uses it.
"$RT" validate "$ROOT/configs/quickstart.yaml" >"$WORK/qs.log" 2>&1 || fail "quickstart.yaml: $(cat "$WORK/qs.log")"
grep -q "where: {kernel: spmm.cpu.csr}" "$ROOT/configs/quickstart.yaml" || fail "quickstart.yaml has no where"
echo "plot.where: ok"
