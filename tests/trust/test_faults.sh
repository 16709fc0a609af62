# No lost or doubled work under faults: a second run into a store being written is refused (the
# lock), SIGINT and SIGTERM end a run between points marked 'interrupted' with a message saying
# what was kept, a rerun resumes, a run killed with -9 is marked 'interrupted' by the next, and a
# SIGINT while a family builds its inputs stops the run within seconds.
#   $1 = rooftune, $2 = this folder, $3 = scratch folder
. "$(dirname "$0")/../rt_test_lib.sh"
rt_args RT HERE WORK -- "$@"
rt_scratch "$WORK"
db="$WORK/s.db"

# wait_points DB N: until the store holds N points (at most 60 s).
wait_points() {
  for _ in $(seq 600); do
    local n
    n=$(sql "$1" "SELECT COUNT(*) FROM points" 2>/dev/null || echo 0)
    [ "${n:-0}" -ge "$2" ] && return 0
    sleep 0.1
  done
  fail "the store never reached $2 point(s)"
}

# 1. The lock: while one run writes, another into the same store stops at once, naming the first.
"$RT" run "$HERE/slow.yaml" --db "$db" --quiet >"$WORK/a.out" 2>&1 &
first=$!
wait_points "$db" 1
rc=0
"$RT" run "$HERE/slow.yaml" --db "$db" --quiet >"$WORK/b.out" 2>&1 || rc=$?
[ "$rc" = 3 ] || fail "a second run into a locked store exited $rc: $(cat "$WORK/b.out")"
grep -q "another rooftune run (pid $first on " "$WORK/b.out" ||
  fail "the refusal does not name the first run: $(cat "$WORK/b.out")"

# 2. SIGINT: the first run stops after its current point, marked 'interrupted', and says so.
kill -INT "$first"
rc=0
wait "$first" || rc=$?
[ "$rc" = 3 ] || fail "an interrupted run exited $rc: $(cat "$WORK/a.out")"
grep -q "interrupted by SIGINT: the run is marked 'interrupted'; its [0-9]* point(s) are kept" \
  "$WORK/a.out" || fail "no interruption message: $(cat "$WORK/a.out")"
[ "$(sql "$db" "SELECT status FROM runs")" = interrupted ] || fail "run not marked interrupted"
kept=$(sql "$db" "SELECT COUNT(*) FROM points")
[ "$kept" -lt 24 ] || fail "the interrupted run measured everything ($kept points)"

# 3. SIGTERM on a rerun: it resumes (no point twice), then stops the same way.
"$RT" run "$HERE/slow.yaml" --db "$db" --quiet >"$WORK/c.out" 2>&1 &
second=$!
wait_points "$db" $((kept + 1))
kill -TERM "$second"
rc=0
wait "$second" || rc=$?
[ "$rc" = 3 ] || fail "a terminated run exited $rc: $(cat "$WORK/c.out")"
grep -q "interrupted by SIGTERM" "$WORK/c.out" || fail "no SIGTERM message: $(cat "$WORK/c.out")"

# 4. kill -9 leaves 'running'; the next run marks it 'interrupted', resumes, and completes.
"$RT" run "$HERE/slow.yaml" --db "$db" --quiet >"$WORK/d.out" 2>&1 &
third=$!
now=$(sql "$db" "SELECT COUNT(*) FROM points")
wait_points "$db" $((now + 1))
kill -KILL "$third"
wait "$third" || true
[ "$(sql "$db" "SELECT COUNT(*) FROM runs WHERE status = 'running'")" = 1 ] ||
  fail "kill -9 did not leave a 'running' run"
"$RT" run "$HERE/slow.yaml" --db "$db" >"$WORK/e.out" 2>&1 || fail "the last run failed: $(cat "$WORK/e.out")"
grep -q "1 earlier run(s) left 'running' .* now marked 'interrupted'" "$WORK/e.out" ||
  fail "stale run not reported: $(cat "$WORK/e.out")"
[ "$(sql "$db" "SELECT COUNT(*) FROM runs WHERE status = 'running'")" = 0 ] || fail "stale row left"
[ "$(sql "$db" "SELECT status FROM runs ORDER BY id DESC LIMIT 1")" = complete ] ||
  fail "the last run did not complete"
# Every point exactly once over the four runs.
[ "$(sql "$db" "SELECT COUNT(*) FROM points")" = 24 ] ||
  fail "want 24 points, have $(sql "$db" "SELECT COUNT(*) FROM points")"
[ "$(sql "$db" "SELECT COUNT(DISTINCT point_key) FROM points")" = 24 ] || fail "a point was doubled"
# 5. Oversubscription is said, not silent: more threads than this host has cores.
OMP_NUM_THREADS=100000 "$RT" run "$HERE/slow.yaml" --db "$db" --dry-run >"$WORK/f.out" 2>&1 ||
  fail "dry run failed: $(cat "$WORK/f.out")"
grep -q "warning: 1 rank(s) x 100000 thread(s) on this host exceed its [0-9]* usable core(s)" \
  "$WORK/f.out" || fail "no oversubscription warning: $(cat "$WORK/f.out")"
OMP_NUM_THREADS=1 "$RT" run "$HERE/slow.yaml" --db "$db" --dry-run >"$WORK/g.out" 2>&1
! grep -q "oversubscription" "$WORK/g.out" || fail "warned without oversubscription"
# 6. SIGINT while a family builds its inputs (minutes of reference computation): the family polls
#    the request, so the run stops within seconds, marked 'interrupted', with nothing recorded.
idb="$WORK/inputs.db"
"$RT" run "$HERE/slow-inputs.yaml" --db "$idb" >"$WORK/h.out" 2>&1 &
fourth=$!
for _ in $(seq 300); do
  grep -q "^matrix dnn:" "$WORK/h.out" 2>/dev/null && break
  sleep 0.1
done
grep -q "^matrix dnn:" "$WORK/h.out" || fail "the slow-inputs run never built its matrix: $(cat "$WORK/h.out")"
sleep 1
kill -INT "$fourth"
signalled=$(date +%s)
rc=0
wait "$fourth" || rc=$?
took=$(($(date +%s) - signalled))
[ "$rc" = 3 ] || fail "a run interrupted while building inputs exited $rc: $(cat "$WORK/h.out")"
[ "$took" -le 20 ] || fail "the run took $took s to stop while building inputs"
grep -q "interrupted by SIGINT: the run is marked 'interrupted'; its 0 point(s) are kept" \
  "$WORK/h.out" || fail "no interruption message: $(cat "$WORK/h.out")"
[ "$(sql "$idb" "SELECT status FROM runs")" = interrupted ] || fail "run not marked interrupted"
[ "$(sql "$idb" "SELECT COUNT(*) FROM points")" = 0 ] || fail "a point was recorded"
echo "faults: ok"
