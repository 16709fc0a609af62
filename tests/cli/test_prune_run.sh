# search.prune: bound in `rooftune run`: pruned points are recorded with both numbers (bound_s and
# the metric prune_best_s), only when the bound exceeds the best time measured before them in the
# sweep; export and the run summary show them; an interrupted run resumes without running or
# recording a pruned point twice; the stop rule ends a sweep; stop_within without prune is refused;
# a version 1 store is migrated without losing a row.
source "$(dirname "$0")/lib.sh"
generic="$HERE/../../roofline/machines/cpu-host.yaml"

# Warp-sliced ELL on a matrix with one dense row: a slice is padded to its longest row, so the
# slice holding that row costs (and is bounded by) up to 500x the nonzeros. Bounds then span far
# more than run-to-run noise on a loaded machine, which keeps the test's margins wide.
python3 - "$WORK/dense-row.mtx" <<'PY'
import sys
n = 2048
entries = [(1, j, 1.0 + j % 7) for j in range(1, n + 1)] + [(i, i, 2.0) for i in range(2, n + 1)]
with open(sys.argv[1], "w") as f:
    f.write("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n" % (n, n, len(entries)))
    f.writelines("%d %d %g\n" % e for e in entries)
PY
cfg="$WORK/prune.yaml"
cat >"$cfg" <<YAML
experiment: {name: cli-prune, description: "search.prune: bound end to end"}
matrices:
  - {name: dense-row, file: $WORK/dense-row.mtx}
problem: {K: [1], precision: [fp64]}
kernels:
  - name: spmm.cpu.ell
    params: {slice_height: [1, 4, 16, 64, 256, 1024], threads: [1]}
# Cold: the DRAM term of every bound stays (hot mode drops it for a cache-resident matrix).
measure: {mode: cold, warmup: 0, min_reps: 2, max_reps: 3, max_time_s: 0.05, target_rel_ci: 0.5}
search: {prune: bound}
YAML

# 1. The generic machine's bounds are loose upper ceilings: far below every time, nothing pruned.
"$RT" run "$cfg" --db "$WORK/calib.db" --set machine="$generic" --quiet >"$WORK/calib.log"
n=$(sql "$WORK/calib.db" "SELECT COUNT(*) FROM points WHERE status='ok' AND bound_s > 0")
[ "$n" = 6 ] || fail "calibration: $n of 6 points ok with a bound"

# 2. A machine file with every ceiling scaled down so that the first point's bound is an eighth of
#    its fastest sample: taller slices pad more (up to 240x here), so their bounds pass the best
#    time (the tallest at about 30x it) and they are pruned.
python3 - "$generic" "$WORK/calib.db" "$WORK/slow.yaml" <<'PY'
import re, sqlite3, sys
src, db, out = sys.argv[1:]
t, b = sqlite3.connect(db).execute(
    "SELECT time_min_s, bound_s FROM points ORDER BY id LIMIT 1").fetchone()
scale = t / 8 / b  # every bound is multiplied by this
text = open(src).read().replace("name: cpu-host", "name: cpu-slow")
def shrink(m):
    return "%s%.6g" % (m.group(1), float(m.group(2)) / scale)
text = re.sub(r"((?:gflops|_gbs|bandwidth_gbs):\s*)([0-9.eE+-]+)", shrink, text)
open(out, "w").write(text)
PY
"$RT" run "$cfg" --db "$WORK/p.db" --set machine="$WORK/slow.yaml" >"$WORK/p.log"
pruned=$(sql "$WORK/p.db" "SELECT COUNT(*) FROM points WHERE status='pruned'")
[ "$pruned" -ge 1 ] || fail "no point was pruned: $(cat "$WORK/p.log")"
grep -q "$pruned pruned" "$WORK/p.log" || fail "the summary does not count $pruned pruned points"
[ "$(sql "$WORK/p.db" "SELECT COUNT(*) FROM points")" = 6 ] || fail "not 6 points recorded"

# Every pruned point: both numbers, bound above the best time measured before it (in id order),
# never timed, no samples; and the calibration run measured it slower than that best (it could
# not have won).
cat >"$WORK/check.py" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
calib = dict(sqlite3.connect(sys.argv[2]).execute("SELECT point_key, time_median_s FROM points"))
rows = db.execute("SELECT id, point_key, status, time_median_s, bound_s, verified,"
                  " (SELECT value FROM metrics m WHERE m.point_id = p.id AND name='prune_best_s'),"
                  " (SELECT COUNT(*) FROM samples s WHERE s.point_id = p.id), reason"
                  " FROM points p ORDER BY id").fetchall()
best = float("inf")
for pid, key, status, t, bound, verified, pbest, nsamp, reason in rows:
    if status == "pruned":
        assert t is None and nsamp == 0 and verified == 0, (pid, t, nsamp)
        assert bound is not None and pbest is not None, (pid, bound, pbest)
        assert abs(pbest - best) <= 1e-12 * best, ("prune_best_s is not the best so far", pbest, best)
        assert bound > pbest, ("pruned with a bound below the best", bound, pbest)
        assert "roofline bound" in reason, reason
        assert calib[key] > pbest, ("a pruned point was faster than the best", calib[key], pbest)
    elif status == "ok":
        best = min(best, t)
print("pruned points checked:", sum(r[2] == "pruned" for r in rows))
PY
python3 "$WORK/check.py" "$WORK/p.db" "$WORK/calib.db" || fail "pruned points inconsistent"

