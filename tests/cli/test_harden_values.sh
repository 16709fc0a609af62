# cli.harden_values (issue 37, item 5): nonsense in a recorded space or a store is refused with a
# message naming it, instead of being scored: times of -1, 0 and 1e308; a T4 roofline_bound above
# every time is not used to prune (and the user is told); compare refuses an ok point whose
# median or samples are zero or negative instead of calling it "not timed"; a run whose
# constraints are all false is refused before it measures (or stores) anything.
. "$2/lib.sh"
python3 - "$HERE/../fuzz/corpus/recorded" "$WORK" <<'PY'
import json, sys
src, out = sys.argv[1], sys.argv[2]
kt = json.load(open(src + "/kt.json"))
for name, t in (("neg", -1), ("zero", 0), ("huge", 1e308)):
    d = json.loads(json.dumps(kt))
    first = sorted(d["cache"])[0]
    d["cache"][first]["time"] = t
    json.dump(d, open("%s/%s.json" % (out, name), "w"))
t4 = json.load(open(src + "/t4.json"))
for r in t4["results"]:
    times = [m["value"] for m in r.get("measurements", []) if m["name"] == "time"]
    r["measurements"] = [m for m in r.get("measurements", []) if m["name"] != "roofline_bound"]
    if times:
        r["measurements"].append({"name": "roofline_bound", "value": 100 * times[0], "unit": "ms"})
json.dump(t4, open(out + "/bound.json", "w"))
PY
expect 2 "neg.json: cache entry '[^']*': time is -1; a recorded time must be a positive number" "$RT" replay "$WORK/neg.json"
expect 2 "zero.json: cache entry '[^']*': time is 0;" "$RT" replay "$WORK/zero.json"
expect 2 "huge.json: cache entry '[^']*': time is 1e\+308;" "$RT" replay "$WORK/huge.json"
expect 0 "bound.json: 2 configuration\(s\) have a roofline bound above their own recorded time" \
  "$RT" replay "$WORK/bound.json" --prune bound --budget 3 --repeats 2 --strategy random
grep -qE "^random +3 +2 .* 0\.0$" "$WORK/out.txt" || fail "a contradicted bound pruned: $(cat "$WORK/out.txt")"
# compare: an ok point whose median and samples were edited to nonsense
"$RT" run "$HERE/tiny.yaml" --db "$WORK/a.db" --quiet >"$WORK/run.log" 2>&1 || fail "run: $(tail -3 "$WORK/run.log")"
for edit in "time_median_s = -1" "time_median_s = 0"; do
  cp "$WORK/a.db" "$WORK/b.db"
  id=$(sql "$WORK/b.db" "SELECT id FROM points WHERE status = 'ok' ORDER BY id LIMIT 1")
  sqlite3 "$WORK/b.db" "UPDATE points SET $edit WHERE id = $id"
  expect 2 "b.db: point $id \(kernel [^)]*\): its median time is (-1|0) s: a timed point needs a positive time" \
    "$RT" compare "$WORK/a.db" "$WORK/b.db"
  grep -q "verdict" "$WORK/out.txt" && fail "compare gave a verdict on a damaged store"
done
cp "$WORK/a.db" "$WORK/b.db"
id=$(sql "$WORK/b.db" "SELECT id FROM points WHERE status = 'ok' ORDER BY id LIMIT 1")
sqlite3 "$WORK/b.db" "UPDATE samples SET seconds = -0.5 WHERE point_id = $id AND rep = 0"
expect 2 "point $id .*: sample 0 is -0.5: a time must be a positive number" "$RT" compare "$WORK/a.db" "$WORK/b.db"
# a run whose constraints are all false measures nothing: refused, no store made
expect 2 "no point of any kernel satisfies the parameter domains and constraints, so the run would measure nothing; kernel spmm.cpu.csr: none of its 2 point\(s\)" \
  "$RT" run "$HERE/tiny.yaml" --db "$WORK/none.db" --set 'kernels.0.constraints=["row_block > 100000"]'
[ ! -e "$WORK/none.db" ] || fail "a refused run made a store"
echo "cli.harden_values: ok"
