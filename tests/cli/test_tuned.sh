# Tuned per device, on CPU stand-ins: two stores of one CPU config, the second's points given
# another device's name by hand, recorded in one tuning database; `best` by device and memory
# (and --memory-gb's garbage); the C header compiled into a program whose rooftune_tuned_find
# agrees with `best`, the YAML read back by a YAML parser; `portability --config` writes a config
# that runs every tuned configuration, and `--table` on two stores of it (the second renamed to
# the other device) gives each configuration's loss against each device's own best, 0% on the
# diagonal; bad input exits 2.
source "$(dirname "$0")/lib.sh"
CC=$4
export OMP_NUM_THREADS=1
cfg="$WORK/tune.yaml"
csr_band_config "$cfg" cli-tuned "16, 64, 256" \
  "warmup: 1, min_reps: 3, max_reps: 4, max_time_s: 0.05, target_rel_ci: 0.5"
other="Other CPU 64GB"
"$RT" run "$cfg" --db "$WORK/a.db" --quiet >/dev/null
"$RT" run "$cfg" --db "$WORK/b.db" --quiet >/dev/null
# The other device: its own name and memory, and its best another configuration than here (the
# fastest point here made the slowest there), so the two tunings differ.
best_here=$(sql "$WORK/a.db" "SELECT params FROM points WHERE status = 'ok' ORDER BY time_median_s LIMIT 1")
sql "$WORK/b.db" "UPDATE points SET device = '$other';
                  UPDATE metrics SET value = 64e9 WHERE name = 'device_memory_bytes';
                  UPDATE points SET time_median_s = 1 WHERE params = '$best_here'"
here=$(sql "$WORK/a.db" "SELECT DISTINCT device FROM points")
"$RT" tune --from "$WORK/a.db" --tuning-db "$WORK/t.db" >/dev/null
"$RT" tune --from "$WORK/b.db" --tuning-db "$WORK/t.db" >/dev/null
[ "$(sql "$WORK/t.db" "SELECT COUNT(*) FROM tuning")" = 2 ] || fail "two tuning entries expected"
[ "$(sql "$WORK/t.db" "SELECT COUNT(DISTINCT params) FROM tuning")" = 2 ] || fail "the two tunings agree"
[ "$(sql "$WORK/t.db" "SELECT memory_bytes FROM tuning WHERE device = '$other'")" = 64000000000 ] ||
  fail "the entry's memory is not the run's"

# best: by device, then by memory among the same architecture (cpu).
"$RT" best --db "$WORK/t.db" --kernel spmm.cpu.csr --device "$other" >"$WORK/best.out"
grep -q "matched:   device $other" "$WORK/best.out" || fail "by device: $(cat "$WORK/best.out")"
"$RT" best --db "$WORK/t.db" --kernel spmm.cpu.csr --arch cpu --memory-gb 60 >"$WORK/best.out"
grep -q "nearest memory 64 GB (asked 60 GB)" "$WORK/best.out" && grep -q "device:    $other" "$WORK/best.out" ||
  fail "by memory: $(cat "$WORK/best.out")"
for bad in abc 0 -1 1e400; do
  rc=0
  "$RT" best --db "$WORK/t.db" --kernel spmm.cpu.csr --memory-gb "$bad" >/dev/null 2>"$WORK/bad.err" || rc=$?
  [ "$rc" = 2 ] && grep -q -- "--memory-gb" "$WORK/bad.err" || fail "--memory-gb $bad: exit $rc"
done

