# sptrsv.cuda.distributed end to end on a GPU host: configs/ci/sptrsv-gpu-dist-small.yaml through
# the rooftune binary under mpirun -np 2 (two emulated nodes: the messages cross the global tier),
# then the store: every point verified by the runner's gate, the residual at rounding level, and
# every rank's messages received exactly once with none pending. Exits 77 (skipped) where the CUDA
# kernels are unavailable (no GPU or no plugin), e.g. on CI.
#   $1 rooftune  $2 scratch folder  $3 config  $4 mpiexec
. "$(dirname "$0")/../rt_test_lib.sh"
# shellcheck source=sptrsv_lib.sh
. "$(dirname "$0")/sptrsv_lib.sh"
sptrsv_mpi_start sptrsv.cuda.distributed 1 "$@"
db="$WORK/dist.db"
# A lost message must fail the run (poll_timeout_s), and a hang the test (the ctest TIMEOUT).
"$MPIEXEC" --allow-run-as-root --oversubscribe -np 2 "$RT" run "$CFG" --db "$db" \
  --ranks-per-node 1 >"$WORK/run.log" 2>&1 || { cat "$WORK/run.log"; fail "run failed"; }
# 2 matrices x 2 nrhs x 2 max_supernode x (1 cpu + 8 cuda: 2 block sizes x 2 shared x 2 transports)
sptrsv_all_ok "$db" 72
msg=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE kernel = 'sptrsv.cuda.distributed'
        AND $(m messages_received) = $(m messages_expected) AND $(m messages_pending) = 0
        AND $(m messages_duplicated) = 0 AND $(m messages_total) > 0")
[ "$msg" = 64 ] || fail "$msg of 64 GPU points received every expected message exactly once"
# Half of them through CUDA IPC (the same checks: the counters are the IPC transport's).
ipc=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE kernel = 'sptrsv.cuda.distributed'
        AND params LIKE '%ipc%' AND status = 'ok' AND $(m messages_received) = $(m messages_expected)
        AND $(m messages_duplicated) = 0")
[ "$ipc" = 32 ] || fail "$ipc of 32 transport ipc points verified with every message received once"
echo "sptrsv gpu dist: $ok points verified"
sql "$db" "SELECT kernel, matrix, params, printf('%.4g ms', time_median_s * 1e3) FROM points ORDER BY matrix, kernel" 2>/dev/null || true
