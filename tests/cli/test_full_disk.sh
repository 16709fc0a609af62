# cli.full_disk (issue 13 item 14, issue 37 item 6): every file rooftune writes is written to a
# temporary name and renamed into place only when complete, and the success line comes after.
# A write that fails (here: a file size limit of 0, `ulimit -f 0`, which fails every write with
# "File too large" as a full disk fails it with "No space left on device") leaves the old file
# as it was or no file at all, no temporary, no empty folder, and says which file and why:
# plot (.dat/.gp), replay --csv/--plot/--write-t4, matrix --out, best --export-header, export
# --out, compare --markdown (and no verdict printed before it), report --html, figures. A figure
# whose .dat is a link to /dev/full names the link and the device's reason. replay --csv appends
# only to a CSV of its own (same header), and quotes labels as RFC 4180 says.
. "$2/lib.sh"
"$RT" run "$HERE/small.yaml" --db "$WORK/s.db" --set kernels.0.params.row_block=[32] \
  --set problem.layout=[row] --quiet >"$WORK/run.log" 2>&1 || fail "run: $(tail -3 "$WORK/run.log")"
cp "$HERE/../fuzz/corpus/recorded/kt.json" "$WORK/k.json"
"$RT" tune --from "$WORK/s.db" --tuning-db "$WORK/t.db" >/dev/null || fail "tune --from"
"$RT" plot --db "$WORK/s.db" --out "$WORK/figs" >"$WORK/plot.log" 2>&1 || fail "plot: $(cat "$WORK/plot.log")"
"$RT" replay "$WORK/k.json" --budget 2 --repeats 1 --strategy random --csv "$WORK/r.csv" >/dev/null ||
  fail "replay --csv"
for f in r.csv t4.json m.mtx h.h points.csv cmp.md; do echo "old $f" >"$WORK/$f.old"; done
cp "$WORK/r.csv" "$WORK/r.csv.keep"
figs_before=$(cd "$WORK/figs" && fingerprint *)

# limited BLOCKS CODE PATTERN CMD...: CMD under a file size limit of BLOCKS kB (SIGXFSZ ignored,
# so writes fail with EFBIG instead of killing the process); its output goes through a pipe,
# which the limit does not touch. full: the same with a limit of 0.
limited() {
  expect "$2" "$3" bash -c 'set -o pipefail; (ulimit -f "$0"; trap "" XFSZ; exec "$@") 2>&1 | cat' \
    "$1" "${@:4}"
}
full() { limited 0 "$@"; }

# plot: 1 kB lets the figure's .dat (under 1 kB, the same data as before) through and stops its .gp
limited 1 3 "cannot write .*figs/by-row-block.gp: File too large \(the file is left as it was\)" \
  "$RT" plot --db "$WORK/s.db" --out "$WORK/figs"
[ "$(cd "$WORK/figs" && fingerprint *)" = "$figs_before" ] || fail "a failed plot changed the old figures"
limited 1 3 "cannot write .*new/deeper/by-row-block.gp: File too large \(no file was made\)" \
  "$RT" plot --db "$WORK/s.db" --out "$WORK/new/deeper"
[ ! -e "$WORK/new/deeper/by-row-block.gp" ] || fail "a failed plot left a script"
full 3 "rooftune replay: --csv: cannot write .*r.csv: File too large \(the file is left as it was\)" \
  "$RT" replay "$WORK/k.json" --budget 2 --repeats 1 --strategy random --csv "$WORK/r.csv"
cmp -s "$WORK/r.csv" "$WORK/r.csv.keep" || fail "a failed --csv changed the CSV"
full 3 "cannot write .*fresh.csv: File too large \(no file was made\)" \
  "$RT" replay "$WORK/k.json" --budget 2 --repeats 1 --strategy random --csv "$WORK/fresh.csv"
[ ! -e "$WORK/fresh.csv" ] || fail "a failed --csv left a file"
full 3 "rooftune replay: --plot: cannot write .*rfigs/k-score.dat: File too large" \
  "$RT" replay "$WORK/k.json" --budget 2 --repeats 1 --strategy random --plot "$WORK/rfigs"
grep -q "^figure:" "$WORK/out.txt" && fail "replay --plot said it drew a figure"
[ ! -e "$WORK/rfigs" ] || fail "a failed --plot left $(ls -A "$WORK/rfigs")"
for out in t4.json t4.json.gz; do
  cp "$WORK/t4.json.old" "$WORK/$out"
  full 3 "rooftune replay: --write-t4: cannot write .*$out: File too large \(the file is left as it was\)" \
    "$RT" replay "$WORK/k.json" --write-t4 "$WORK/$out"
  cmp -s "$WORK/$out" "$WORK/t4.json.old" || fail "a failed --write-t4 changed $out"
  grep -q "^wrote" "$WORK/out.txt" && fail "replay said it wrote $out"