# The exports: the header in a program, the YAML in a parser.
"$RT" best --db "$WORK/t.db" --export-header "$WORK/tuned.h" --export-yaml "$WORK/tuned.yaml" >/dev/null
cat >"$WORK/app.c" <<EOF
#include <stdio.h>
#include "tuned.h"
int main(void)
{
    const rooftune_tuned *t = rooftune_tuned_find("spmm.cpu.csr", "$other", "cpu", 8);
    const rooftune_tuned *a = rooftune_tuned_find("spmm.cpu.csr", "unknown", "cpu", 8);
    const rooftune_tuned *none = rooftune_tuned_find("spmm.cpu.ell", "$other", "cpu", 8);
    printf("%s\n%s\n%d %d\n", t ? t->params_json : "-", a ? a->device : "-", none == 0,
           ROOFTUNE_TUNED_COUNT);
    return 0;
}
EOF
"$CC" -std=c11 -Wall -Werror -I"$WORK" "$WORK/app.c" -o "$WORK/app" || fail "the header does not compile"
"$WORK/app" >"$WORK/app.out"
want=$(sql "$WORK/t.db" "SELECT params FROM tuning WHERE device = '$other'")
[ "$(sed -n 1p "$WORK/app.out")" = "$want" ] || fail "rooftune_tuned_find: $(cat "$WORK/app.out"), want $want"
[ "$(sed -n 3p "$WORK/app.out")" = "1 2" ] || fail "header: $(cat "$WORK/app.out")"
python3 - "$WORK/tuned.yaml" "$other" <<'EOF' || fail "the YAML export does not read back"
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
entries = doc["entries"]
assert len(entries) == 2, entries
e = [x for x in entries if x["device"] == sys.argv[2]][0]
assert e["arch"] == "cpu" and e["memory_gb"] == 64 and e["kernel"] == "spmm.cpu.csr", e
assert isinstance(e["params"], dict) and e["params"]["col_block"] == 8, e
assert e["input"]["K"] == 8 and e["provenance"]["source"], e
EOF

# Portability: the generated config runs both devices' best configurations.
"$RT" portability --db "$WORK/t.db" --config "$cfg" --out "$WORK/port.yaml" >"$WORK/gen.out"
grep -q "configuration(s)" "$WORK/gen.out" || fail "generate: $(cat "$WORK/gen.out")"
"$RT" validate "$WORK/port.yaml" >/dev/null || fail "the generated config does not validate"
n_cfg=$(sql "$WORK/t.db" "SELECT COUNT(DISTINCT params) FROM tuning")
"$RT" run "$WORK/port.yaml" --db "$WORK/p1.db" --quiet >/dev/null
[ "$(sql "$WORK/p1.db" "SELECT COUNT(*) FROM points WHERE status = 'ok'")" = "$n_cfg" ] ||
  fail "the portability run measured $(sql "$WORK/p1.db" "SELECT COUNT(*) FROM points") points, want $n_cfg"
cp "$WORK/p1.db" "$WORK/p2.db"
sql "$WORK/p2.db" "UPDATE points SET device = '$other'"
"$RT" portability --db "$WORK/t.db" --table "$WORK/p1.db" "$WORK/p2.db" --markdown "$WORK/port.md" \
  >"$WORK/table.out" || fail "table: $(cat "$WORK/table.out")"
grep -q "^| tuned on \\\\ run on" "$WORK/port.md" || fail "no summary in the Markdown: $(head -5 "$WORK/port.md")"
python3 - "$WORK/port.md" "$here" "$other" "$WORK/p1.db" <<'EOF' || fail "the table's numbers"
import re, sqlite3, sys
rows = [l.strip().strip("|").split("|") for l in open(sys.argv[1]) if l.startswith("| spmm")]
rows = [[c.strip() for c in r] for r in rows]
assert len(rows) == 4, rows  # 2 configurations x 2 devices
times = dict(sqlite3.connect(sys.argv[4]).execute(
    "SELECT params, time_median_s FROM points WHERE status = 'ok'").fetchall())
for r in rows:
    kernel, matrix, problem, origin, target, params, t, own, loss, src = r
    assert abs(float(t) - times[params] * 1e3) <= 1e-3 * float(t), r
    if origin == target:
        assert loss == "+0.0%", r
    else:  # the other device's configuration against this one's own, both from this run
        own_params = [x for x in rows if x[3] == target and x[4] == target][0][5]
        want = (times[params] / times[own_params] - 1) * 100
        assert loss != "-" and abs(float(loss.rstrip("%")) - want) < 0.051, (r, want)
print("table rows:", len(rows))
EOF
# Bad input.
rc=0; "$RT" portability --db "$WORK/t.db" >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "portability without a mode: exit $rc"
rc=0; "$RT" portability --db "$WORK/t.db" --table "$WORK/a.db" --config "$cfg" >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "portability with both modes: exit $rc"
rc=0; "$RT" portability --db "$WORK/t.db" --config "$WORK/missing.yaml" --out "$WORK/x.yaml" >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] && [ ! -e "$WORK/x.yaml" ] || fail "missing config: exit $rc"
rc=0; "$RT" portability --db "$WORK/t.db" --config "$cfg" --out "$WORK/x.yaml" --kernel nope \
  >/dev/null 2>"$WORK/bad.err" || rc=$?
