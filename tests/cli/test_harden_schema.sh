# cli.harden_schema (issue 37, item 3): one schema check for every command that opens a store or a
# recorded space. A store whose schema version is not one this build reads (7, 3, 0, -1) is
# refused by best, tune --from, replay, export and compare alike, unchanged; a T4 file's
# schema_version must be a 1.x.y string ("99.0.0", "abc", null and a missing one are refused).
. "$2/lib.sh"
"$RT" run "$HERE/tiny.yaml" --db "$WORK/s.db" --quiet >"$WORK/run.log" 2>&1 || fail "run: $(tail -3 "$WORK/run.log")"
problem=$(sql "$WORK/s.db" "SELECT problem FROM points WHERE kernel = 'spmm.cpu.csr' AND matrix = 'band' LIMIT 1")
# Every command goes through the one check (rt_store_check): all of them on version 7, one on
# each of the others.
cp "$WORK/s.db" "$WORK/v.db"
sqlite3 "$WORK/v.db" "PRAGMA user_version = 7"
before=$(fingerprint "$WORK/v.db")
expect 2 "v.db: result store schema version 7, this rooftune reads versions 1 to" \
  "$RT" best --db "$WORK/v.db" --kernel spmm.cpu.csr
expect 2 "v.db: result store schema version 7" "$RT" tune --from "$WORK/v.db" --tuning-db "$WORK/t.db"
expect 2 "v.db: result store schema version 7" \
  "$RT" replay "$WORK/v.db" --kernel spmm.cpu.csr --matrix band --problem "$problem"
expect 2 "v.db: result store schema version 7" "$RT" export --db "$WORK/v.db"
expect 2 "v.db: result store schema version 7" "$RT" compare "$WORK/s.db" "$WORK/v.db"
[ "$(fingerprint "$WORK/v.db")" = "$before" ] || fail "version 7: a command changed the store"
[ ! -e "$WORK/t.db" ] || fail "version 7: tune left a tuning database"
for v in 3 0 -1; do
  sqlite3 "$WORK/v.db" "PRAGMA user_version = $v"
  before=$(fingerprint "$WORK/v.db")
  expect 2 "v.db: result store schema version $v, this rooftune reads versions 1 to" \
    "$RT" best --db "$WORK/v.db" --kernel spmm.cpu.csr
  [ "$(fingerprint "$WORK/v.db")" = "$before" ] || fail "version $v: best changed the store"
done
# T4 files: the version must be a 1.x.y string
python3 - "$HERE/../fuzz/corpus/recorded/t4.json" "$WORK" <<'PY'
import json, sys
base = json.load(open(sys.argv[1]))
for name, value in (("v99", "99.0.0"), ("vabc", "abc"), ("vnull", None), ("vmissing", "-"), ("v12", "1.2.0")):
    d = dict(base)
    if value == "-":
        del d["schema_version"]
    else:
        d["schema_version"] = value
    json.dump(d, open("%s/%s.json" % (sys.argv[2], name), "w"))
PY
expect 2 'v99.json: T4 results file schema_version "99.0.0" is not one this rooftune reads' "$RT" replay "$WORK/v99.json"
expect 2 'vabc.json: T4 results file schema_version "abc" is not one' "$RT" replay "$WORK/vabc.json"
expect 2 "vnull.json: a T4 results file needs a schema_version" "$RT" replay "$WORK/vnull.json"
expect 2 "vmissing.json: a T4 results file needs a schema_version" "$RT" replay "$WORK/vmissing.json"
expect 0 "configurations \(2 valid\)" "$RT" replay "$WORK/v12.json" --budget 2 --repeats 1 --strategy random
echo "cli.harden_schema: ok"
