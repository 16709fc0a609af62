# roofline.likwid_run (issue 18, LIKWID): a run whose config names a LIKWID marker region
# (counters: [likwid:spmm]) stores the region as a metric of every point: unavailable with the
# reason where it cannot be read (no LIKWID in the build, not started by likwid-perfctr -m, or the
# marker API inactive), never a number; started by likwid-perfctr -m on a machine whose counters
# can be read, the time per timed execution and the group's events.
#   $1 = rooftune, $2 = scratch folder, $3 = 1 when LIKWID is compiled in
. "$(dirname "$0")/../rt_test_lib.sh"
set +e
rt_args RT WORK HAVE_LIKWID -- "$@"
rt_scratch "$WORK"
cat >"$WORK/lk.yaml" <<'YAML'
experiment: {name: likwid}
matrices: [{name: band, generator: banded, rows: 2000, bandwidth: 3}]
problem: {K: [8], precision: [fp64]}
kernels: [{name: spmm.cpu.csr, params: {row_block: [64]}}]
measure: {warmup: 0, min_reps: 3, max_reps: 3, max_time_s: 0.05}
counters: [likwid:spmm]
YAML
expect_unavailable() { # store, reason pattern
  local got
  got=$(sql "$1" "SELECT p.status || '|' || m.available || '|' || IFNULL(m.value, 'null') || '|' ||
                  m.reason FROM metrics m JOIN points p ON p.id = m.point_id WHERE m.name = 'likwid:spmm'")
  echo "$got"
  echo "$got" | grep -Eq "^ok\|0\|null\|.*$2" || fail "likwid:spmm in $1: '$got' (wanted unavailable: $2)"
}
if [ "$HAVE_LIKWID" = 1 ]; then
  plain="LIKWID marker regions count only under likwid-perfctr -m"
else
  plain="LIKWID support not compiled in"
fi
env -u LIKWID_MODE -u LIKWID_EVENTS "$RT" run "$WORK/lk.yaml" --db "$WORK/plain.db" --quiet \
  >"$WORK/plain.log" 2>&1 || fail "run: $(tail -3 "$WORK/plain.log")"
expect_unavailable "$WORK/plain.db" "$plain"
if [ "$HAVE_LIKWID" = 1 ]; then
  # As if started by likwid-perfctr, but the marker API never became active: still no number.
  LIKWID_MODE=1 "$RT" run "$WORK/lk.yaml" --db "$WORK/mode.db" --quiet >"$WORK/mode.log" 2>&1 ||
    fail "run with LIKWID_MODE: $(tail -3 "$WORK/mode.log")"
  expect_unavailable "$WORK/mode.db" "recorded no timed execution"
  if command -v likwid-perfctr >/dev/null; then
    likwid-perfctr -m -g FLOPS_DP -C 0 "$RT" run "$WORK/lk.yaml" --db "$WORK/perfctr.db" --quiet \
      >"$WORK/perfctr.log" 2>&1
    if [ -f "$WORK/perfctr.db" ]; then
      got=$(sql "$WORK/perfctr.db" "SELECT m.name || '=' || m.value FROM metrics m WHERE m.available = 1
                                    AND m.name LIKE 'likwid:spmm%'")
      echo "under likwid-perfctr: $got"
      echo "$got" | grep -q "^likwid:spmm=" || fail "under likwid-perfctr: no region time"
      echo "$got" | grep -q "^likwid:spmm:" || fail "under likwid-perfctr: no event counts"
    else
      # This machine's counters cannot be read: likwid-perfctr refuses before starting the run.
      echo "likwid-perfctr could not read the counters here, so it started nothing (part skipped):"
      grep -v '^-*$' "$WORK/perfctr.log" | head -3
    fi
  fi
fi
echo "roofline.likwid_run: ok"
