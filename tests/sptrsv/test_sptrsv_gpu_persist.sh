# sptrsv.cuda.persistent on a GPU host (configs/ci/sptrsv-gpu-persistent-small.yaml):
#   - one rank: every persistent, supernodal and cuSPARSE point verified (the supernodal solve is
#     forward only: its backward points infeasible, saying so), residuals at rounding level, one
#     launch per execution, the model (model_time_s, model_over_measured) and its measured costs
#     stored beside every persistent point;
#   - with two or more GPUs, mpirun -np 2 (one rank per GPU): the same, with x or partial sums
#     crossing between the GPUs (x_messages + partial_messages > 0) and the link probe stored;
#     then the fallbacks: both ranks on one GPU is infeasible (one GPU per rank), and ranks that
#     cannot see each other's GPU (CUDA_VISIBLE_DEVICES of one device each) are infeasible too,
#     both naming sptrsv.cuda.distributed, never an error or a hang.
# Exits 77 (skipped) where the CUDA kernels are unavailable.
#   $1 rooftune  $2 scratch folder  $3 config  $4 mpiexec
. "$(dirname "$0")/../rt_test_lib.sh"
# shellcheck source=sptrsv_lib.sh
. "$(dirname "$0")/sptrsv_lib.sh"
sptrsv_mpi_start sptrsv.cuda.persistent 2 "$@"
K="kernel = 'sptrsv.cuda.persistent'"
check() { # $1 store, $2 expected persistent points
  local db=$1 want=$2 ok res md
  ok=$(sql "$db" "SELECT COUNT(*) FROM points WHERE $K AND status = 'ok'")
  [ "$ok" = "$want" ] || { sql "$db" "SELECT params, problem, status, reason FROM points WHERE $K AND status != 'ok' LIMIT 5"; fail "$db: $ok of $want persistent points verified"; }
  res=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE status = 'ok' AND NOT (IFNULL($(m residual), 1) < 1e-12)")
  [ "$res" = 0 ] || fail "$db: $res verified points with a residual above 1e-12"
  md=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE $K AND $(m model_time_s) > 0 AND $(m model_over_measured) > 0 AND $(m model_unit_gbs) > 0 AND $(m model_peak_gbs) > 0 AND $(m launches) = 1")
  [ "$md" = "$want" ] || fail "$db: $md of $want persistent points with the model, its costs and one launch"
  local other
  other=$(sql "$db" "SELECT COUNT(*) FROM points WHERE NOT $K AND status NOT IN ('ok', 'infeasible')")
  [ "$other" = 0 ] || fail "$db: $other baseline points neither verified nor infeasible"
}
db="$WORK/one.db"
"$RT" run "$CFG" --db "$db" >"$WORK/one.log" 2>&1 || { cat "$WORK/one.log"; fail "one-GPU run failed"; }
# 2 matrices x 3 nrhs x 2 directions x (3 layouts x 2 maps x 2 leaf)
check "$db" 144
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l || echo 1)
if [ "$ngpu" -lt 2 ]; then
  echo "sptrsv gpu persistent: 144 points verified on one GPU ($ngpu GPU: the two-GPU part needs two)"
  exit 0
fi
db="$WORK/two.db"
"$MPIEXEC" --allow-run-as-root --oversubscribe --bind-to none -np 2 "$RT" run "$CFG" --db "$db" \
  >"$WORK/two.log" 2>&1 || { cat "$WORK/two.log"; fail "two-GPU run failed"; }
check "$db" 144
x=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE $K AND $(m parts) = 2 AND $(m x_messages) + $(m partial_messages) > 0 AND $(m model_link_latency_us) > 0")
[ "$x" -ge 100 ] || fail "only $x two-GPU points moved data between the GPUs with the link probed"
# Fallbacks: one GPU for both ranks, and ranks that cannot see each other's GPU.
small=(--set 'problem.nrhs=[1]' --set 'problem.solve=[forward]' --set 'kernels.2.params.layout=[px1]'
       --set 'kernels.2.params.map=[cyclic]' --set 'kernels.2.params.leaf_kb=[0]')
db="$WORK/shared.db"
CUDA_VISIBLE_DEVICES=0 "$MPIEXEC" --allow-run-as-root --oversubscribe -x CUDA_VISIBLE_DEVICES -np 2 \
  "$RT" run "$CFG" --db "$db" "${small[@]}" >"$WORK/shared.log" 2>&1 || { cat "$WORK/shared.log"; fail "shared-GPU run failed"; }
n=$(sql "$db" "SELECT COUNT(*) FROM points WHERE $K AND status = 'infeasible' AND reason LIKE '%share the GPU%' AND reason LIKE '%sptrsv.cuda.distributed%'")
[ "$n" = 2 ] || { sql "$db" "SELECT status, reason FROM points WHERE $K"; fail "$n of 2 shared-GPU points infeasible with the reason"; }
db="$WORK/hidden.db"
"$MPIEXEC" --allow-run-as-root --oversubscribe -np 2 bash -c \
  'CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' "$RT" run "$CFG" --db "$db" \
  "${small[@]}" >"$WORK/hidden.log" 2>&1 || { cat "$WORK/hidden.log"; fail "hidden-GPU run failed"; }
n=$(sql "$db" "SELECT COUNT(*) FROM points WHERE $K AND status = 'infeasible' AND reason LIKE '%not visible%'")
[ "$n" = 2 ] || { sql "$db" "SELECT status, reason FROM points WHERE $K"; fail "$n of 2 hidden-GPU points infeasible with the reason"; }
echo "sptrsv gpu persistent: 144 points on one GPU and 144 on two verified; shared and hidden GPUs refused"
sql "$WORK/two.db" "SELECT matrix, json_extract(problem, '\$.solve'), json_extract(problem, '\$.nrhs'), json_extract(params, '\$.layout'), json_extract(params, '\$.map'), printf('%.4g ms', time_median_s * 1e3), printf('model/measured %.3g', $(m model_over_measured)) FROM points p WHERE $K ORDER BY 1, 2, 3, time_median_s" 2>/dev/null | head -40 || true
