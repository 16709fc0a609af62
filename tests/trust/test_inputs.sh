# trust.inputs (issue 13, item 12): `validate` refuses a missing Matrix Market file and empty
# matrix or kernel lists; a matrix that cannot be built (0 x 0, nnz = 2^63) has its points recorded
# as errors saying why and the run goes on with the next matrix (exit 1, run 'complete').
#   $1 = rooftune, $2 = this folder, $3 = scratch folder
. "$(dirname "$0")/../rt_test_lib.sh"
set +e
rt_args RT HERE WORK -- "$@"
rt_scratch "$WORK"
head='experiment: {name: inputs}
problem: {K: [4], precision: [fp64]}
measure: {warmup: 0, min_reps: 2, max_reps: 3, max_time_s: 0.05}'
kernel='kernels: [{name: spmm.cpu.csr, params: {row_block: [32]}}]'

# expect_refused NAME EXPECTED-MESSAGE: validate exits 2 with the message.
expect_refused() {
  "$RT" validate "$WORK/$1.yaml" >"$WORK/$1.log" 2>&1
  local rc=$?
  [ "$rc" = 2 ] && grep -q "$2" "$WORK/$1.log" || fail "$1: exit $rc: $(cat "$WORK/$1.log")"
}
printf '%s\nmatrices: [{name: gone, file: missing.mtx}]\n%s\n' "$head" "$kernel" >"$WORK/missing.yaml"
expect_refused missing "missing.yaml:.*matrices\[0\].file: cannot read '$WORK/missing.mtx': No such file"
printf '%s\nmatrices: []\n%s\n' "$head" "$kernel" >"$WORK/no-matrix.yaml"
expect_refused no-matrix "matrices: no matrix is listed"
printf '%s\nmatrices: [{name: b, generator: banded, rows: 100, bandwidth: 3}]\nkernels: []\n' \
  "$head" >"$WORK/no-kernel.yaml"
expect_refused no-kernel "kernels: no kernel is listed"

# Two bad matrices between two good ones: 2 error points, 2 measured, the run complete, exit 1.
printf '%%%%MatrixMarket matrix coordinate real general\n0 0 0\n' >"$WORK/zero.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 9223372036854775808\n' >"$WORK/huge.mtx"
cat >"$WORK/mixed.yaml" <<YAML
$head
matrices:
  - {name: good1, generator: banded, rows: 200, bandwidth: 3}
  - {name: zero, file: zero.mtx}
  - {name: huge, file: huge.mtx}
  - {name: good2, generator: banded, rows: 300, bandwidth: 3}
$kernel
YAML
"$RT" validate "$WORK/mixed.yaml" >"$WORK/v.log" 2>&1 || fail "validate of readable files: $(cat "$WORK/v.log")"
"$RT" run "$WORK/mixed.yaml" --db "$WORK/s.db" >"$WORK/run.log" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "run with bad matrices: exit $rc, want 1: $(tail -5 "$WORK/run.log")"
got=$(sql "$WORK/s.db" "SELECT matrix || ':' || status FROM points ORDER BY id" | tr '\n' ' ')
[ "$got" = "good1:ok zero:error huge:error good2:ok " ] || fail "points: $got"
sql "$WORK/s.db" "SELECT reason FROM points WHERE matrix = 'zero'" | grep -q "zero.mtx:2: size line: a 0 x 0 matrix has nothing to multiply" ||
  fail "the 0 x 0 reason: $(sql "$WORK/s.db" "SELECT reason FROM points WHERE matrix = 'zero'")"
sql "$WORK/s.db" "SELECT reason FROM points WHERE matrix = 'huge'" | grep -q "nonzeros '9223372036854775808' is beyond the 64-bit integer range" ||
  fail "the 2^63 reason: $(sql "$WORK/s.db" "SELECT reason FROM points WHERE matrix = 'huge'")"
[ "$(sql "$WORK/s.db" "SELECT status FROM runs")" = complete ] || fail "the run is not 'complete'"
echo "trust.inputs: ok"
