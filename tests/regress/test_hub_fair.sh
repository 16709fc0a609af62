#!/usr/bin/env bash
# results.hub_fair (issue 35, item 1): results/tuning/hub-fair/README.md is exactly what
# bench/kernel-tuner/fair.py prints from the committed CSVs (no Kernel Tuner run: the table step
# reads files only), a changed run changes it, the tuning guide's figures are the table's
# (check_hub_fair_doc.py), and bad input is refused with exit 2 naming its file, line and column.
#   $1 = repository root, $2 = scratch folder
set -uo pipefail
ROOT=$1
WORK=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
IN="$ROOT/results/tuning/hub-fair"
SCORES="$ROOT/results/tuning/hub/scores.csv"
FAIR="$ROOT/bench/kernel-tuner/fair.py"
rm -rf "$WORK" && mkdir -p "$WORK"
fresh() { rm -rf "$WORK/$1" && mkdir -p "$WORK/$1" && cp "$IN"/*.csv "$IN"/provenance.txt "$WORK/$1/"; }
# The table (seeds 11-60, one strategy per budget), the per-cell choice on the same seeds, the
# per-cell choice on seeds 61-80 and the per-budget one on seeds 61-110 (seeds no setting of either
# tool was chosen on).
MAIN=(--heldout 11-60 --choice budget)
# Seeds 111-160 (both rules) take their choice from their own scores file (rooftune's strategies
# changed after results/tuning/hub/scores.csv was made).
S111="$ROOT/results/tuning/hub-fair/seeds-111-160/scores-1-10.csv"
for set in ":11-60:budget:$SCORES" "cell-11-60:11-60:cell:$SCORES" "seeds-61-80:61-80:cell:$SCORES" \
  "seeds-61-110:61-110:budget:$SCORES" "seeds-111-160:111-160:budget:$S111" \
  "seeds-111-160/cell:111-160:cell:$S111"; do
  IFS=: read -r sub seeds choice scores <<<"$set"
  rm -rf "$WORK/ok" && mkdir -p "$WORK/ok" && cp "$IN/$sub"/runs.csv "$IN/$sub"/spaces.csv \
    "$IN/$sub"/repeat.csv "$IN/$sub/provenance.txt" "$WORK/ok/"
  python3 "$FAIR" table "$WORK/ok" --scores "$scores" --heldout "$seeds" --choice "$choice" \
    >/dev/null ||
    fail "fair.py table failed on $IN/$sub"
  diff -u "$IN/$sub/README.md" "$WORK/ok/README.md" >"$WORK/diff.txt" ||
    fail "$IN/$sub/README.md is not what fair.py prints from the committed CSVs:
$(head -40 "$WORK/diff.txt")"
done
# The interval's t quantile against the textbook's (0.975, 1, 4, 19 and 29 degrees of freedom).
python3 - "$ROOT/bench/kernel-tuner" <<'PY' || fail "fair.py's t quantiles"
import sys
sys.path.insert(0, sys.argv[1])
from fair import t975
for df, want in ((1, 12.706), (4, 2.776), (19, 2.093), (29, 2.045)):
    assert abs(t975(df) - want) < 5e-4, (df, t975(df), want)
PY
# edit FOLDER FILE LINE COLUMN VALUE: that cell of the copy in FOLDER becomes VALUE.
edit() {
  python3 - "$WORK/$1/$2" "$3" "$4" "$5" <<'PY'
import csv, sys
path, line, col, value = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rows = list(csv.reader(open(path)))
rows[line - 1][rows[0].index(col)] = value
csv.writer(open(path, "w", newline="")).writerows(rows)
PY
}
# Sensitivity: the first held-out Kernel Tuner run finding nothing valid (the slowest valid time)
# moves its cell's score, so the table must change.
fresh moved
line=$(awk -F, '$1 == "kernel_tuner" && $5 >= 11 { print NR; exit }' "$WORK/moved/runs.csv")
edit moved runs.csv "$line" best ""
python3 "$FAIR" table "$WORK/moved" --scores "$SCORES" "${MAIN[@]}" >/dev/null || fail "fair.py table failed"
if cmp -s "$IN/README.md" "$WORK/moved/README.md"; then
  fail "a held-out run that found nothing left the table unchanged"
fi
# The guide's figures, and a guide with one of them changed must fail.
python3 "$ROOT/tests/regress/check_hub_fair_doc.py" "$ROOT" || fail "the tuning guide's figures"
python3 - "$ROOT/docs/guides/tuning.md" "$WORK/guide-bad.md" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"ahead in (\d+), tied in", text)
assert m, "no 'ahead in N, tied in' in the guide"
bad = text[:m.start(1)] + str(int(m.group(1)) + 1) + text[m.end(1):]
open(sys.argv[2], "w").write(bad)
PY
if python3 "$ROOT/tests/regress/check_hub_fair_doc.py" "$ROOT" --page="$WORK/guide-bad.md" \
  >/dev/null 2>&1; then
  fail "check_hub_fair_doc.py accepted a guide with a wrong count"
fi
# bad FILE LINE COLUMN VALUE WANT: that cell of a copy replaced by VALUE is refused (exit 2) with
# WANT in the message.
bad() {
  local file=$1 line=$2 col=$3 value=$4 want=$5
  fresh bad
  edit bad "$file" "$line" "$col" "$value"
  local out rc
  out=$(python3 "$FAIR" table "$WORK/bad" --scores "$SCORES" "${MAIN[@]}" 2>&1)
  rc=$?
  [ "$rc" = 2 ] || fail "fair.py exited $rc on '$value' in $file:$line $col, want 2: $out"
  grep -qF "$want" <<<"$out" || fail "no '$want' in: $out"
}
bad runs.csv 5 seed eleven "runs.csv:5: column seed"
bad runs.csv 9 best 0.8ms "runs.csv:9: column best"
bad runs.csv 3 evaluations '' "runs.csv:3: column evaluations"
bad runs.csv 4 best 1e9 "runs.csv:4: column best: 1e+09 is outside"
bad spaces.csv 2 optimum fast "spaces.csv:2: column optimum"
bad spaces.csv 4 random_best 0.001 "spaces.csv:4: column"
bad repeat.csv 6 best_again x "repeat.csv:6: column best_again"
# A seed given twice, a scores file without its columns, held-out seeds that overlap 1-10.
fresh dup
sed -n 2p "$IN/runs.csv" >>"$WORK/dup/runs.csv"
out=$(python3 "$FAIR" table "$WORK/dup" --scores "$SCORES" "${MAIN[@]}" 2>&1)
[ $? = 2 ] && grep -q "given twice" <<<"$out" || fail "a seed given twice: $out"
printf 'a,b\n1,2\n' >"$WORK/noscores.csv"
out=$(python3 "$FAIR" table "$WORK/ok" --scores "$WORK/noscores.csv" "${MAIN[@]}" 2>&1)
[ $? = 2 ] && grep -q "noscores.csv lacks" <<<"$out" || fail "a scores file without columns: $out"
out=$(python3 "$FAIR" table "$WORK/ok" --scores "$SCORES" --heldout 5-20 2>&1)
[ $? = 2 ] && grep -q "overlaps" <<<"$out" || fail "held-out seeds 5-20: $out"
out=$(python3 "$FAIR" table "$WORK/ok" --scores "$SCORES" --choice space 2>&1)
[ $? = 2 ] && grep -q "choice" <<<"$out" || fail "an unknown --choice: $out"
# The per-budget rule gives every cell of a budget one strategy per tool; the per-cell rule does
# not (the committed scores pick different strategies per cell).
python3 - "$ROOT/bench/kernel-tuner" "$SCORES" <<'PY' || fail "fair.py's choice rules"
import sys
sys.path.insert(0, sys.argv[1])
from fair import chosen
for rule, want_one in (("budget", True), ("cell", False)):
    c = chosen(sys.argv[2], rule)
    for tool in ("rooftune", "kernel_tuner"):
        one = all(len({c[k][tool]["strategy"] for k in c if k[1] == b}) == 1
                  for b in {k[1] for k in c})
        assert one == want_one, (rule, tool)
PY
# fair.py choice: Kernel Tuner's rows kept as they are, rooftune's scored from its runs (a toy
# space of 4 configurations, times 1 to 4: random search's expectation at 2 is 5/3, so a mean best
# of 1.5 scores 0.25), and bad runs
# refused with exit 2 naming the file, line and column.
mkdir -p "$WORK/choice" && cd "$WORK/choice" || fail "no scratch folder"
python3 - <<'PY'
import json
cache = {"%d" % i: {"x": i, "time": float(i + 1)} for i in range(4)}
json.dump({"tune_params_keys": ["x"], "tune_params": {"x": [0, 1, 2, 3]}, "cache": cache},
          open("toy.json", "w"))
PY
printf 'tool,space,strategy,budget,repeats,score,frac_optimum,mean_best,random_best,optimum,mean_evaluations,early_runs\nkernel_tuner,toy,pso,2,10,0.5,0.8,1.5,2,1,2.00,0\n' >scores.csv
printf 'tool,space,strategy,budget,seed,best,evaluations,seconds,note\nrooftune,toy,tpeils,2,1,1.0,2,0.01,\nrooftune,toy,tpeils,2,2,2.0,2,0.01,\n' >runs.csv
python3 "$FAIR" choice out.csv toy.json --scores scores.csv --runs runs.csv ||
  fail "fair.py choice failed on a good input"
grep -q '^kernel_tuner,toy,pso,2,10,0.5,' out.csv || fail "choice lost Kernel Tuner's row: $(cat out.csv)"
grep -q '^rooftune,toy,tpeils,2,2,0.250000,' out.csv || fail "choice scored rooftune wrongly: $(cat out.csv)"
choice_bad() {
  sed "3s/.*/$1/" runs.csv >bad.csv
  local out rc
  out=$(python3 "$FAIR" choice out.csv toy.json --scores scores.csv --runs bad.csv 2>&1)
  rc=$?
  [ "$rc" = 2 ] && grep -qF "$2" <<<"$out" || fail "choice on '$1': exit $rc, want 2 and '$2': $out"
}
choice_bad "kernel_tuner,toy,pso,2,2,1.0,2,0.01," "bad.csv:3: column tool"
choice_bad "rooftune,toy,tpeils,2,11,1.0,2,0.01," "bad.csv:3: column seed"
choice_bad "rooftune,toy,tpeils,two,2,1.0,2,0.01," "bad.csv:3: column budget"
choice_bad "rooftune,other,tpeils,2,2,1.0,2,0.01," "bad.csv:3: column space"
cd - >/dev/null || true
echo "results.hub_fair: ok"
