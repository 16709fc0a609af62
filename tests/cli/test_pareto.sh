# rooftune pareto: a CPU run's points given a synthetic second objective (energy_j metrics
# written into the store by hand, one point's recorded unavailable), the front of every sweep
# against the definition checked by brute force in Python, stored once however often it is
# computed, drawn (.dat/.gp, images with gnuplot), and bad input refused (exit 2).
source "$(dirname "$0")/lib.sh"
db="$WORK/p.db"
"$RT" run "$HERE/small.yaml" --db "$db" --quiet --set 'kernels.0.params.row_block=[16,32,64,128,256]' \
  --set 'problem.layout=[row]' >/dev/null
# The objective does not exist yet: refused, naming it.
rc=0
"$RT" pareto --db "$db" >"$WORK/none.out" 2>"$WORK/none.err" || rc=$?
[ "$rc" = 2 ] && grep -q "objective 'energy_j' is neither" "$WORK/none.err" || fail "no energy_j: exit $rc: $(cat "$WORK/none.err")"
# A synthetic energy per point: a fixed pseudo-random function of the point id, so fronts have
# several points and dominated ones; the last ok point's energy is unavailable.
sql "$db" "INSERT INTO metrics (point_id, name, unit, available, deterministic, value, reason)
           SELECT id, 'energy_j', 'J', 1, 0, ((id * 7919) % 97) / 1000.0 + 0.001, NULL
           FROM points WHERE status = 'ok' AND id < (SELECT MAX(id) FROM points WHERE status = 'ok');
           INSERT INTO metrics (point_id, name, unit, available, deterministic, value, reason)
           SELECT MAX(id), 'energy_j', 'J', 0, 0, NULL, 'no counter here (test)' FROM points
           WHERE status = 'ok'"
"$RT" pareto --db "$db" --plot "$WORK/figs" >"$WORK/p.out" || fail "pareto: $(cat "$WORK/p.out")"
grep -q "point(s) without both objectives; energy_j: no counter here (test)" "$WORK/p.out" ||
  fail "the point without energy is not reported: $(cat "$WORK/p.out")"
python3 - "$db" <<'EOF' || fail "the stored fronts are not the definition's"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
cand = db.execute("""SELECT p.id, p.experiment, p.kernel, p.device, p.matrix, p.problem,
    p.time_median_s, m.value FROM points p JOIN metrics m ON m.point_id = p.id
    WHERE p.status = 'ok' AND p.verified = 1 AND m.name = 'energy_j' AND m.available = 1""").fetchall()
sweeps = {}
for r in cand:
    sweeps.setdefault(r[1:6], []).append((r[0], r[6], r[7]))
want = {}
for k, pts in sweeps.items():
    front = [p for p in pts if not any(q[1] <= p[1] and q[2] <= p[2] and (q[1] < p[1] or q[2] < p[2])
                                       for q in pts)]
    want[k] = sorted(p[0] for p in front)
got = {}
for r in db.execute("""SELECT experiment, kernel, device, matrix, problem, point_id, position, a
                       FROM pareto WHERE objective_a = 'time_median_s' AND objective_b = 'energy_j'
                       ORDER BY position"""):
    got.setdefault(r[:5], []).append((r[6], r[7], r[5]))
ok = True
for k in want:
    rows = got.get(k, [])
    if sorted(r[2] for r in rows) != want[k]:
        print("sweep", k, "stored", sorted(r[2] for r in rows), "want", want[k]); ok = False
    if [r[0] for r in rows] != list(range(len(rows))) or [r[1] for r in rows] != sorted(r[1] for r in rows):
        print("sweep", k, "positions not along the first objective"); ok = False
if set(got) - set(want):
    print("fronts stored for sweeps without candidates"); ok = False
print("fronts:", len(want), "points on them:", sum(len(v) for v in want.values()))
sys.exit(0 if ok and sum(len(v) for v in want.values()) > len(want) else 1)
EOF
rows=$(sql "$db" "SELECT COUNT(*) FROM pareto")
"$RT" pareto --db "$db" >/dev/null || fail "second pareto"
[ "$(sql "$db" "SELECT COUNT(*) FROM pareto")" = "$rows" ] || fail "computing again doubled the fronts"
n_fig=$(ls "$WORK/figs"/pareto-time_median_s-energy_j-*.dat | wc -l)
[ "$n_fig" -ge 2 ] || fail "$n_fig figure data files"
for dat in "$WORK/figs"/pareto-*.dat; do
  [ -s "${dat%.dat}.gp" ] || fail "no script beside $dat"
  grep -q "index 1: the front" "$dat" || fail "$dat has no front"
done
if command -v gnuplot >/dev/null; then
  ls "$WORK/figs"/pareto-*.svg >/dev/null || fail "gnuplot is here but no image was drawn"
fi
# Bad input.
expect2() {
  local rc=0
  "$RT" pareto "$@" >"$WORK/bad.out" 2>"$WORK/bad.err" || rc=$?
  [ "$rc" = 2 ] || fail "pareto $*: exit $rc, want 2"
}
expect2 --db "$db" --objectives time_median_s
grep -q "two names A,B" "$WORK/bad.err" || fail "one objective: $(cat "$WORK/bad.err")"
expect2 --db "$db" --objectives time_median_s,time_median_s
grep -q "two different objectives" "$WORK/bad.err" || fail "same objective twice"
expect2 --db "$db" --objectives 'bogus;DROP TABLE points,energy_j'
grep -q "objective 'bogus;DROP TABLE points' is neither" "$WORK/bad.err" || fail "bogus: $(cat "$WORK/bad.err")"
expect2 --db "$db" --experiment nope
grep -q "no experiment of that name" "$WORK/bad.err" || fail "experiment: $(cat "$WORK/bad.err")"
expect2 --db "$WORK/missing.db"
[ ! -e "$WORK/missing.db" ] || fail "pareto created a store"
echo "garbage" >"$WORK/garbage.db"
expect2 --db "$WORK/garbage.db"
[ "$(sql "$db" "SELECT COUNT(*) FROM points")" -gt 0 ] || fail "points lost"
echo "pareto: ok"
