# End to end: the paper config and the tiny config validate, bad configs fail with their
# position, the tiny config runs (CPU points verified, categories recorded, CUDA kernels skipped
# without a GPU), a non-square layer fails the run cleanly, and 2 MPI ranks split the features.
#   $1 = rooftune, $2 = tests/spdnn, $3 = scratch folder, $4 = configs/paper, $5 = mpiexec
set -euo pipefail
source "$(dirname "$0")/../cli/lib.sh"
PAPER=$4
MPIEXEC=$5

"$RT" validate "$PAPER/spdnn-inference.yaml" >"$WORK/v.log" 2>&1 ||
  fail "the paper config does not validate: $(cat "$WORK/v.log")"
"$RT" validate "$HERE/tiny.yaml" >/dev/null 2>&1 || fail "tiny.yaml does not validate"

# Out-of-domain and unknown problem parameters name the file, line and key.
if "$RT" validate "$HERE/tiny.yaml" --set 'problem.feature_density=[1.5]' >"$WORK/b1.log" 2>&1; then
  fail "feature_density 1.5 was accepted"
fi
grep -q "feature_density" "$WORK/b1.log" || fail "no feature_density in: $(cat "$WORK/b1.log")"
if "$RT" validate "$HERE/tiny.yaml" --set 'problem.neurons=[1024]' >"$WORK/b2.log" 2>&1; then
  fail "an unknown problem parameter was accepted"
fi
grep -q "neurons" "$WORK/b2.log" || fail "no parameter name in: $(cat "$WORK/b2.log")"
if "$RT" validate "$HERE/tiny.yaml" --set 'kernels.1.params.register_tile=[65]' >"$WORK/b3.log" 2>&1; then
  fail "register_tile 65 was accepted for spdnn.cuda.fused"
fi
grep -q "register_tile" "$WORK/b3.log" || fail "no register_tile in: $(cat "$WORK/b3.log")"

db="$WORK/s.db"
"$RT" run "$HERE/tiny.yaml" --db "$db" >"$WORK/run.log" 2>&1 || fail "run failed: $(tail -5 "$WORK/run.log")"
n=$(sql "$db" "SELECT COUNT(*) FROM points WHERE kernel='spdnn.cpu.fused' AND status='ok' AND verified=1")
[ "$n" = 2 ] || fail "$n verified spdnn.cpu.fused points, want 2: $(tail -5 "$WORK/run.log")"
grep -q "kernel spdnn.cuda.fused skipped" "$WORK/run.log" || fail "spdnn.cuda.fused not reported skipped"
cats=$(sql "$db" "SELECT DISTINCT m.value FROM metrics m JOIN points p ON p.id=m.point_id WHERE m.name='categories' AND m.deterministic=1")
[ "$(echo "$cats" | wc -l)" = 1 ] && [ -n "$cats" ] || fail "categories metric: '$cats'"
awk -v c="$cats" 'BEGIN { exit !(c > 0 && c < 40) }' || fail "$cats categories of 40 features"
tol=$(sql "$db" "SELECT MAX(tolerance) FROM points WHERE family='spdnn'")
awk -v t="$tol" 'BEGIN { exit !(t > 0 && t <= 0.0001) }' || fail "tolerance $tol"

# A layer 0 that is not square stops the run with the reason, not a crash.
if "$RT" run "$HERE/tiny.yaml" --db "$WORK/bad.db" \
     --set 'matrices.0={name: rect, generator: uniform, rows: 1024, cols: 512, nnz_per_row: 8}' \
     >"$WORK/bad.log" 2>&1; then
  fail "a non-square layer 0 ran"
fi
grep -q "square" "$WORK/bad.log" || fail "no reason for the non-square layer: $(tail -3 "$WORK/bad.log")"

# Two ranks: each infers half of the features, the points verify over both.
"$MPIEXEC" --allow-run-as-root --oversubscribe -np 2 "$RT" run "$HERE/tiny.yaml" --db "$WORK/m.db" \
  --set 'kernels.0.params.feature_tile=[8]' --set 'kernels.0.params.threads=[1]' >"$WORK/m.log" 2>&1 ||
  fail "mpirun run failed: $(tail -5 "$WORK/m.log")"
n=$(sql "$WORK/m.db" "SELECT COUNT(*) FROM points WHERE kernel='spdnn.cpu.fused' AND ranks=2 AND status='ok' AND verified=1")
[ "$n" = 1 ] || fail "$n verified 2-rank points, want 1"
echo "spdnn cli: ok"
