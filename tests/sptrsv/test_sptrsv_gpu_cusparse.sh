# sptrsv.cuda.cusparse's option space on a GPU host (configs/ci/sptrsv-gpu-cusparse.yaml, one
# rank): every point verified by the runner's gate or infeasible for a stated reason (SpSV with
# row-major operands; SpSM on sliced ELL; a combination cuSPARSE refuses, with its status), never an error; SpSV on
# CSR with either triangle stored and both index widths verified in both directions, SpSM too;
# the transposed operation used exactly where the stored triangle is the other one. Exits 77
# (skipped) where the CUDA kernels are unavailable.
#   $1 rooftune  $2 scratch folder  $3 config
. "$(dirname "$0")/../rt_test_lib.sh"
rt_args RT WORK CFG -- "$@"
rt_need_kernel "$RT" sptrsv.cuda.cusparse
rt_scratch "$WORK"
j() { echo "json_extract(params, '\$.$1')"; }
db="$WORK/cusparse.db"
"$RT" run "$CFG" --db "$db" >"$WORK/run.log" 2>&1 || { cat "$WORK/run.log"; fail "run failed"; }
total=$(sql "$db" "SELECT COUNT(*) FROM points")
# 1 matrix x 2 nrhs x 2 directions x 2 api x 3 formats x 2 storage x 2 index x 2 layout
[ "$total" = 192 ] || fail "$total points, expected 192"
rt_sql_is "$db" 0 "SELECT COUNT(*) FROM points WHERE status NOT IN ('ok', 'infeasible')" || { sql "$db" "SELECT params, problem, status, reason FROM points WHERE status NOT IN ('ok', 'infeasible') LIMIT 5"; fail "$got points neither verified nor infeasible"; }
rt_sql_is "$db" 0 "SELECT COUNT(*) FROM points WHERE status = 'infeasible' AND reason NOT LIKE '%layout row is cusparseSpSM%' AND reason NOT LIKE '%does not support%' AND reason NOT LIKE '%sliced ELL would store%' AND reason NOT LIKE '%cusparseSpSM takes CSR and COO%'" || { sql "$db" "SELECT reason FROM points WHERE status = 'infeasible' LIMIT 3"; fail "$got infeasible points without a known reason"; }
rt_sql_is "$db" 48 "SELECT COUNT(*) FROM points WHERE $(j api) = 'spsv' AND $(j layout) = 'row' AND status = 'infeasible'" || fail "$got of 48 SpSV row-major points infeasible"
rt_sql_is "$db" 16 "SELECT COUNT(*) FROM points WHERE $(j api) = 'spsv' AND $(j format) = 'csr' AND $(j layout) = 'col' AND status = 'ok'" || { sql "$db" "SELECT params, problem, reason FROM points WHERE $(j api) = 'spsv' AND $(j format) = 'csr' AND $(j layout) = 'col' AND status != 'ok' LIMIT 4"; fail "$got of 16 SpSV CSR points verified"; }
# cusparseSpSM on sliced ELL: refused at check with its reason (the library's analysis fails there)
rt_sql_is "$db" 32 "SELECT COUNT(*) FROM points WHERE $(j api) = 'spsm' AND $(j format) = 'sell' AND status = 'infeasible' AND reason LIKE '%cusparseSpSM takes CSR and COO%'" || fail "$got of 32 SpSM sliced-ELL points refused with the reason"
spsm=$(sql "$db" "SELECT COUNT(*) FROM points WHERE $(j api) = 'spsm' AND status = 'ok'")
[ "$spsm" -gt 0 ] || fail "no cusparseSpSM point verified"
rt_sql_is "$db" 0 "SELECT COUNT(*) FROM points p WHERE status = 'ok' AND NOT (IFNULL($(m residual), 1) < 1e-12)" || fail "$got verified points with a residual above 1e-12"
rt_sql_is "$db" 0 "SELECT COUNT(*) FROM points p WHERE status = 'ok' AND $(m transposed_op) != ((json_extract(problem, '\$.solve') = 'backward') != ($(j storage) = 'upper'))" || fail "$got points used the wrong operation for their stored triangle"
echo "sptrsv gpu cusparse: $(sql "$db" "SELECT COUNT(*) FROM points WHERE status = 'ok'") points verified, $(sql "$db" "SELECT COUNT(*) FROM points WHERE status = 'infeasible'") infeasible with their reason"
sql "$db" "SELECT matrix, json_extract(problem, '\$.solve'), json_extract(problem, '\$.nrhs'), $(j api), $(j format), $(j storage), $(j index), $(j layout), status, printf('%.4g ms', time_median_s * 1e3) FROM points ORDER BY 1, 2, 3, time_median_s" 2>/dev/null | head -60 || true