# export shows them, with the bound and the metric.
"$RT" export --db "$WORK/p.db" --format csv --out "$WORK/p.csv"
python3 - "$WORK/p.csv" "$pruned" <<'PY' || fail "export does not show the pruned points"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["status"] == "pruned"]
assert len(rows) == int(sys.argv[2]), len(rows)
assert all(r["bound_s"] and "prune_best_s" in r["metrics"] for r in rows), rows
PY

# 3. Interrupted after the first pruned point, then resumed: nothing run or recorded twice.
first=$(sql "$WORK/p.db" "SELECT MIN(id) FROM points WHERE status='pruned'")
"$RT" run "$cfg" --db "$WORK/r.db" --set machine="$WORK/slow.yaml" --max-points "$first" \
  --quiet >/dev/null
n1=$(sql "$WORK/r.db" "SELECT COUNT(*) FROM points")
"$RT" run "$cfg" --db "$WORK/r.db" --set machine="$WORK/slow.yaml" >"$WORK/r2.log"
grep -q "$n1 resumed" "$WORK/r2.log" || fail "the rerun did not resume $n1 points: $(tail -2 "$WORK/r2.log")"
total=$(sql "$WORK/r.db" "SELECT COUNT(*) FROM points")
distinct=$(sql "$WORK/r.db" "SELECT COUNT(DISTINCT point_key) FROM points")
[ "$total" = 6 ] && [ "$distinct" = 6 ] || fail "after resume: $total points, $distinct keys"
python3 "$WORK/check.py" "$WORK/r.db" "$WORK/calib.db" || fail "resumed pruning inconsistent"
"$RT" run "$cfg" --db "$WORK/r.db" --set machine="$WORK/slow.yaml" >"$WORK/r3.log"
grep -q "0 measured, 6 resumed" "$WORK/r3.log" || fail "third run measured again"

# 4. The stop rule: within 100x of its bound (the first point is at about 8x) the sweep ends.
"$RT" run "$cfg" --db "$WORK/s.db" --set machine="$WORK/slow.yaml" \
  --set search.stop_within=99 >"$WORK/s.log"
# (One point normally; a second when a loaded machine slows the first one down.)
[ "$(sql "$WORK/s.db" "SELECT COUNT(*) FROM points")" -lt 6 ] || fail "stop_within did not stop"
grep -q "1 sweep(s) stopped within" "$WORK/s.log" || fail "the summary does not say it stopped"

# A pruned candidate uses no budget: a budget of 3 means 3 points that ran (or the whole space).
"$RT" run "$cfg" --db "$WORK/b.db" --set machine="$WORK/slow.yaml" --set search.budget=3 \
  >"$WORK/b.log"
ran=$(sql "$WORK/b.db" "SELECT COUNT(*) FROM points WHERE status != 'pruned'")
all=$(sql "$WORK/b.db" "SELECT COUNT(*) FROM points")
[ "$ran" = 3 ] || [ "$all" = 6 ] || fail "budget 3 with pruning: $ran ran of $all points"

# 5. stop_within without pruning is a config error naming the key.
if "$RT" validate "$cfg" --set search.prune=none --set search.stop_within=0.1 2>"$WORK/e.txt"; then
  fail "stop_within without prune was accepted"
fi
grep -q "search.stop_within" "$WORK/e.txt" || fail "error does not name the key: $(cat "$WORK/e.txt")"
# 6. A version 1 store (fixtures/store-v1.db: the H100 tuning store as committed at 0d3036a, before
#    schema version 2) is migrated when a run writes into it: the status 'pruned' becomes legal,
#    and no point, metric or sample is lost (no cascade).
old="$HERE/fixtures/store-v1.db"
cp "$old" "$WORK/v1.db"
[ "$(sql "$WORK/v1.db" "PRAGMA user_version")" = 1 ] || fail "the baseline is not version 1"
counts="SELECT (SELECT COUNT(*) FROM points), (SELECT COUNT(*) FROM metrics),
  (SELECT COUNT(*) FROM samples)"
before=$(sql "$WORK/v1.db" "$counts")
"$RT" export --db "$WORK/v1.db" --format csv --out "$WORK/v1-before.csv"
"$RT" run "$cfg" --db "$WORK/v1.db" --set machine="$WORK/slow.yaml" --quiet >/dev/null
[ "$(sql "$WORK/v1.db" "PRAGMA user_version")" = 2 ] || fail "the store was not migrated"
after=$(sql "$WORK/v1.db" "SELECT (SELECT COUNT(*) FROM points WHERE run_id IN (SELECT id FROM runs
  WHERE experiment != 'cli-prune')), (SELECT COUNT(*) FROM metrics m JOIN points p ON p.id =
  m.point_id WHERE p.experiment != 'cli-prune'), (SELECT COUNT(*) FROM samples s JOIN points p ON
  p.id = s.point_id WHERE p.experiment != 'cli-prune')")
[ "$before" = "$after" ] || fail "migration lost rows: $before before, $after after"
[ "$(sql "$WORK/v1.db" "SELECT COUNT(*) FROM points WHERE status='pruned'")" -ge 1 ] ||
  fail "no pruned point recorded in the migrated store"
[ "$(sql "$WORK/v1.db" "PRAGMA foreign_key_check")" = "" ] || fail "foreign keys broken"
"$RT" export --db "$WORK/v1.db" --format csv --experiment "$(sql "$old" \
  "SELECT experiment FROM runs LIMIT 1")" --out "$WORK/v1-after.csv"
cmp -s "$WORK/v1-before.csv" "$WORK/v1-after.csv" || fail "the migrated points export differently"
echo "prune run: ok"
