#!/usr/bin/env bash
# bench/kernel-tuner/tables.py scores runs the way rooftune replay does: on a small Kernel Tuner
# cache with failed configurations, the score, optimum and random-search expectation that
# tables.py computes from evaluate.py's rows of `rooftune replay --runs` equal replay's own
# (--csv) for every strategy and budget; and garbage in (a runs file without its columns, a space
# that is not a cache) is an error, not a table.
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
echo "eval tables: OK"
