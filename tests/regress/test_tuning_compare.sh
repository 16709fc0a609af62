# tuning.compare (issue 33, item 5): results/tuning/README.md is exactly what
# bench/kernel-tuner/compare.py prints from the committed CSV files (distinct evaluations counted,
# the H100 spaces' store version said), and a malformed value in an input is bad input (exit 2)
# naming its file, line and column.
#   $1 = repository root, $2 = scratch folder
set -uo pipefail
ROOT=$1
WORK=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$WORK" && mkdir -p "$WORK/ok" "$WORK/bad"
IN="$ROOT/results/tuning"
cp "$IN"/*.csv "$IN"/*.txt "$WORK/ok/"
python3 "$ROOT/bench/kernel-tuner/compare.py" "$WORK/ok" --no-figure >/dev/null || fail "compare.py failed"
diff -u "$IN/README.md" "$WORK/ok/README.md" >"$WORK/diff.txt" ||
  fail "results/tuning/README.md is not what compare.py prints from the committed CSVs:
$(head -40 "$WORK/diff.txt")"
# bad FILE LINE COLUMN VALUE: that cell of a copy replaced by VALUE must be refused, named.
bad() {
  local file=$1 line=$2 col=$3 value=$4
  rm -rf "$WORK/bad" && mkdir -p "$WORK/bad" && cp "$IN"/*.csv "$IN"/*.txt "$WORK/bad/"
  python3 - "$WORK/bad/$file" "$line" "$col" "$value" <<'PY'
import csv, sys
path, line, col, value = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rows = list(csv.reader(open(path)))
rows[line - 1][rows[0].index(col)] = value
csv.writer(open(path, "w", newline="")).writerows(rows)
PY
  set +e
  out=$(python3 "$ROOT/bench/kernel-tuner/compare.py" "$WORK/bad" --no-figure 2>&1)
  rc=$?
  set -e
  [ "$rc" = 2 ] || fail "compare.py exited $rc on $value in $file:$line $col, want 2: $out"
  grep -qF "$file:$line: column $col" <<<"$out" || fail "no '$file:$line: column $col' in: $out"
}
set -e
bad kernel_tuner_runs_h100.csv 3 distinct_evaluations many
bad kernel_tuner_runs.csv 7 budget twenty
bad rooftune_replay.csv 2 mean_evals ''
bad rooftune_replay_h100.csv 4 optimum 0.4e-3s
echo "tuning.compare: ok"
