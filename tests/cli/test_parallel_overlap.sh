# Two sweeps open at once (--parallel gpus, issue 35 item 3): a sweep that hands out nothing more
# stays open while its last points are in flight, and the workers that left it measure the next
# sweep's points meanwhile. A C kernel from a kernel spec whose SLOW=1 point sleeps 0.2 s per
# execution (about 1 s a point, the others a few ms) makes each sweep's last point slow:
#   - worker processes: the next sweep's first point starts on another worker before the slow
#     point of the sweep before ends (the store's phases table), ci/tune-phases.py says
#     'overlapped'; the serial run's points, each recorded once;
#   - MPI ranks (mpirun -np 2 and 3) keep a sweep's end together: no point of a sweep starts before
#     every point of the sweep before has ended; the serial run's points;
#   - --max-points across an overlap stops at exactly that many points (both sweeps' points in
#     flight counted) and its resume completes the serial set;
#   - SIGINT while both sweeps have points in flight: both are recorded, the run is 'interrupted',
#     no worker is left, the rerun completes the set;
#   - a worker killed during the older sweep's slow point while the newer sweep runs: the run fails
#     naming its peer on the wire, no worker is left, the rerun completes the set.
#   $1 rooftune  $2 this folder  $3 scratch folder  $4 mpiexec
source "$(dirname "$0")/lib.sh"
MPIEXEC=$4
export OMP_NUM_THREADS=1
cat >"$WORK/nap.c" <<'EOF'
/* c = a + b; with SLOW=1 (a -D define from the spec) every execution sleeps 0.2 s first. */
#define _POSIX_C_SOURCE 199309L
#include <time.h>
void add(float *c, const float *a, const float *b, int n)
{
    if (SLOW) {
        const struct timespec nap = {0, 200000000L};
        nanosleep(&nap, NULL);
    }
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
}
EOF
cat >"$WORK/spec.yaml" <<'EOF'
family: nap
summary: "c = a + b, one point slow on purpose (SLOW sleeps)"
problem:
  n: {default: 1024, domain: "1..1000000"}
arguments:
  - {name: c, type: float, size: n, output: true}
  - {name: a, type: float, size: n, init: {random: {seed: 1}}}
  - {name: b, type: float, size: n, init: {random: {seed: 2}}}
  - {name: n, type: int32, value: n}
reference: {kernel: nap.cpu.add}
flops: n
bytes: 12 * n
kernels:
  - name: nap.cpu.add
    source: nap.c
    entry: add
    params: {SLOW: {values: [0, 1]}}
EOF
# Three sweeps (a problem point each) of two points, the slow one last in the search's order.
cfg="$WORK/overlap.yaml"
cat >"$cfg" <<'EOF'
experiment: {name: cli-overlap}
user_kernels: [spec.yaml]
matrices: [{name: user, generator: banded, rows: 1, bandwidth: 1}]
problem: {n: [1000, 2000, 3000]}
kernels:
  - name: nap.cpu.add
    params: {SLOW: [0, 1]}
measure: {warmup: 1, min_reps: 3, max_reps: 3, max_time_s: 0.01, target_rel_ci: 0.5}
EOF
check_like_serial() { # DB LABEL
  points "$1" >"$WORK/$2.txt"
  diff "$WORK/serial.txt" "$WORK/$2.txt" >/dev/null ||
    fail "$2: not the serial run's points: $(diff "$WORK/serial.txt" "$WORK/$2.txt" | head -5)"
  rt_sql_is "$1" 0 "SELECT COUNT(*) - COUNT(DISTINCT point_key) FROM points" || fail "$2: $got point(s) recorded twice"
}
# The 'point' phase of the point of problem size N with SLOW=S: COLUMN of it.
point_at() { # DB N S COLUMN
  sql "$1" "SELECT h.$4 FROM phases h JOIN points p ON p.point_key = h.point_key AND p.run_id = h.run_id
            WHERE h.phase = 'point' AND p.problem LIKE '%\"n\":$2,%' AND p.params = '{\"SLOW\":$3}'
            AND h.run_id = (SELECT MAX(id) FROM runs)"
}
no_worker_left() { # DB LABEL
  if pgrep -f -- "--db $1" >/dev/null; then fail "$2: a worker process outlived its coordinator"; fi
}

