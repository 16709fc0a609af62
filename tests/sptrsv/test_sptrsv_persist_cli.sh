# sptrsv.cpu.persistent through the rooftune binary (configs/ci/sptrsv-persistent-small.yaml):
#   - mpirun -np 2 on one node: every point verified by the runner's gate (forward and backward,
#     nrhs 1, 8 and 32, every layout and map, leaf tasks or not), residuals at rounding level,
#     messages between the two ranks in the plans that need them; sptrsv.cpu.levelset's backward
#     points infeasible, saying why;
#   - mpirun -np 4 as two emulated nodes of two ranks: the parts cannot share memory across the
#     nodes, so parts = 0 (all four) is infeasible naming sptrsv.cpu.distributed, while parts = 2
#     (ranks 0 and 1, one node) runs and verifies, the other two ranks waiting;
#   - parts beyond the job (4 on 2 ranks) is infeasible with the counts;
#   - a bad layout or solve is a config error (exit 2) naming it.
#   $1 rooftune  $2 repository root  $3 scratch folder  $4 mpiexec
. "$(dirname "$0")/../rt_test_lib.sh"
rt_args RT ROOT WORK MPIEXEC -- "$@"
rt_scratch "$WORK"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export ROOFTUNE_NO_CUDA=1 OMP_WAIT_POLICY=passive
CFG="$ROOT/configs/ci/sptrsv-persistent-small.yaml"
K="kernel = 'sptrsv.cpu.persistent'"

db="$WORK/np2.db"
"$MPIEXEC" --allow-run-as-root --oversubscribe -np 2 "$RT" run "$CFG" --db "$db" --quiet \
  --ranks-per-node 2 >"$WORK/np2.log" 2>&1 || { cat "$WORK/np2.log"; fail "np 2 run failed"; }
rt_sql_is "$db" 144 "SELECT COUNT(*) FROM points WHERE $K AND status = 'ok'" || { sql "$db" "SELECT params, problem, status, reason FROM points WHERE $K AND status != 'ok' LIMIT 5"; fail "$got of 144 persistent points verified"; }
rt_sql_is "$db" 0 "SELECT COUNT(*) FROM points p WHERE $K AND NOT (IFNULL($(m residual), 1) < 1e-12)" || fail "$got persistent points with a residual above 1e-12 (or none stored)"
msg=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE $K AND $(m parts) = 2 AND $(m x_messages) + $(m partial_messages) > 0")
[ "$msg" -ge 100 ] || fail "only $msg two-part points moved x or partial sums between the ranks"
rt_sql_is "$db" 6 "SELECT COUNT(*) FROM points WHERE kernel = 'sptrsv.cpu.levelset' AND status = 'infeasible' AND reason LIKE '%solve: forward%'" || fail "$got of 6 backward level-set points infeasible with the reason"

db="$WORK/np4.db"
"$MPIEXEC" --allow-run-as-root --oversubscribe -np 4 "$RT" run "$CFG" --db "$db" --quiet \
  --ranks-per-node 2 --set 'problem.nrhs=[1]' --set 'kernels.1.params.parts=[0,2]' \
  --set 'kernels.1.params.leaf_kb=[4]' >"$WORK/np4.log" 2>&1 || { cat "$WORK/np4.log"; fail "np 4 run failed"; }
inf=$(sql "$db" "SELECT COUNT(*) FROM points WHERE $K AND params LIKE '%\"parts\":0%' AND status = 'infeasible' AND reason LIKE '%sptrsv.cpu.distributed%'")
ok=$(sql "$db" "SELECT COUNT(*) FROM points WHERE $K AND params LIKE '%\"parts\":2%' AND status = 'ok'")
[ "$inf" = 24 ] || { sql "$db" "SELECT params, status, reason FROM points WHERE $K LIMIT 4"; fail "$inf of 24 four-part points across two nodes infeasible naming the fallback"; }
[ "$ok" = 24 ] || fail "$ok of 24 two-part points on one node verified"

db="$WORK/over.db"
"$MPIEXEC" --allow-run-as-root --oversubscribe -np 2 "$RT" run "$CFG" --db "$db" --quiet \
  --set 'problem.nrhs=[1]' --set 'problem.solve=[forward]' --set 'kernels.1.params.parts=[4]' \
  --set 'kernels.1.params.layout=[px1]' >"$WORK/over.log" 2>&1 || { cat "$WORK/over.log"; fail "parts 4 run failed"; }
n=$(sql "$db" "SELECT COUNT(*) FROM points WHERE $K AND status = 'infeasible' AND reason LIKE '%parts = 4 but the job has 2 ranks%'")
[ "$n" -ge 1 ] || { sql "$db" "SELECT status, reason FROM points WHERE $K LIMIT 3"; fail "parts beyond the job not infeasible with the counts"; }
# Garbage in the new parameters: a bad value is a config error (exit 2) naming the parameter.
refused() { # $1 name, $2 --set
  local rc=0
  "$RT" run "$CFG" --db "$WORK/bad.db" --set "$2" >"$WORK/bad-$1.log" 2>&1 || rc=$?
  [ "$rc" = 2 ] || { cat "$WORK/bad-$1.log"; fail "a bad $1 exited $rc, not 2"; }
  grep -q "$1" "$WORK/bad-$1.log" || { cat "$WORK/bad-$1.log"; fail "the bad $1's error does not name it"; }
}
refused layout 'kernels.1.params.layout=[3d]'
refused solve 'problem.solve=[sideways]'
echo "sptrsv persistent cli: 144 + 24 points verified, across-node and oversized parts refused, bad values named"
