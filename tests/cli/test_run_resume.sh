# run -> interrupt (budget) -> rerun resumes, no duplicate points; then kill -9 mid-run and rerun.
source "$(dirname "$0")/lib.sh"
db="$WORK/r.db"
"$RT" run "$HERE/small.yaml" --db "$db" --max-points 5 --quiet >"$WORK/1.log"
n1=$(sql "$db" "SELECT COUNT(*) FROM points")
[ "$n1" = 5 ] || fail "first run recorded $n1 points, want 5"
st=$(sql "$db" "SELECT status FROM runs ORDER BY id LIMIT 1")
[ "$st" = interrupted ] || fail "first run status '$st', want interrupted"
"$RT" run "$HERE/small.yaml" --db "$db" >"$WORK/2.log"
grep -q "5 resumed" "$WORK/2.log" || fail "second run did not report 5 resumed: $(tail -3 "$WORK/2.log")"
total=$(sql "$db" "SELECT COUNT(*) FROM points")
distinct=$(sql "$db" "SELECT COUNT(DISTINCT point_key) FROM points")
[ "$total" = "$distinct" ] || fail "$total points but $distinct distinct keys"
# 2 matrices x 4 problem points x (2 csr + 1 tiled) = 24 points; the CUDA kernel is skipped here
# only when no GPU is present, so count CPU points.
cpu=$(sql "$db" "SELECT COUNT(*) FROM points WHERE backend='cpu'")
[ "$cpu" = 24 ] || fail "$cpu CPU points, want 24"
bad=$(sql "$db" "SELECT COUNT(*) FROM points WHERE backend='cpu' AND (status!='ok' OR verified!=1)")
[ "$bad" = 0 ] || fail "$bad CPU points not ok and verified"
ns=$(sql "$db" "SELECT COUNT(*) FROM samples")
[ "$ns" -ge $((cpu * 3)) ] || fail "only $ns samples for $cpu points (min_reps 3)"
"$RT" run "$HERE/small.yaml" --db "$db" >"$WORK/3.log"
grep -q "0 measured" "$WORK/3.log" || fail "third run measured again"
# A different config (override) is a different experiment state: everything runs again.
"$RT" run "$HERE/small.yaml" --db "$db" --set measure.max_reps=4 --max-points 2 --quiet

# kill -9 in the middle of a run: what was recorded stays, the rerun completes without duplicates.
db2="$WORK/k.db"
"$RT" run "$HERE/small.yaml" --db "$db2" --set measure.min_reps=5 --set measure.max_reps=5 \
  --set measure.max_time_s=10 --quiet >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 200); do
  n=$(sql "$db2" "SELECT COUNT(*) FROM points" 2>/dev/null || echo 0)
  [ "${n:-0}" -ge 3 ] && break
  sleep 0.05
done
kill -9 "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
"$RT" run "$HERE/small.yaml" --db "$db2" --set measure.min_reps=5 --set measure.max_reps=5 \
  --set measure.max_time_s=10 >"$WORK/k2.log"
total=$(sql "$db2" "SELECT COUNT(*) FROM points WHERE backend='cpu'")
distinct=$(sql "$db2" "SELECT COUNT(DISTINCT point_key) FROM points WHERE backend='cpu'")
[ "$total" = 24 ] && [ "$distinct" = 24 ] || fail "after kill -9: $total points, $distinct distinct"
orphans=$(sql "$db2" "SELECT COUNT(*) FROM samples WHERE point_id NOT IN (SELECT id FROM points)")
[ "$orphans" = 0 ] || fail "$orphans samples without a point"
echo "resume: ok"
