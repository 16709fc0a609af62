# Bad input gets a clear error, never a crash or a hang: a process grid that does not divide the
# ranks and a tile grid finer than the matrix are infeasible points with the reason; SpGEMM of a
# non-square matrix stops the run with a message; an out-of-domain parameter fails validation.
# Args: rooftune, this folder, scratch folder, mpiexec.
. "$(dirname "$0")/../rt_test_lib.sh"
rt_args RT HERE WORK MPIEXEC -- "$@"
rt_scratch "$WORK"
rt_mpi_env
cat >"$WORK/grid.yaml" <<'YAML'
experiment: {name: spmm2d-bad-grid}
matrices: [{name: tiny, generator: banded, rows: 40, bandwidth: 3}]
problem: {N: [8], precision: [fp64]}
kernels:
  - {name: spmm2d.cpu.stationary_c, params: {pr: [3]}}
  - {name: spmm2d.cpu.summa, params: {pr: [0], refine: [64]}}
  - {name: spmm2d.cpu.ws_random, params: {pr: [2]}}
measure: {warmup: 0, min_reps: 1, max_reps: 1}
YAML
db="$WORK/grid.db"
"$MPIEXEC" --allow-run-as-root --oversubscribe -np 2 "$RT" run "$WORK/grid.yaml" --db "$db" \
  >"$WORK/grid.log" 2>&1 || fail "run with infeasible grids failed: $(tail -3 "$WORK/grid.log")"
rt_sql_has "$db" "SELECT reason FROM points WHERE kernel = 'spmm2d.cpu.stationary_c' AND status = 'infeasible'" "pr = 3 does not divide the 2 ranks" || fail "pr = 3 on 2 ranks: '$got'"
rt_sql_has "$db" "SELECT reason FROM points WHERE kernel = 'spmm2d.cpu.summa' AND status = 'infeasible'" "some tiles would be empty" || fail "refine 64 on 40 rows: '$got'"
ok=$(sql "$db" "SELECT status FROM points WHERE kernel = 'spmm2d.cpu.ws_random'")
[ "$ok" = ok ] || fail "pr = 2 on 2 ranks (a 2 x 1 grid) should run: $ok"

cat >"$WORK/rect.yaml" <<'YAML'
experiment: {name: spgemm2d-rect}
matrices: [{name: rect, generator: uniform, rows: 60, cols: 50, nnz_per_row: 3}]
kernels: [{name: spgemm2d.cpu.summa}]
measure: {warmup: 0, min_reps: 1, max_reps: 1}
YAML
set +e
"$MPIEXEC" --allow-run-as-root --oversubscribe -np 2 "$RT" run "$WORK/rect.yaml" --db "$WORK/rect.db" \
  >"$WORK/rect.log" 2>&1
rc=$?
set -e
[ "$rc" != 0 ] || fail "SpGEMM of a 60 x 50 matrix did not fail"
grep -q "needs a square matrix; this one is 60 x 50" "$WORK/rect.log" || fail "no clear message: $(tail -3 "$WORK/rect.log")"

cat >"$WORK/dom.yaml" <<'YAML'
experiment: {name: spmm2d-bad-domain}
matrices: [{name: tiny, generator: banded, rows: 40, bandwidth: 3}]
kernels: [{name: spmm2d.cpu.stationary_a, params: {queue_slots: [0]}}]
YAML
rt_validate_refuses "$RT" "$WORK/dom.yaml" queue_slots "queue_slots = 0"
echo "spmm2d bad input: ok"
