#!/usr/bin/env bash
# bench/kernel-tuner/tables.py scores runs the way rooftune replay does: on a small Kernel Tuner
# cache with failed configurations, the score, optimum and random-search expectation that
# tables.py computes from evaluate.py's rows of `rooftune replay --runs` equal replay's own
# (--csv) for every strategy and budget; and garbage in (a runs file without its columns, a space
# that is not a cache) is an error, not a table. bench/kernel-tuner/luck.py's share of random
# searches that reach a cell's score is the exact one (within its sampling error), and a scores
# file that is not tables.py's is refused (exit 2, named).
set -euo pipefail
rt=$1; src=$2; work=$3
rm -rf "$work"; mkdir -p "$work"; cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
python3 - <<'PY'
import json, random
random.seed(3)
xs, ys = [1, 2, 4, 8, 16], [0, 1, 2, 3]
cache = {}
for x in xs:
    for y in ys:
        t = 1.0 + abs(x - 4) * 0.3 + (y - 2) ** 2 * 0.2 + random.random() * 0.05
        cache["%d,%d" % (x, y)] = {"x": x, "y": y, "time": "RuntimeFailedConfig" if (x * y) % 7 == 3 else t}
json.dump({"tune_params_keys": ["x", "y"], "tune_params": {"x": xs, "y": ys},
           "cache": cache, "objective": "time"}, open("space.json", "w"))
