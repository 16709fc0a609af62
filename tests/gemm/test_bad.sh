# Bad input gets a clear error, never a crash or a hang: a budget too small for any block and a
# grid that does not divide the ranks are infeasible points with the reason; a rank that fails
# (test hook fail_rank) makes the point an error naming it and the run ends with status 1 but
# complete; out-of-domain parameters fail validation naming the parameter.
# Args: rooftune, scratch folder, mpiexec.
. "$(dirname "$0")/../rt_test_lib.sh"
rt_args RT WORK MPIEXEC -- "$@"
rt_scratch "$WORK"
rt_mpi_env
cat >"$WORK/bad.yaml" <<'YAML'
experiment: {name: gemm-bad}
matrices: [{name: dense, generator: banded, rows: 4, bandwidth: 1}]
problem: {N: [24], precision: [fp32]}
kernels:
  - {name: gemm.cpu.tiled, params: {t: [4], gpu_mem_budget: [256]}}
  - {name: gemm.cpu.tiled, params: {t: [4], gpus: [2], c: [3]}}
  - {name: gemm.cpu.summa, params: {t: [4], p: [3]}}
  - {name: gemm.cpu.tiled, params: {t: [4], fail_rank: [1]}}
  - {name: gemm.cpu.summa, params: {t: [4], fail_rank: [0]}}
  - {name: gemm.cpu.tiled, params: {t: [4]}}
measure: {warmup: 0, min_reps: 1, max_reps: 1}
YAML
db="$WORK/bad.db"
set +e
timeout 120 "$MPIEXEC" --allow-run-as-root --oversubscribe -np 2 "$RT" run "$WORK/bad.yaml" \
  --db "$db" >"$WORK/bad.log" 2>&1
rc=$?
set -e
[ "$rc" = 124 ] && fail "the run hung"
[ "$rc" = 1 ] || fail "exit status $rc, want 1 (points in error): $(tail -3 "$WORK/bad.log")"
rt_sql_has "$db" "SELECT reason FROM points WHERE params LIKE '%\"gpu_mem_budget\":256%'" "gpu_mem_budget of 4 tiles is too small" || fail "small budget: '$got'"
rt_sql_has "$db" "SELECT reason FROM points WHERE params LIKE '%\"c\":3%'" "c = 3 is not a multiple of the 2 GPU(s)" || fail "c = 3, 2 GPUs: '$got'"
rt_sql_has "$db" "SELECT reason FROM points WHERE kernel = 'gemm.cpu.summa' AND params LIKE '%\"p\":3%'" "p = 3 does not divide the 2 ranks" || fail "p = 3: '$got'"
rt_sql_has "$db" "SELECT status || ': ' || reason FROM points WHERE kernel = 'gemm.cpu.tiled' AND params LIKE '%\"fail_rank\":1%'" "^error: .*rank 1 failed: injected failure on rank 1" || fail "failing rank 1: '$got'"
rt_sql_has "$db" "SELECT status || ': ' || reason FROM points WHERE kernel = 'gemm.cpu.summa' AND params LIKE '%\"fail_rank\":0%'" "^error: .*rank 0 failed: injected failure on rank 0" || fail "failing rank 0: '$got'"
# The points after the failures still ran and verified; the run is complete.
st=$(sql "$db" "SELECT status FROM points WHERE kernel = 'gemm.cpu.tiled' AND params LIKE '%\"fail_rank\":-1%' AND params LIKE '%\"gpu_mem_budget\":0%' AND params LIKE '%\"gpus\":1%'")
[ "$st" = ok ] || fail "the point after the failures: '$st'"
[ "$(sql "$db" "SELECT status FROM runs")" = complete ] || fail "run not complete"

cat >"$WORK/dom.yaml" <<'YAML'
experiment: {name: gemm-bad-domain}
matrices: [{name: dense, generator: banded, rows: 4, bandwidth: 1}]
kernels: [{name: gemm.cpu.tiled, params: {lookahead: [-2]}}]
YAML
rt_validate_refuses "$RT" "$WORK/dom.yaml" lookahead "lookahead = -2"
# Garbage in the new parameters: a transport, a math mode, a GPU count and tail splits outside
# their domains (0, negative, not a number).
for bad in "gemm.cpu.tiled:transport:[tcp]" "gemm.cuda.cublas:math_mode:[fast]" \
  "gemm.cuda.cublasxt:xt_gpus:[-1]" "gemm.cpu.tiled:ipc_deny:[2]" "gemm.cpu.tiled:tail_split:[0]" \
  "gemm.cuda.tiled:tail_split:[-3]" "gemm.cpu.tiled:tail_split:[two]"; do
  IFS=: read -r kern param value <<<"$bad"
  printf 'experiment: {name: gemm-bad-param}\nmatrices: [{name: dense, generator: banded, rows: 4, bandwidth: 1}]\nkernels: [{name: %s, params: {%s: %s}}]\n' \
    "$kern" "$param" "$value" >"$WORK/param.yaml"
  set +e
  "$RT" validate "$WORK/param.yaml" >"$WORK/param.log" 2>&1
  rc=$?
  set -e
  [ "$rc" = 2 ] || fail "$kern $param = $value: validate exited $rc, want 2"
  grep -q "$param" "$WORK/param.log" || fail "no message naming $param: $(cat "$WORK/param.log")"
done
echo "gemm bad input: ok"
