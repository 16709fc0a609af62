# ci/regress.sh: run a config into a fresh store and compare it with the committed baseline of its
# experiment; on a CPU-only runner timings are informational and deterministic metrics gate.
source "$(dirname "$0")/lib.sh"
results="$WORK/results"
mkdir -p "$results/baselines/cpu"
make_db "$results/baselines/cpu/regress-tiny.db"
export ROOFTUNE_BIN="$RT" ROOFTUNE_RESULTS="$results" REGRESS_OUT="$WORK/out"
# Behave as a CPU-only runner even on a GPU host, where this test also runs.
export ROOFTUNE_NO_CUDA=1
# No GPU here: the script says so, and the same config passes against its baseline.
expect_exit 0 bash "$SRC/ci/regress.sh" "$HERE/tiny.yaml" cpu
grep -q "timings are informational" <<<"$OUT" || fail "CPU-only mode not announced: $OUT"
grep -q "matched 6 point(s)" <<<"$OUT" || fail "the points did not match: $OUT"
[ -s "$WORK/out/regress.md" ] || fail "no Markdown summary"
[ -s "$WORK/out/regress-tiny.db" ] || fail "the new store was not kept"
# A deterministic metric that changed in the baseline fails the job.
sql "$results/baselines/cpu/regress-tiny.db" \
  "UPDATE metrics SET value = value + 1 WHERE rowid = (SELECT MIN(rowid) FROM metrics WHERE deterministic = 1 AND available = 1)"
expect_exit 1 bash "$SRC/ci/regress.sh" "$HERE/tiny.yaml" cpu
grep -q "^METRIC" <<<"$OUT" || fail "metric change not reported: $OUT"
# GitHub's job summary gets the Markdown when the variable is set.
export GITHUB_STEP_SUMMARY="$WORK/summary.md"
expect_exit 1 bash "$SRC/ci/regress.sh" "$HERE/tiny.yaml" cpu
grep -q "rooftune compare" "$WORK/summary.md" || fail "no job summary written"
unset GITHUB_STEP_SUMMARY
# No baseline for the device: a clear error (exit 2), or a new baseline with REGRESS_UPDATE=1.
expect_exit 2 bash "$SRC/ci/regress.sh" "$HERE/tiny.yaml" other-device
grep -q "baselines/other-device/regress-tiny.db" <<<"$OUT" || fail "missing baseline not named: $OUT"
REGRESS_UPDATE=1 expect_exit 0 bash "$SRC/ci/regress.sh" "$HERE/tiny.yaml" other-device
[ -s "$results/baselines/other-device/regress-tiny.db" ] || fail "baseline not created"
[ ! -e "$results/baselines/other-device/regress-tiny.db-wal" ] || fail "baseline left with a WAL file"
expect_exit 0 bash "$SRC/ci/regress.sh" "$HERE/tiny.yaml" other-device
# Bad usage.
expect_exit 2 bash "$SRC/ci/regress.sh"
expect_exit 2 bash "$SRC/ci/regress.sh" "$WORK/missing.yaml" cpu
echo "ci script: ok"
