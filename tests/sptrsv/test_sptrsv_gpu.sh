# sptrsv.cuda.* end to end on a GPU host: configs/ci/sptrsv-gpu-small.yaml through the rooftune
# binary on one rank, then the store: every point verified by the runner's gate (X against the
# family's reference solve), each kernel's residual at rounding level, cusparseSpSV's analysis
# stored apart from the solve, the level-set kernel launching once per DAG level (fewer times with
# merge_levels) and the synchronisation-free ones once. Exits 77 (skipped) where the CUDA kernels are unavailable (no GPU
# or no plugin), e.g. on CI.
#   $1 rooftune  $2 scratch folder  $3 config
. "$(dirname "$0")/../rt_test_lib.sh"
# shellcheck source=sptrsv_lib.sh
. "$(dirname "$0")/sptrsv_lib.sh"
rt_args RT WORK CFG -- "$@"
rt_need_kernel "$RT" sptrsv.cuda.syncfree
rt_scratch "$WORK"
db="$WORK/gpu.db"
# A hang of the syncfree kernel must fail the test, not stall CI: the ctest TIMEOUT is the bound.
"$RT" run "$CFG" --db "$db" >"$WORK/run.log" 2>&1 || { cat "$WORK/run.log"; fail "run failed"; }
# 2 matrices x 2 nrhs x 2 max_supernode x (1 cusparse + 4 levelset + 2 syncfree + 4 supernodal)
sptrsv_all_ok "$db" 88
rt_sql_is "$db" 8 "SELECT COUNT(*) FROM points p WHERE kernel = 'sptrsv.cuda.cusparse' AND $(m analysis_s) > 0" || fail "$got of 8 cusparse points stored analysis_s"
rt_sql_is "$db" 16 "SELECT COUNT(*) FROM points p WHERE kernel = 'sptrsv.cuda.levelset' AND json_extract(params, '$.merge_levels') = 0 AND $(m launches) = $(m dag_levels) AND $(m launches) > 1" || fail "$got of 16 levelset points launched once per level"
# The 256-thread merged points: a factor's last levels (one row each, down its top supernode) share
# a launch, so there are fewer launches than levels.
rt_sql_is "$db" 8 "SELECT COUNT(*) FROM points p WHERE kernel = 'sptrsv.cuda.levelset' AND json_extract(params, '$.merge_levels') = 1 AND json_extract(params, '$.threads_per_block') = 256 AND $(m launches) < $(m dag_levels) AND $(m launches) >= 1" || fail "$got of 8 merged 256-thread levelset points launched fewer times than levels"
rt_sql_is "$db" 48 "SELECT COUNT(*) FROM points p WHERE kernel IN ('sptrsv.cuda.syncfree', 'sptrsv.cuda.supernodal') AND $(m launches) = 1" || fail "$got of 48 syncfree and supernodal points launched once"
# The critical-path model beside every supernodal and unmerged level-set point.
rt_sql_is "$db" 48 "SELECT COUNT(*) FROM points p WHERE (kernel = 'sptrsv.cuda.supernodal' OR (kernel = 'sptrsv.cuda.levelset' AND json_extract(params, '$.merge_levels') = 0)) AND $(m model_time_s) > 0 AND $(m model_over_measured) > 0" || fail "$got of 48 supernodal and level-set points stored model_time_s and model_over_measured"
echo "sptrsv gpu: $ok points verified"
sql "$db" "SELECT kernel, matrix, params, printf('%.4g ms', time_median_s * 1e3), printf('model/measured %.3g', $(m model_over_measured)) FROM points p ORDER BY matrix, kernel" 2>/dev/null || true