"$RT" run "$cfg" --db "$WORK/serial.db" --quiet >/dev/null || fail "serial run"
points "$WORK/serial.db" >"$WORK/serial.txt"
[ "$(grep -c '|ok|1$' "$WORK/serial.txt")" = 6 ] || fail "serial run: $(cat "$WORK/serial.txt")"

# 1. Two worker processes: worker 0 takes sweep 1's fast point, worker 1 its slow one (breadth
#    first); worker 0 is back at once and leaves sweep 1, which stays open, and starts sweep 2
#    while worker 1 still measures.
"$RT" run "$cfg" --db "$WORK/gpus.db" --parallel gpus --workers 2 >"$WORK/gpus.log" 2>&1 ||
  fail "gpus: $(tail -5 "$WORK/gpus.log")"
check_like_serial "$WORK/gpus.db" gpus
rt_sql_is "$WORK/gpus.db" complete "SELECT status FROM runs" || fail "gpus: run $got"
slow_proc=$(point_at "$WORK/gpus.db" 1000 1 process)
next_proc=$(point_at "$WORK/gpus.db" 2000 0 process)
[ -n "$slow_proc" ] && [ -n "$next_proc" ] && [ "$slow_proc" != "$next_proc" ] ||
  fail "gpus: sweep 1's slow point on '$slow_proc', sweep 2's first on '$next_proc'"
awk -v b="$(point_at "$WORK/gpus.db" 2000 0 begin_s)" -v e="$(point_at "$WORK/gpus.db" 1000 1 end_s)" \
  'BEGIN { exit !(b < e) }' || fail "gpus: sweep 2's first point did not start before sweep 1's slow point ended"
# (the coordinator's sweep 1 phase ended before that slow point: the sweep was left open)
awk -v s="$(sql "$WORK/gpus.db" "SELECT end_s FROM phases WHERE process = 'main' AND phase = 'sweep 1'")" \
  -v e="$(point_at "$WORK/gpus.db" 1000 1 end_s)" 'BEGIN { exit !(s < e) }' ||
  fail "gpus: the coordinator's sweep 1 waited for its slow point"
python3 "$HERE/../../ci/tune-phases.py" "$WORK/gpus.db" >"$WORK/gpus.phases" ||
  fail "tune-phases.py: $(cat "$WORK/gpus.phases")"
grep -q "^  sweep 1 (nap.cpu.add, user): 2 point(s) from .*, tail [0-9.]* s, overlapped [0-9.]* s by the next sweep" \
  "$WORK/gpus.phases" || fail "tune-phases.py shows no overlap: $(cat "$WORK/gpus.phases")"
no_worker_left "$WORK/gpus.db" gpus

# 2. MPI ranks: the sweep's end is kept together, so no overlap; the serial run's points.
for np in 2 3; do
  "$MPIEXEC" --allow-run-as-root --oversubscribe -np $np "$RT" run "$cfg" --db "$WORK/ranks$np.db" \
    --parallel ranks --quiet >/dev/null 2>&1 || fail "mpirun -np $np --parallel ranks"
  check_like_serial "$WORK/ranks$np.db" "ranks$np"
  for n in 1000 2000; do
    next=$((n + 1000))
    rt_sql_is "$WORK/ranks$np.db" 0 "SELECT COUNT(*) FROM phases a JOIN points pa ON pa.point_key = a.point_key,
                 phases b JOIN points pb ON pb.point_key = b.point_key
                 WHERE a.phase = 'point' AND b.phase = 'point' AND pa.problem LIKE '%\"n\":$n,%'
                 AND pb.problem LIKE '%\"n\":$next,%' AND b.begin_s < a.end_s" ||
      fail "ranks $np: $got point(s) of size $next began before the sweep of size $n ended"
  done
done

