# sptrsv.rhs_table: ci/sptrsv-rhs-table.sh builds the right-hand-side table from several part
# stores (configs/paper/sptrsv-rhs-*.yaml write one each), on stand-ins made of the committed 4 x
# H200 bar store (results/baselines/h200-x4/sptrsv-scaling.db: forward, one right-hand side):
#   - the store as it is: the bar's numbers (docs/families/sptrsv.md states them), the option
#     sets' fates (20 infeasible, 24 in full, 4 sliced-ELL SpSV stopped early a matrix) and each
#     stopped point with its fastest time, the best it lost to and where it stopped;
#   - a second store, its points relabelled backward with 8 right-hand sides, plus a newer run
#     at another revision holding a 4-GPU persistent point and a cuSPARSE point stopped at its
#     verification execution against abort_group baseline: only that run's points count there;
#   - both stores at once: the rows of each, every store with its own revision;
#   - bad input, exit 2 naming it: no store, a missing one, a file that is not a store, 11 stores.
# Skipped (77) without the sqlite3 shell.
#   $1 source root, $2 scratch folder
. "$(dirname "$0")/../rt_test_lib.sh"
rt_args ROOT WORK -- "$@"
command -v sqlite3 >/dev/null || {
  echo "sqlite3 not installed: skipped"
  exit 77
}
rt_scratch "$WORK"
TABLE=$ROOT/ci/sptrsv-rhs-table.sh
cp "$ROOT/results/baselines/h200-x4/sptrsv-scaling.db" "$WORK/bar.db"
# row TEXT REGEX: the output has a line that starts with REGEX (an extended regular expression
# over the line with its runs of spaces collapsed), then a space or its end.
row() {
  local text=$1
  shift
  grep -qE "^$*( |$)" <<<"$(tr -s ' ' <<<"$text")" || fail "no row '$*' in:
$text"
}

out=$(bash "$TABLE" "$WORK/bar.db") || fail "the table failed on the bar store"
row "$out" "lap3d27-70 forward 1 179.166 spsv csr lower 32 col 25.693 6.718 5.854 4.39 1.15"
row "$out" "lap3d7-84 forward 1 314.938 spsv csr lower 32 col 50.429 11.938 9.085 5.55 1.31"
row "$out" "lap3d27-70 forward 1 48 20 24 4 0"
row "$out" "lap3d27-70 forward 1 sptrsv.cuda.cusparse spsv sell lower 32 col 1 8360.125 179.166 46.7 repetitions \(its sweep\)"
row "$out" "lap3d7-84 forward 1 sptrsv.cuda.cusparse spsv sell upper 64 col 1 12836.264 314.938 40.8 repetitions \(its sweep\)"
row "$out" "bar c0a230f \(clean\) 116 76 40 0"

# The second part: relabelled, then a newer run at another revision.
cp "$WORK/bar.db" "$WORK/part.db"
COLS="experiment, kernel, backend, family, matrix, params, problem, ranks, device, point_key, status,
      reason, verified, time_median_s, time_min_s, flops, measured_at"
sqlite3 "$WORK/part.db" "
  UPDATE points SET problem = json_set(problem, '\$.solve', 'backward', '\$.nrhs', 8);
  INSERT INTO runs (experiment, status, started_at, git_revision, git_dirty, compiler, build_id,
                    nranks, config_hash)
    SELECT experiment, 'complete', started_at, 'feedface0000000000000000000000000000000000', 0,
           compiler, build_id, nranks, config_hash FROM runs ORDER BY id DESC LIMIT 1;
  INSERT INTO points (run_id, $COLS)
    SELECT (SELECT MAX(id) FROM runs), experiment, kernel, backend, family, matrix, params, problem,
           ranks, device, point_key || 'n', status, reason, verified, 1e-3, 1e-3, flops, measured_at
    FROM points WHERE matrix = 'lap3d27-70' AND kernel = 'sptrsv.cuda.persistent'
      AND json_extract(params, '\$.parts') = 4 LIMIT 1;
  INSERT INTO samples (point_id, rep, seconds)
    SELECT (SELECT MAX(id) FROM points), r.rep, 1e-3 FROM
      (SELECT 0 rep UNION SELECT 1 UNION SELECT 2 UNION SELECT 3 UNION SELECT 4 UNION SELECT 5) r;
  INSERT INTO points (run_id, $COLS)
    SELECT (SELECT MAX(id) FROM runs), experiment, kernel, backend, family, matrix, params, problem,
           ranks, device, point_key || 'v', 'ok',
           'early abort at its verification execution: the fastest, 250000 ms, is over '
           || 'measure.abort_factor 10 x the best of abort_group baseline 100 ms',
           1, 250.0, 250.0, flops, measured_at
    FROM points WHERE matrix = 'lap3d27-70' AND kernel = 'sptrsv.cuda.cusparse'
      AND json_extract(params, '\$.format') = 'sell' LIMIT 1;
  INSERT INTO samples (point_id, rep, seconds) VALUES ((SELECT MAX(id) FROM points), 0, 250.0);
  INSERT INTO metrics (point_id, name, unit, available, deterministic, value)
    VALUES ((SELECT MAX(id) FROM points), 'aborted', '', 1, 0, 1),
           ((SELECT MAX(id) FROM points), 'abort_best_s', 's', 1, 0, 0.1);"
out=$(bash "$TABLE" "$WORK/part.db") || fail "the table failed on the second part"
# the 4-GPU persistent point alone: nothing else of that run is a full median
row "$out" "lap3d27-70 backward 8 1.0 ?$"
row "$out" "lap3d27-70 backward 8 1 0 0 1 0"
row "$out" "lap3d27-70 backward 8 sptrsv.cuda.cusparse spsv sell [a-z]+ [0-9]+ col 1 250000.0 100.0 2500.0 verification baseline"
row "$out" "part feedfac \(clean\) 2 2 0 0"
grep -q "lap3d7-84" <<<"$out" && fail "the older revision's points counted in the second part: $out"

# Both parts: each with its rows and its revision.
out=$(bash "$TABLE" "$WORK/bar.db" "$WORK/part.db") || fail "the table failed on two stores"
row "$out" "lap3d27-70 forward 1 179.166"
row "$out" "lap3d27-70 backward 8 1.0 ?$"
row "$out" "bar c0a230f"
row "$out" "part feedfac"

# Bad input: exit 2, named.
bad() {
  local want=$1
  shift
  local rc=0
  out=$(bash "$TABLE" "$@" 2>&1) || rc=$?
  [ "$rc" = 2 ] || fail "sptrsv-rhs-table.sh $* exited $rc, want 2: $out"
  grep -qF -- "$want" <<<"$out" || fail "no '$want' in: $out"
}
bad usage
bad "$WORK/none.db: no such store" "$WORK/none.db"
echo "not a store" >"$WORK/text.db"
bad "$WORK/text.db: not a rooftune store" "$WORK/bar.db" "$WORK/text.db"
many=()
for i in $(seq 11); do many+=("$WORK/bar.db"); done
bad "11 stores" "${many[@]}"
echo "sptrsv.rhs_table: ok"
