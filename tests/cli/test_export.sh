# export: the documented columns, CSV and JSON, one row per point; unknown experiment fails.
source "$(dirname "$0")/lib.sh"
db="$WORK/e.db"
"$RT" run "$HERE/small.yaml" --db "$db" --max-points 6 --quiet
"$RT" export --db "$db" --format csv --out "$WORK/p.csv"
"$RT" export --db "$db" --format json --experiment cli-small >"$WORK/p.json"
python3 - "$WORK/p.csv" "$WORK/p.json" <<'PY'
import csv, json, sys
need = ["experiment", "kernel", "backend", "matrix", "params", "ranks", "device", "status",
        "verified", "samples", "time_median_s", "time_min_s", "time_max_s", "gflops", "bound_s",
        "efficiency", "metrics"]
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 6, len(rows)
for c in need:
    assert c in rows[0], "missing column " + c
for r in rows:
    assert r["status"] == "ok", r
    json.loads(r["params"]); json.loads(r["metrics"])
    assert float(r["time_min_s"]) <= float(r["time_median_s"]) <= float(r["time_max_s"])
    assert int(r["samples"]) >= 3
doc = json.load(open(sys.argv[2]))
assert len(doc) == 6 and isinstance(doc[0]["params"], dict) and isinstance(doc[0]["metrics"], dict)
print("export columns ok")
PY
set +e
out=$("$RT" export --db "$db" --experiment nope 2>&1); rc=$?
set -e
[ "$rc" != 0 ] || fail "unknown experiment exported"
echo "$out" | grep -q "cli-small" || fail "known experiments not listed: $out"
set +e
"$RT" export --db "$db" --format xml >/dev/null 2>&1; rc=$?
set -e
[ "$rc" = 2 ] || fail "bad format exited $rc"
echo "export: ok"