[ "$rc" = 2 ] && grep -q "no entry of kernel nope" "$WORK/bad.err" && [ ! -e "$WORK/x.yaml" ] ||
  fail "unknown kernel: exit $rc: $(cat "$WORK/bad.err")"
"$RT" run "$HERE/small.yaml" --db "$WORK/other.db" --quiet --set 'kernels=[{name: spmm.cpu.tiled}]' >/dev/null
rc=0; "$RT" portability --db "$WORK/t.db" --table "$WORK/other.db" >/dev/null 2>"$WORK/bad.err" || rc=$?
[ "$rc" = 2 ] && grep -q "measured a sweep of the tuning database" "$WORK/bad.err" ||
  fail "a store of another config: exit $rc: $(cat "$WORK/bad.err")"
echo garbage >"$WORK/garbage.db"
rc=0; "$RT" portability --db "$WORK/garbage.db" --table "$WORK/p1.db" >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "garbage tuning db: exit $rc"

# Merging tuning databases (each device tuned apart, as ci/gpu-tune-generation.sh does):
# `tune --from` a tuning database adds its entries as they were recorded (architecture, memory,
# provenance kept) into another; the merge of the two devices' databases equals the database both
# were harvested into; a slower entry of the same key changes nothing, a faster one replaces it.
"$RT" tune --from "$WORK/a.db" --tuning-db "$WORK/t-here.db" >/dev/null
"$RT" tune --from "$WORK/b.db" --tuning-db "$WORK/t-other.db" >/dev/null
"$RT" tune --from "$WORK/t-here.db" --tuning-db "$WORK/m.db" >"$WORK/merge.out" ||
  fail "merge: $(cat "$WORK/merge.out")"
grep -q "1 entry added or improved from $WORK/t-here.db" "$WORK/merge.out" || fail "merge: $(cat "$WORK/merge.out")"
"$RT" tune --from "$WORK/t-other.db" --tuning-db "$WORK/m.db" >/dev/null
entries() {
  sql "$1" "SELECT kernel||'|'||device||'|'||arch||'|'||input_class||'|'||params||'|'||time_s||'|'||
                   memory_bytes||'|'||json_extract(provenance, '\$.source')||'|'||json_array_length(evidence)
            FROM tuning ORDER BY kernel, device"
}
[ "$(entries "$WORK/m.db")" = "$(entries "$WORK/t.db")" ] ||
  fail "the merged database is not the one both stores were harvested into:
$(entries "$WORK/m.db")
against
$(entries "$WORK/t.db")"
cp "$WORK/t-other.db" "$WORK/t-slow.db"
sql "$WORK/t-slow.db" "UPDATE tuning SET time_s = time_s * 2, params = '{\"col_block\":8,\"row_block\":1}'"
"$RT" tune --from "$WORK/t-slow.db" --tuning-db "$WORK/m.db" >"$WORK/merge.out"
grep -q "0 entries added or improved" "$WORK/merge.out" && [ "$(entries "$WORK/m.db")" = "$(entries "$WORK/t.db")" ] ||
  fail "a slower entry replaced a faster one: $(cat "$WORK/merge.out")"
sql "$WORK/t-slow.db" "UPDATE tuning SET time_s = time_s / 1000"
"$RT" tune --from "$WORK/t-slow.db" --tuning-db "$WORK/m.db" >/dev/null
[ "$(sql "$WORK/m.db" "SELECT params FROM tuning WHERE device = '$other'")" = '{"col_block":8,"row_block":1}' ] ||
  fail "a faster entry did not replace the slower one"
# ... a tuning table recorded before the memory column merges with the memory of the device's name.
cp "$WORK/t-here.db" "$WORK/t-old.db"
sql "$WORK/t-old.db" "UPDATE tuning SET device = 'NVIDIA H200', arch = 'sm_90'; ALTER TABLE tuning DROP COLUMN memory_bytes"
"$RT" tune --from "$WORK/t-old.db" --tuning-db "$WORK/m.db" >/dev/null
[ "$(sql "$WORK/m.db" "SELECT memory_bytes FROM tuning WHERE device = 'NVIDIA H200'")" = 141000000000 ] ||
  fail "an old tuning table's entry merged without its device's memory"
