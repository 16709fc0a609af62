# The sptrsv CI config through the rooftune binary under mpirun -np 3 (3 emulated nodes): every
# point is verified by the runner's gate, the distributed solve's messages are all received once,
# and a failing rank (fail_rank) makes its points fail with that rank named, without hanging.
#   $1 rooftune  $2 repository root  $3 scratch folder  $4 mpiexec
. "$(dirname "$0")/../rt_test_lib.sh"
rt_args RT ROOT WORK MPIEXEC -- "$@"
rt_scratch "$WORK"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export ROOFTUNE_NO_CUDA=1 OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
CFG="$ROOT/configs/ci/sptrsv-small.yaml"

"$MPIEXEC" --allow-run-as-root --oversubscribe -np 3 "$RT" run "$CFG" --db "$WORK/ok.db" \
  --ranks-per-node 1 > "$WORK/ok.log" 2>&1 || { cat "$WORK/ok.log"; fail "run failed"; }
total=$(sql "$WORK/ok.db" "SELECT count(*) FROM points")
ok=$(sql "$WORK/ok.db" "SELECT count(*) FROM points WHERE status = 'ok'")
[ "$total" -ge 12 ] || fail "only $total points"
[ "$ok" = "$total" ] || { sql "$WORK/ok.db" "SELECT kernel, status, reason FROM points"; fail "$ok of $total points ok"; }
bad=$(sql "$WORK/ok.db" "SELECT count(*) FROM points p JOIN metrics e ON e.point_id = p.id
        JOIN metrics r ON r.point_id = p.id WHERE p.kernel = 'sptrsv.cpu.distributed'
        AND e.name = 'messages_expected' AND r.name = 'messages_received' AND e.value != r.value")
[ "$bad" = 0 ] || fail "$bad points received other than the expected messages"
global=$(sql "$WORK/ok.db" "SELECT count(*) FROM metrics WHERE name = 'model_global_latency_us'")
[ "$global" -gt 0 ] || fail "no global-tier probe with 3 emulated nodes"

"$MPIEXEC" --allow-run-as-root --oversubscribe -np 3 "$RT" run "$CFG" --db "$WORK/fail.db" \
  --ranks-per-node 1 --set 'kernels.1.params.fail_rank=[2]' > "$WORK/fail.log" 2>&1 || true
n=$(sql "$WORK/fail.db" "SELECT count(*) FROM points WHERE kernel = 'sptrsv.cpu.distributed'
      AND status = 'error' AND reason LIKE '%rank 2%'")
[ "$n" -ge 1 ] || { cat "$WORK/fail.log"; sql "$WORK/fail.db" "SELECT kernel, status, reason FROM points"; fail "no error naming rank 2"; }
echo "sptrsv cli: $ok points verified; failing rank named in $n points"
