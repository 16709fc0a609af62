# cli.harden_mpi (issue 37, item 9): when one rank cannot build a matrix that rank 0 built (its
# file differs: here rank 1 runs a config whose matrix file is damaged), rank 1's own file:line
# message travels to rank 0, which prints it and records it with the points, and the run is
# marked failed, not complete.
. "$2/lib.sh"
MPIEXEC=$4
"$RT" matrix --generator banded --arg rows=200 --arg bandwidth=3 --out "$WORK/good.mtx" >/dev/null
printf '%%%%MatrixMarket matrix coordinate real general\n200 200 3\n1 1 1.0\nxx\n' >"$WORK/bad.mtx"
for w in good bad; do
  cat >"$WORK/cfg-$w.yaml" <<YAML
experiment: {name: mpmd}
matrices:
  - {name: m, file: $w.mtx}
problem: {K: [4], precision: [fp64], layout: [row]}
kernels:
  - name: spmm.cpu.csr
    params: {row_block: [32], col_block: [4]}
measure: {warmup: 1, min_reps: 2, max_reps: 3, max_time_s: 0.05, target_rel_ci: 0.5}
YAML
done
cd "$WORK"
expect 1 "matrix 'm' failed on rank 1: .*cfg-bad.yaml:3:5: matrix 'm': bad.mtx:4: expected 3 fields" \
  "$MPIEXEC" --oversubscribe -np 1 "$RT" run cfg-good.yaml --db mp.db : -np 1 "$RT" run cfg-bad.yaml --db mp.db
[ "$(sql mp.db "SELECT status FROM runs")" = failed ] || fail "run status: $(sql mp.db "SELECT status FROM runs")"
sql mp.db "SELECT reason FROM points" | grep -q "bad.mtx:4: expected 3 fields" ||
  fail "the stored reason lacks rank 1's message: $(sql mp.db "SELECT reason FROM points")"
echo "cli.harden_mpi: ok"
