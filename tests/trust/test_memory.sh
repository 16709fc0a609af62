# trust.memory (issue 13, item 9): a point whose inputs, reference, output and kernel output do not
# fit together (each would alone) is recorded infeasible with the numbers before anything is
# allocated, and the run goes on. The host's available memory is read from a stand-in meminfo
# ($ROOFTUNE_MEMINFO: 64 MiB), so the test needs no real shortage.
#   $1 = rooftune, $2 = this folder, $3 = scratch folder
set -uo pipefail
RT=$1
WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK"
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
sql() { sqlite3 -batch -noheader "$1" "$2"; }
printf 'MemTotal:       1048576 kB\nMemFree:         65536 kB\nMemAvailable:    65536 kB\n' >"$WORK/meminfo"
# 200000 x 200000 banded, fp64. K = 16: B 24.4 MiB, reference + output + scale 73.2 MiB, C 24.4 MiB
# (122 MiB in all, over 64); K = 2: 15.3 MiB in all.
cat >"$WORK/mem.yaml" <<'YAML'
experiment: {name: memory}
matrices: [{name: band, generator: banded, rows: 200000, bandwidth: 3}]
problem: {K: [16, 2], precision: [fp64]}
kernels: [{name: spmm.cpu.csr, params: {row_block: [256]}}]
measure: {warmup: 0, min_reps: 2, max_reps: 3, max_time_s: 0.05}
YAML
ROOFTUNE_MEMINFO="$WORK/meminfo" "$RT" run "$WORK/mem.yaml" --db "$WORK/s.db" >"$WORK/run.log" 2>&1
rc=$?
[ "$rc" = 0 ] || fail "run: exit $rc: $(tail -5 "$WORK/run.log")"
got=$(sql "$WORK/s.db" "SELECT json_extract(problem, '$.K') || ':' || status FROM points ORDER BY id" | tr '\n' ' ')
[ "$got" = "16:infeasible 2:ok " ] || fail "points: $got"
reason=$(sql "$WORK/s.db" "SELECT reason FROM points WHERE status = 'infeasible'")
echo "$reason" | grep -q "needs 0.119 GiB of host memory (1 rank(s) x \[inputs 0.0238 + reference, output and scale 0.0715 + kernel output 0.0238 GiB\]), 0.0625 GiB available" ||
  fail "reason: $reason"
echo "trust.memory: ok"
