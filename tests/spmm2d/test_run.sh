# End to end under mpirun: configs/ci/stationary-spmm-small.yaml (every spmm2d kernel) and
# spgemm-small.yaml (every spgemm2d kernel) through `rooftune run` on NP ranks, then the store:
# every point verified, work stealing ran each task exactly once, stationary C and the SUMMAs
# moved exactly the bytes their model predicts, and every SpGEMM variant found the same C.
# Args: rooftune, this folder, scratch folder, mpiexec, NP, the SpMM config.
# shellcheck source=spmm2d_lib.sh
. "$(dirname "$0")/spmm2d_lib.sh"
spmm2d_start "" "$@"
# Two ranks per emulated node from 4 ranks up (all three tiers in play), one per node below.
rpn=1
[ "$NP" -ge 4 ] && rpn=2
run() { "$MPIEXEC" --allow-run-as-root --oversubscribe -np "$NP" "$RT" run "$@" --ranks-per-node "$rpn"; }

db="$WORK/spmm.db"
run "$CFG" --db "$db" >"$WORK/spmm.log" 2>&1 || fail "spmm run failed: $(tail -5 "$WORK/spmm.log")"
n=$(sql "$db" "SELECT COUNT(*) FROM points")
[ "$n" = 38 ] || fail "$n SpMM points, want 38 (2 matrices x 19 kernel points)"
bad=$(sql "$db" "SELECT kernel || ' ' || params || ': ' || status || ' ' || IFNULL(reason,'') FROM points WHERE status != 'ok' OR verified != 1 LIMIT 3")
[ -z "$bad" ] || fail "points not ok: $bad"
ranks=$(sql "$db" "SELECT DISTINCT ranks FROM points")
[ "$ranks" = "$NP" ] || fail "points recorded with $ranks ranks"
spmm2d_every_kernel "$db" cpu "" ""
# Work stealing: tasks executed (summed over ranks) equal the tasks of the grid, and > 0.
ws=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE kernel LIKE '%.ws_%' AND $(m tasks_total) > 0 AND $(m tasks_total) = $(m tasks_executed)")
[ "$ws" = 4 ] || fail "$ws of 4 work-stealing points ran every task exactly once"
# The breakdown is there for every point, max >= avg.
bd=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE $(m compute_s_max) >= $(m compute_s_avg) AND $(m imbalance_s_max) >= 0 AND $(m flops_imbalance) >= 1")
[ "$bd" = 38 ] || fail "$bd of 38 points have a consistent breakdown"
# Measured bytes per tier equal the model's for the variants without queues.
rt_net_bytes_modelled "$db" "kernel IN ('spmm2d.cpu.stationary_c', 'spmm2d.cpu.summa', 'spmm2d.cpu.summa_a')" \
  "kernel || ' ' || params || ' ' || matrix"
if [ "$NP" -gt 1 ]; then
  moved=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE $(m net_bytes_socket_sum) + $(m net_bytes_global_sum) > 0")
  [ "$moved" = 38 ] || fail "only $moved of 38 points moved bytes between ranks"
  # Stationary A sends partial C tiles through the queues on any grid (on a 1 x P grid stationary
  # B never does: B(k,j) and C(i,j) share the process column).
  q=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE kernel = 'spmm2d.cpu.stationary_a' AND $(m queue_messages) > 0")
  [ "$q" = 4 ] || fail "$q of 4 stationary A points used the remote queues"
fi
if [ "$NP" -ge 4 ]; then
  g=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE kernel = 'spmm2d.cpu.stationary_c' AND $(m net_bytes_global_sum) > 0")
  [ "$g" = 16 ] || fail "stationary C crossed emulated nodes in only $g of 16 points"
  grids=$(sql "$db" "SELECT COUNT(DISTINCT CAST($(m grid_pr) AS INT) || 'x' || CAST($(m grid_pc) AS INT)) FROM points p")
  [ "$grids" = 2 ] || fail "$grids distinct process grids, want 2 (most square and 1 x $NP)"
fi

spmm2d_spgemm_run spgemm-small.yaml
echo "spmm2d run np $NP: ok"