# 3. --max-points 3 across the overlap: sweep 1's two points and sweep 2's fast one (handed out
#    while the slow point was in flight, which the budget counts), not one more; the rerun
#    resumes them and completes the set.
"$RT" run "$cfg" --db "$WORK/max.db" --parallel gpus --workers 2 --max-points 3 --quiet >/dev/null 2>&1 || true
rt_sql_is "$WORK/max.db" 3 "SELECT COUNT(*) FROM points" || fail "--max-points 3: $got points"
rt_sql_is "$WORK/max.db" 2 "SELECT COUNT(*) FROM points WHERE problem LIKE '%\"n\":1000,%'" ||
  fail "--max-points 3: $got of sweep 1's points"
no_worker_left "$WORK/max.db" max-points
"$RT" run "$cfg" --db "$WORK/max.db" --parallel gpus --workers 2 >"$WORK/max.log" 2>&1 || fail "resume: $(tail -3 "$WORK/max.log")"
grep -q "resumed: 3 point(s)\|3 resumed" "$WORK/max.log" || fail "resume: $(grep summary "$WORK/max.log")"
check_like_serial "$WORK/max.db" max-resumed

# Starts a run with 2 workers into DB in the background (its pid in $pid) and waits until DB holds
# 2 points: sweep 1's fast one and sweep 2's, both slow points still in flight.
start_and_wait() { # DB
  "$RT" run "$cfg" --db "$1" --parallel gpus --workers 2 --quiet >/dev/null 2>"$1.err" &
  pid=$!
  for _ in $(seq 600); do
    n=$(sql "$1" "SELECT COUNT(*) FROM points" 2>/dev/null || echo 0)
    [ "${n:-0}" -ge 2 ] && return 0
    sleep 0.02
  done
  fail "$1: no 2 points after 12 s"
}

# 4. SIGINT with both sweeps' slow points in flight: the workers finish them, both are recorded
#    (each in its own sweep), the run is 'interrupted', sweep 3 never starts, no worker is left.
start_and_wait "$WORK/int.db"
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" = 3 ] || fail "interrupted run: exit $rc, want 3: $(cat "$WORK/int.db.err")"
rt_sql_is "$WORK/int.db" interrupted "SELECT status FROM runs" || fail "SIGINT: run $got"
rt_sql_is "$WORK/int.db" "2|1" "SELECT COUNT(*)||'|'||SUM(params = '{\"SLOW\":1}') FROM points WHERE problem LIKE '%\"n\":1000,%'" ||
  fail "SIGINT: sweep 1's points (all|slow): $got"
rt_sql_is "$WORK/int.db" 0 "SELECT COUNT(*) FROM points WHERE problem LIKE '%\"n\":3000,%'" ||
  fail "SIGINT: $got point(s) of sweep 3 after the signal"
no_worker_left "$WORK/int.db" SIGINT
"$RT" run "$cfg" --db "$WORK/int.db" --parallel gpus --workers 2 --quiet >/dev/null 2>&1 || fail "rerun after SIGINT"
check_like_serial "$WORK/int.db" int-rerun

# 5. The worker measuring sweep 1's slow point dies while sweep 2's points are measured: the run
#    fails naming it, is recorded 'failed', no worker is left; the rerun completes.
start_and_wait "$WORK/kill.db"
victim=$(pgrep -f -- "--db $WORK/kill.db.*--worker-index 1( |$)" | head -1)
[ -n "$victim" ] || fail "no worker 1 of the run found"
kill -KILL "$victim"
rc=0
wait "$pid" || rc=$?
[ "$rc" != 0 ] || fail "a run whose worker died exited 0"
# (worker i is the wire's peer i + 1: the coordinator is peer 0)
grep -q "parallel tuning: peer 2 closed the connection" "$WORK/kill.db.err" ||
  fail "the failure does not name the worker: $(cat "$WORK/kill.db.err")"
rt_sql_is "$WORK/kill.db" failed "SELECT status FROM runs" || fail "killed worker: run $got"
no_worker_left "$WORK/kill.db" "killed worker"
"$RT" run "$cfg" --db "$WORK/kill.db" --parallel gpus --workers 2 --quiet >/dev/null 2>&1 || fail "rerun after the failure"
check_like_serial "$WORK/kill.db" kill-rerun
echo "parallel overlap: ok"
