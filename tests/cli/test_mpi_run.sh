# run under mpirun -np 2 --oversubscribe: each rank times its rows, the sample is the max over
# ranks, rank 0 writes the store, and the results verify against the reference.
source "$(dirname "$0")/lib.sh"
MPIEXEC=$4
db="$WORK/m.db"
"$MPIEXEC" --allow-run-as-root --oversubscribe -np 2 "$RT" run "$HERE/small.yaml" --db "$db" \
  --ranks-per-node 1 --set 'problem.precision=[fp64]' --set 'problem.layout=[row]' >"$WORK/m.log"
grep -q "2 nodes" "$WORK/m.log" || fail "topology not reported: $(head -5 "$WORK/m.log")"
rt_sql_is "$db" 6 "SELECT COUNT(*) FROM points WHERE backend='cpu' AND ranks=2 AND status='ok' AND verified=1" || fail "$got verified 2-rank CPU points, want 6"
rt_sql_is "$db" 1 "SELECT COUNT(*) FROM runs" || fail "$got runs recorded (only rank 0 writes)"
rt_sql_is "$db" 0 "SELECT COUNT(*) FROM samples WHERE rank_min_s > seconds" || fail "a sample's min over ranks exceeds its max"
topo=$(sql "$db" "SELECT topology FROM runs")
echo "$topo" | grep -q "2 ranks" || fail "topology '$topo'"
echo "mpi run: ok"