PY
"$rt" replay space.json --budget 3,6,10 --repeats 7 --csv replay.csv --runs raw.csv >/dev/null
python3 - raw.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
with open("runs.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["tool", "space", "strategy", "budget", "seed", "best", "evaluations", "seconds", "note"])
    for r in rows:
        best = "" if r["best"] == "inf" else r["best"]
        w.writerow(["rooftune", r["space"], r["strategy"], r["budget"], r["seed"], best, r["evaluations"], "0", ""])
PY
python3 "$src/bench/kernel-tuner/tables.py" out runs.csv --spaces space.json --budgets 3,6,10 >/dev/null
python3 - replay.csv out/scores.csv <<'PY'
import csv, sys
ref = {(r["strategy"], r["budget"]): r for r in csv.DictReader(open(sys.argv[1]))}
got = {(r["strategy"], r["budget"]): r for r in csv.DictReader(open(sys.argv[2]))}
assert set(ref) == set(got), (sorted(ref), sorted(got))
for k, r in ref.items():
    g = got[k]
    for a, b in (("score", "score"), ("optimum", "optimum"), ("random_best", "random_best"),
                 ("frac_optimum", "frac_optimum")):
        x, y = float(r[a]), float(g[b])
        assert abs(x - y) <= 1e-5 * max(1.0, abs(x)), (k, a, x, y)
print("tables.py and rooftune replay agree on %d (strategy, budget) scores" % len(ref))
PY
grep -q "^# " out/README.md || fail "no README"
# Garbage: a runs file without the columns, a space that is not a Kernel Tuner cache.
printf 'a,b\n1,2\n' >bad.csv
if python3 "$src/bench/kernel-tuner/tables.py" out2 bad.csv --spaces space.json >bad.txt 2>&1; then
  fail "tables.py accepted a runs file without its columns"
fi
grep -q "bad.csv" bad.txt || { cat bad.txt; fail "the error does not name bad.csv"; }
echo '{"results": 3}' >notcache.json
if python3 "$src/bench/kernel-tuner/tables.py" out3 runs.csv --spaces notcache.json >bad.txt 2>&1; then
  fail "tables.py accepted a space that is not a cache"
fi
grep -q "notcache.json" bad.txt || { cat bad.txt; fail "the error does not name notcache.json"; }
# evaluate.py --seed (the held-out check): rooftune's rows are seeds S..S+repeats-1, the runs that
# `rooftune replay --seed S` makes.
python3 "$src/bench/kernel-tuner/evaluate.py" held space.json --tools rooftune --budgets 3,6 \
  --repeats 4 --seed 11 --rooftune "$rt" 2>/dev/null
"$rt" replay space.json --strategy all --budget 3,6 --repeats 4 --seed 11 --runs held.csv >/dev/null
python3 - held/runs.csv held.csv <<'PY'
import csv, sys
got = {(r["strategy"], r["budget"], r["seed"]): r["best"] for r in csv.DictReader(open(sys.argv[1]))}
ref = {(r["strategy"], r["budget"], r["seed"]): r["best"] for r in csv.DictReader(open(sys.argv[2]))}
assert sorted({int(k[2]) for k in got}) == [11, 12, 13, 14], sorted({k[2] for k in got})
assert set(got) == set(ref), (sorted(got), sorted(ref))
for k, b in ref.items():
    assert (got[k] == "" and b == "inf") or float(got[k]) == float(b), (k, got[k], b)
PY
# luck.py: Kernel Tuner rows made of rooftune's (genetic as genetic_algorithm), scored by
# tables.py; the share of 7-seed random-search means at or above each cell's Kernel Tuner score
# against the exact distribution of that mean (best of b draws without replacement, enumerated).
python3 - <<'PY'
import csv
rows = list(csv.reader(open("runs.csv")))
with open("both.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerows(rows)
    for r in rows[1:]:
        if r[2] in ("genetic", "random"):
            w.writerow(["kernel_tuner", r[1], {"genetic": "genetic_algorithm", "random": "random_sample"}[r[2]]] + r[3:])
PY
python3 "$src/bench/kernel-tuner/tables.py" both both.csv --spaces space.json --budgets 3,6,10 >/dev/null
python3 "$src/bench/kernel-tuner/luck.py" luck.md --scores both/scores.csv --spaces space.json >/dev/null
python3 - "$src/bench/kernel-tuner" <<'PY'
import collections, math, sys
sys.path.insert(0, sys.argv[1])
from tables import Space
sp = Space("space.json")
cells = [[c.strip() for c in l.split("|")[1:-1]] for l in open("luck.md") if l.startswith("| ")]
cells = [r for r in cells if r[1] != "budget"]  # the header
assert len(cells) == 3, cells
for r in cells:
    b, kt, seeds, share = int(r[1]), float(r[3]), int(r[6]), float(r[10])
    n = len(sp.sorted)
    dist = collections.Counter()
    for i in range(1, n - b + 2):  # the best of b draws is the i-th fastest
        dist[sp.sorted[i - 1]] += math.comb(n - i, b - 1) / math.comb(n, b)
    total = {0.0: 1.0}
    for _ in range(seeds):
        nxt = collections.Counter()
        for s, p in total.items():
            for v, q in dist.items():
                nxt[round(s + v, 9)] += p * q
        total = nxt
    s_random = sp.random_best(b)
    exact = sum(p for s, p in total.items()
                if (s_random - s / seeds) / (s_random - sp.opt) >= kt - 1e-9)
    assert abs(exact - share) < 0.015, (b, kt, exact, share)
print("luck.py's shares match the exact distribution in %d cells" % len(cells))
PY
# Garbage: a scores file without tables.py's columns, a score that is not a number.
if python3 "$src/bench/kernel-tuner/luck.py" l2.md --scores bad.csv --spaces space.json >bad.txt 2>&1; then
  fail "luck.py accepted a scores file without its columns"
fi
grep -q "bad.csv" bad.txt || { cat bad.txt; fail "luck.py's error does not name bad.csv"; }
python3 - <<'PY'
import csv
rows = list(csv.reader(open("both/scores.csv")))
rows[2][rows[0].index("score")] = "fast"
csv.writer(open("badscore.csv", "w", newline="")).writerows(rows)
PY
set +e
python3 "$src/bench/kernel-tuner/luck.py" l3.md --scores badscore.csv --spaces space.json >bad.txt 2>&1
rc=$?
set -e
[ "$rc" = 2 ] || { cat bad.txt; fail "luck.py exited $rc on a score that is not a number, want 2"; }
grep -q "badscore.csv:3:" bad.txt || { cat bad.txt; fail "luck.py's error does not name badscore.csv:3"; }
echo "eval tables: OK"
