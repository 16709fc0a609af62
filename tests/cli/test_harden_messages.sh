# cli.harden_messages (issue 37, item 11): each of these says what is wrong, in words, with exit
# status 2: JSON null, 42 and an empty file as a recorded space; a text file and /dev/null as a
# store; `tune CONFIG --from STORE`; tune's own errors (named "rooftune tune", not "run");
# --arg density=nan; --arch sm_ and sm_99999999999999999999; duplicate JSON keys; text after the
# JSON value; a NaN time; --model-only with an unreadable --machine file. A T4 file written by rooftune keeps its kernel and device names.
. "$2/lib.sh"
printf 'null' >"$WORK/null.json"
printf '42' >"$WORK/num.json"
: >"$WORK/empty.json"
expect 2 "null.json is JSON but null, not an object" "$RT" replay "$WORK/null.json"
expect 2 "num.json is JSON but a number, not an object" "$RT" replay "$WORK/num.json"
expect 2 "empty.json is empty; a recorded space is a JSON object" "$RT" replay "$WORK/empty.json"
echo "some text" >"$WORK/text.db"
expect 2 "text.db: not a SQLite database, so not a rooftune result store" "$RT" best --db "$WORK/text.db" --kernel k
expect 2 "cannot open /dev/null: not a regular file" "$RT" best --db /dev/null --kernel k
expect 3 "the store /dev/null is not a regular file" "$RT" run "$HERE/small.yaml" --db /dev/null --quiet
grep -q "disk I/O error" "$WORK/out.txt" && fail "SQLite's 'disk I/O error' instead of the reason"
expect 2 "rooftune tune: --from records from an existing store without running anything, so it takes no CONFIG" \
  "$RT" tune "$HERE/small.yaml" --from "$WORK/text.db"
expect 2 "^rooftune tune: expected exactly one CONFIG file" "$RT" tune --db "$WORK/t.db"
grep -q "rooftune run:" "$WORK/out.txt" && fail "tune's error is signed 'rooftune run'"
expect 2 "--arg density: 'nan' is not a finite number" "$RT" matrix --generator uniform --arg density=nan
expect 2 "--arch expects sm_XY or sm_XYZ .* got 'sm_'" "$RT" best --db x --kernel k --arch sm_
expect 2 "--arch expects sm_XY or sm_XYZ .* got 'sm_99999999999999999999'" \
  "$RT" tune --from x --arch sm_99999999999999999999
# --model-only with a machine file that cannot be read is bad input (exit 2), not a failure
echo "not: [a machine" >"$WORK/bad-machine.yaml"
expect 2 "--model-only: machine" "$RT" run "$HERE/../../configs/ci/hierarchical-comm-small.yaml" \
  --model-only --ranks 8 --machine "$WORK/bad-machine.yaml" --db "$WORK/m.db"
# duplicate keys, trailing text, a NaN time
K="$HERE/../fuzz/corpus/recorded/kt.json"
sed 's/"128,b": {/"128,a": {"block": 128, "variant": "a", "time": 9.0}, "128,b": {/' "$K" >"$WORK/dup.json"
expect 2 "dup.json: key \"128,a\" appears twice in one object \(at bytes [0-9]+ and [0-9]+\)" "$RT" replay "$WORK/dup.json"
{ cat "$K"; echo ' {"more": 1}'; } >"$WORK/trail.json"
expect 2 "trail.json: text after the JSON value, at byte" "$RT" replay "$WORK/trail.json"
sed 's/"time": 0.5}/"time": NaN}/' "$K" >"$WORK/nan.json"
expect 2 "nan.json: cache entry '128,b': time is nan" "$RT" replay "$WORK/nan.json"
# a T4 file rooftune writes keeps the kernel and device
expect 0 "wrote" "$RT" replay "$K" --write-t4 "$WORK/back.json.gz"
expect 0 "space back: k on dev, 2 parameters, 5 configurations \(4 valid\)" \
  "$RT" replay "$WORK/back.json.gz" --budget 2 --repeats 1 --strategy random
echo "cli.harden_messages: ok"