# ... garbage as the source: exit 2, the target untouched.
before=$(fingerprint "$WORK/m.db")
for bad in "$WORK/garbage.db" "$WORK/missing.db"; do
  rc=0; "$RT" tune --from "$bad" --tuning-db "$WORK/m.db" >/dev/null 2>"$WORK/bad.err" || rc=$?
  [ "$rc" = 2 ] && [ "$(fingerprint "$WORK/m.db")" = "$before" ] || fail "merge from $bad: exit $rc"
done
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("CREATE TABLE tuning (x)"); c.commit()' \
  "$WORK/foreign.db"
rc=0; "$RT" tune --from "$WORK/foreign.db" --tuning-db "$WORK/m.db" >/dev/null 2>"$WORK/bad.err" || rc=$?
[ "$rc" = 2 ] && [ "$(fingerprint "$WORK/m.db")" = "$before" ] || fail "merge from a foreign SQLite file: exit $rc"
# ... entries that break the table's rules (a copy whose CHECKs were edited away): exit 2 naming
# the entry and what is wrong, the target untouched. A text time passes the table's CHECK (text
# sorts above numbers in SQLite), so the merge checks it itself.
declare -A want=(["time_s = 'abc'"]="time_s is not a positive number"
  ["time_s = -1"]="time_s is not a positive number" ["params = 'notjson'"]="CHECK constraint failed"
  ["device = NULL"]="NOT NULL constraint failed: tuning.device")
for bad in "${!want[@]}"; do
  cp "$WORK/t-other.db" "$WORK/t-bad.db"
  python3 - "$WORK/t-bad.db" "$bad" <<'EOF2'
import re, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
sql = c.execute("SELECT sql FROM sqlite_master WHERE name = 'tuning'").fetchone()[0]
c.execute("PRAGMA writable_schema = ON")
c.execute("UPDATE sqlite_master SET sql = ? WHERE name = 'tuning'",
          (re.sub(r"CHECK \((json_valid\(\w+\)|time_s > 0)\)", "", sql).replace("NOT NULL", ""),))
c.commit()
c.close()
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE tuning SET " + sys.argv[2])
c.commit()
EOF2
  rc=0; "$RT" tune --from "$WORK/t-bad.db" --tuning-db "$WORK/m.db" >/dev/null 2>"$WORK/bad.err" || rc=$?
  [ "$rc" = 2 ] && [ "$(fingerprint "$WORK/m.db")" = "$before" ] &&
    grep -q "t-bad.db: tuning entry 1 (spmm.cpu.csr on .*): ${want[$bad]}" "$WORK/bad.err" ||
    fail "merge of an entry with $bad: exit $rc: $(cat "$WORK/bad.err")"
done

# A database of several families' tunings: --config writes only the kernels its config tunes.
"$RT" tune --from "$WORK/other.db" --tuning-db "$WORK/m.db" >/dev/null
[ "$(sql "$WORK/m.db" "SELECT COUNT(DISTINCT kernel) FROM tuning")" = 2 ] || fail "two kernels' entries expected"
"$RT" portability --db "$WORK/m.db" --config "$cfg" --out "$WORK/port-csr.yaml" >/dev/null ||
  fail "--config on a database of two kernels"
grep -q "name: spmm.cpu.csr" "$WORK/port-csr.yaml" && ! grep -q "name: spmm.cpu.tiled" "$WORK/port-csr.yaml" ||
  fail "the config of spmm.cpu.csr runs other kernels: $(cat "$WORK/port-csr.yaml")"
"$RT" validate "$WORK/port-csr.yaml" >/dev/null || fail "the filtered config does not validate"
sed 's/spmm.cpu.csr/spmm.cpu.ell/' "$cfg" >"$WORK/ell.yaml"
rc=0; "$RT" portability --db "$WORK/m.db" --config "$WORK/ell.yaml" --out "$WORK/x.yaml" \
  >/dev/null 2>"$WORK/bad.err" || rc=$?
[ "$rc" = 2 ] && grep -q "no entry of a kernel $WORK/ell.yaml tunes" "$WORK/bad.err" && [ ! -e "$WORK/x.yaml" ] ||
  fail "a config none of whose kernels is tuned: exit $rc: $(cat "$WORK/bad.err")"
echo "tuned: ok"