done
cp "$WORK/m.mtx.old" "$WORK/m.mtx"
full 3 "cannot write .*m.mtx: File too large \(the file is left as it was\)" \
  "$RT" matrix --generator banded --arg rows=500 --out "$WORK/m.mtx"
cmp -s "$WORK/m.mtx" "$WORK/m.mtx.old" || fail "a failed matrix --out changed the file"
grep -q "wrote" "$WORK/out.txt" && fail "matrix --out said it wrote the file"
cp "$WORK/h.h.old" "$WORK/h.h"
full 3 "cannot write .*h.h: File too large" "$RT" best --db "$WORK/t.db" --export-header "$WORK/h.h"
cmp -s "$WORK/h.h" "$WORK/h.h.old" || fail "a failed --export-header changed the header"
full 3 "cannot write .*y.yaml: File too large \(no file was made\)" "$RT" best --db "$WORK/t.db" --export-yaml "$WORK/y.yaml"
[ ! -e "$WORK/y.yaml" ] || fail "a failed --export-yaml left a file"
cp "$WORK/points.csv.old" "$WORK/points.csv"
full 3 "cannot write .*points.csv: File too large" "$RT" export --db "$WORK/s.db" --out "$WORK/points.csv"
cmp -s "$WORK/points.csv" "$WORK/points.csv.old" || fail "a failed export changed the file"
full 3 "rooftune compare: --markdown: cannot write .*cmp.md: File too large" \
  "$RT" compare "$WORK/s.db" "$WORK/s.db" --markdown "$WORK/cmp.md"
grep -q "verdict" "$WORK/out.txt" && fail "compare printed a verdict, then failed to write its Markdown"
full 3 "cannot write .*File too large" "$RT" report --html "$WORK/site" --db "$WORK/s.db"
[ -z "$(find "$WORK/site" -type d -empty 2>/dev/null)" ] || fail "report left empty folders: $(find "$WORK/site")"
[ ! -e "$WORK/site/index.html" ] || fail "a failed report left an index.html"
mkdir -p "$WORK/res/baselines/dev"
cp "$WORK/s.db" "$WORK/res/baselines/dev/s.db"
full 2 "cannot write .*File too large" "$RT" figures --results "$WORK/res" --out "$WORK/allfigs" --no-roofline
[ ! -e "$WORK/allfigs" ] || fail "a failed figures left folders: $(find "$WORK/allfigs")"
no_temporaries "$WORK"
no_temporaries "$WORK/figs"

# A figure file that is a link to /dev/full: written in place, refused with the device's reason.
rm -rf "$WORK/figs" && mkdir -p "$WORK/figs"
ln -s /dev/full "$WORK/figs/by-row-block.dat"
expect 3 "by-row-block.dat \(a link to /dev/full\): No space left on device" \
  "$RT" plot --db "$WORK/s.db" --out "$WORK/figs"
for f in by-row-block.gp by-row-block.svg by-row-block.png; do
  [ ! -e "$WORK/figs/$f" ] || fail "full .dat: $f written anyway: $(ls -l "$WORK/figs")"
done

# --csv appends only to a CSV of its own, and quotes what needs quoting.
echo '{"a": 1}' >"$WORK/x.json"
sqlite3 "$WORK/other.db" "CREATE TABLE t (x)"
printf 'a,b,c\n1,2,3\n' >"$WORK/other.csv"
for target in x.json other.db other.csv; do
  before=$(fingerprint "$WORK/$target")
  expect 2 "rooftune replay: --csv: .*$target is not a CSV of this command \(its first line is" \
    "$RT" replay "$WORK/k.json" --budget 2 --repeats 1 --strategy random --csv "$WORK/$target"
  [ "$(fingerprint "$WORK/$target")" = "$before" ] || fail "--csv changed $target"
done
label=$(printf 'a,b "c"\nd')
"$RT" replay "$WORK/k.json" --budget 2 --repeats 1 --strategy random --csv "$WORK/r.csv" \
  --label "$label" >/dev/null || fail "replay --csv with a label to quote"
python3 - "$WORK/r.csv" "$label" <<'PY' || fail "the CSV does not read back"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows[0][0] == "space" and len(rows) == 3, rows
assert all(len(r) == len(rows[0]) for r in rows), rows
assert rows[2][0] == sys.argv[2], (rows[2][0], sys.argv[2])
PY
echo "cli.full_disk: ok"
