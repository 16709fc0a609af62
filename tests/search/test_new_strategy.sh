#!/usr/bin/env bash
# A new strategy is one file plus one line: the test build's rooftune (the project's strategy list
# plus `toy`) lists it with its option, validates a config that names it (and refuses bad options
# with file:line), runs it live and replays it; the project's rooftune refuses the name. Through the
# real runner, a live run and a replay of the space with the same strategy, seed and budget measure
# the same configurations in the same order (random and exhaustive, whose paths do not depend on
# measured times; every strategy through the API: ctest search.live_replay).
set -euo pipefail
toy=$1; main=$2; dir=$3; work=$4
rm -rf "$work"; mkdir -p "$work"; cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_bad() { # expect_bad NEEDLE COMMAND...: exit status 2 and NEEDLE in the message
  local needle=$1; shift
  set +e; "$@" >bad.txt 2>&1; local rc=$?; set -e
  [ "$rc" -eq 2 ] || { cat bad.txt; fail "exit $rc, not 2, for: $*"; }
  grep -qF -- "$needle" bad.txt || { cat bad.txt; fail "no '$needle' for: $*"; }
}

"$toy" list --cpu >list.txt
grep -q "^  toy " list.txt || fail "toy not listed"
grep -q "option jump = 2 (integer 1..100)" list.txt || fail "toy's option not listed"
if "$main" list --cpu | grep -q "^  toy "; then fail "the project's rooftune lists toy"; fi
"$toy" replay --help | grep -q "^  toy " || fail "toy not in replay --help"

"$toy" validate "$dir/toy.yaml" >v.txt 2>&1 || { cat v.txt; fail "the toy build refuses toy"; }
expect_bad "toy.yaml:14:20: search.strategy: expected one of exhaustive, random" \
  "$main" validate "$dir/toy.yaml"
# Garbage in search.options: a name the strategy lacks, out of range, not a number, not a map,
# and an option given to a strategy that has none.
expect_bad "search.options.jmp: strategy toy has no option 'jmp' (did you mean 'jump'?)" \
  "$toy" validate "$dir/toy.yaml" --set search.options.jmp=3
expect_bad "search.options.jump: strategy toy option jump must be an integer in [1, 100], not 0" \
  "$toy" validate "$dir/toy.yaml" --set search.options.jump=0
expect_bad "search.options.jump: expected a number, got" \
  "$toy" validate "$dir/toy.yaml" --set 'search.options.jump=[1]'
expect_bad "search.options: expected a map" \
  "$toy" validate "$dir/toy.yaml" --set 'search.options=7'
expect_bad "strategy random has no options ('jump' given)" \
  "$toy" validate "$dir/toy.yaml" --set search.strategy=random

# Live: six feasible points measured (the budget), none twice.
"$toy" run "$dir/toy.yaml" --db toy.db --quiet >run.txt 2>&1 || { cat run.txt; fail "run toy"; }
python3 - toy.db <<'PY'
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(
    "SELECT params, status FROM points WHERE kernel = 'spmm.cpu.csr'").fetchall()
ran = [p for p, s in rows if s != "infeasible"]
assert len(ran) == 6 and len(set(ran)) == 6, rows
print("toy, live: 6 points, all distinct")
PY

# The whole space (exhaustive), then replayed with toy and with the strategies whose path does not
# depend on times, compared with live runs of those.
"$toy" run "$dir/toy.yaml" --db all.db --quiet --set search.strategy=exhaustive \
  --set search.budget=0 --set 'search.options={}' >all.txt 2>&1 || { cat all.txt; fail "run all"; }
for s in random exhaustive; do
  "$toy" run "$dir/toy.yaml" --db "$s.db" --quiet --set search.strategy=$s \
    --set 'search.options={}' >"$s.txt" 2>&1 || { cat "$s.txt"; fail "run $s"; }
done
"$toy" replay all.db --strategy toy,random,exhaustive --budget 6 --repeats 2 --seed 4 \
  --option toy.jump=1 --trace trace.csv >replay.txt 2>&1 || { cat replay.txt; fail "replay"; }
grep -q "^toy " replay.txt || fail "replay printed no toy row"
expect_bad "--option toy.jmp=1: strategy toy has no option 'jmp'" \
  "$toy" replay all.db --strategy toy --option toy.jmp=1
expect_bad "--strategy 'toi' is unknown (did you mean 'toy'?)" "$toy" replay all.db --strategy toi
expect_bad "--option expects STRATEGY.OPTION=NUMBER" "$toy" replay all.db --option jump=1
expect_bad "--option: strategy 'tooy' is unknown" "$toy" replay all.db --option tooy.jump=1
# --runs: one row per search; an output that cannot be written is an error, not a silent loss.
"$toy" replay all.db --strategy toy,random --budget 3,5 --repeats 2 --runs runs.csv >/dev/null
[ "$(wc -l <runs.csv)" -eq 9 ] || { cat runs.csv; fail "--runs wrote $(wc -l <runs.csv) lines, not 9"; }
set +e; "$toy" replay all.db --strategy toy --runs "$work/none/runs.csv" >bad.txt 2>&1; rc=$?; set -e
[ "$rc" -ne 0 ] && grep -q "cannot write $work/none/runs.csv" bad.txt || { cat bad.txt; fail "--runs to a missing folder: exit $rc"; }
python3 - trace.csv random.db exhaustive.db <<'PY'
import csv, json, sqlite3, sys
trace = list(csv.DictReader(open(sys.argv[1])))
assert {r["strategy"] for r in trace} == {"toy", "random", "exhaustive"}, trace[:3]
for name, db in (("random", sys.argv[2]), ("exhaustive", sys.argv[3])):
    rows = sqlite3.connect(db).execute(
        "SELECT params FROM points WHERE kernel = 'spmm.cpu.csr' AND status != 'infeasible'"
        " ORDER BY id").fetchall()
    live = [";".join("%s=%s" % kv for kv in json.loads(p).items()) for (p,) in rows]
    replayed = [r["configuration"] for r in trace if r["strategy"] == name and r["seed"] == "4"]
    assert live == replayed, (name, live, replayed)
    print("%s: live run and replay measured the same %d configurations in order" % (name, len(live)))
PY
echo "new strategy: OK"
