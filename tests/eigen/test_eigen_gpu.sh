# eigen.cuda.* end to end on a GPU host: configs/ci/eigen-gpu-small.yaml (LOBPCG and Lanczos: kbk,
# dag and graph schedules) and configs/ci/eigen-ooc-gpu-small.yaml (the out-of-core SpMM and X'Y
# microbenchmarks) through the rooftune binary, then the stores: every point the configs mean to
# run verified by the runner's gate, the graph points replaying captured graphs, and the
# microbenchmarks' byte counts exact. Exits 77 (skipped) where the CUDA kernels are unavailable
# (no GPU or no plugin), e.g. on CI.
#   $1 rooftune  $2 scratch folder  $3 eigen-gpu-small.yaml  $4 eigen-ooc-gpu-small.yaml
. "$(dirname "$0")/../rt_test_lib.sh"
rt_args RT WORK CFG OOC -- "$@"
rt_need_kernel "$RT" eigen.cuda.lobpcg
rt_scratch "$WORK"
# count_is DB WANT WHERE: WANT points of DB match WHERE (the count in got).
count_is() { rt_sql_is "$1" "$2" "SELECT COUNT(*) FROM points p WHERE $3"; }
bad() { sql "$1" "SELECT kernel, matrix, params, status, reason FROM points WHERE status NOT IN ('ok', 'infeasible')"; }
# run_ok CONFIG DB NAME WANT WHAT: CONFIG run into DB (its log WORK/NAME.log), WANT of its points ok.
run_ok() {
  "$RT" run "$1" --db "$2" >"$WORK/$3.log" 2>&1 || { cat "$WORK/$3.log"; fail "$3 run failed"; }
  count_is "$2" "$4" "status = 'ok'" || { bad "$2"; fail "$got of $4 $5 points ok"; }
}

db="$WORK/solvers.db"
# per matrix: lobpcg 12 combinations (2 graph ones with a pool: infeasible) + lanczos 8; the
# kernel/solver cross pairs are infeasible
run_ok "$CFG" "$db" solvers 36 solver
count_is "$db" 44 "status = 'infeasible'" || fail "$got infeasible solver points, expected 44"
count_is "$db" 4 "status = 'ok' AND params LIKE '%graph%' AND $(m graph_captures) >= 0 AND $(m graph_launches) > $(m graph_captures)" || fail "$got of 4 graph points replayed captured graphs"

db2="$WORK/ooc.db"
run_ok "$OOC" "$db2" ooc 36 microbenchmark
# 120 rows x 8 columns of doubles: X'Y streams X and Y in (15360 B) and G out (512 B); SpMM
# streams Y out (7680 B); in core nothing moves during a run
count_is "$db2" 16 "status = 'ok' AND kernel = 'eigen.cuda.xty_ooc' AND params LIKE '%ooc%' AND $(m h2d_bytes) = 15360 AND $(m d2h_bytes) = 512" || fail "$got of 16 streamed X'Y points moved exactly 15360 B in and 512 B out"
count_is "$db2" 16 "status = 'ok' AND kernel = 'eigen.cuda.spmm_ooc' AND params LIKE '%ooc%' AND $(m d2h_bytes) = 7680 AND $(m h2d_bytes) > 7680" || fail "$got of 16 streamed SpMM points moved Y out exactly (7680 B) and X and A in"
count_is "$db2" 4 "status = 'ok' AND params LIKE '%incore%' AND $(m h2d_bytes) = 0 AND $(m d2h_bytes) = 0" || fail "$got of 4 in-core points moved nothing during a run"
echo "eigen gpu: solvers and microbenchmarks verified"
sql "$db" "SELECT kernel, matrix, params, printf('%.4g ms', time_median_s * 1e3) FROM points WHERE status = 'ok' ORDER BY matrix, kernel" || true
sql "$db2" "SELECT kernel, matrix, params, printf('%.4g ms', time_median_s * 1e3) FROM points WHERE status = 'ok' ORDER BY matrix, kernel" || true
