# trust.memory (issue 13, item 9): a point whose inputs, reference, output and kernel output do not
# fit together (each would alone) is recorded infeasible with the numbers before anything is
# allocated, and the run goes on. The host's available memory is read from a stand-in meminfo
# ($ROOFTUNE_MEMINFO: 64 MiB), so the test needs no real shortage.
#   $1 = rooftune, $2 = this folder, $3 = scratch folder
. "$(dirname "$0")/../rt_test_lib.sh"
set +e
rt_args RT HERE WORK -- "$@"
rt_scratch "$WORK"
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
echo "trust.memory: spmm: ok"

# Every family gives the estimate (issue 13, item 9): one point of each, too big for the same
# stand-in 64 MiB by its family's footprint (sizes in the comments), is recorded infeasible with the
# numbers before anything of it is allocated, and the run completes. Without a family's footprint
# the point would be built and measured (or killed by the OS on a real shortage).
family_case() { # name, config body
  printf '%s\n' "experiment: {name: mem-$1}" "$2" \
    "measure: {warmup: 0, min_reps: 1, max_reps: 1, max_time_s: 0.01}" >"$WORK/mem-$1.yaml"
  ROOFTUNE_MEMINFO="$WORK/meminfo" "$RT" run "$WORK/mem-$1.yaml" --db "$WORK/mem-$1.db" \
    >"$WORK/mem-$1.log" 2>&1
  local rc=$?
  [ "$rc" = 0 ] || fail "$1: exit $rc: $(tail -5 "$WORK/mem-$1.log")"
  local got
  got=$(sql "$WORK/mem-$1.db" "SELECT status || ': ' || reason FROM points")
  echo "$got" | grep -Eq "^infeasible: needs [0-9.e+-]+ GiB of host memory .*, 0.0625 GiB available$" ||
    fail "$1: $got"
  [ "$(sql "$WORK/mem-$1.db" "SELECT status FROM runs")" = complete ] || fail "$1: run not complete"
  echo "$1: $got"
}
# 120 layers x 32768 weights x 12 B = 45 MiB, 60000 features x 307 active neurons x 4 B = 70 MiB
family_case spdnn "matrices: [{name: dnn, generator: sparse_dnn, neurons: 1024, seed: 1}]
problem: {layers: [120], features: [60000], feature_density: [0.3]}
kernels: [{name: spdnn.cpu.fused, params: {}}]"
# B: 200000 x 64 fp64 = 98 MiB
family_case dspmm "matrices: [{name: band, generator: banded, rows: 200000, bandwidth: 3}]
problem: {K: [64], precision: [fp64]}
kernels: [{name: dspmm.cpu.sender, params: {}}]"
family_case spmm2d "matrices: [{name: band, generator: banded, rows: 200000, bandwidth: 3}]
problem: {N: [64], precision: [fp64]}
kernels: [{name: spmm2d.cpu.summa, params: {}}]"
# A's tile: 5 M nonzeros x 12 B = 57 MiB, twice (the product's operands)
family_case spgemm2d "matrices: [{name: band, generator: banded, rows: 1000000, bandwidth: 2}]
problem: {precision: [fp64]}
kernels: [{name: spgemm2d.cpu.summa, params: {}}]"
# A, B and C: 3 x 2048^2 fp64 = 96 MiB
family_case gemm "matrices: [{name: dense, generator: banded, rows: 4, bandwidth: 1}]
problem: {N: [2048], precision: [fp64]}
kernels: [{name: gemm.cpu.summa, params: {}}]"
# B: 160000 x 64 fp64 = 78 MiB (the factor's fill-in is not known before CHOLMOD runs)
family_case sptrsv "matrices: [{name: lap, generator: laplacian, stencil: 5, nx: 400}]
problem: {nrhs: [64], ordering: [amd]}
kernels: [{name: sptrsv.cpu.levelset, params: {}}]"
# LOBPCG: 11 blocks of 10000 x 128 doubles = 107 MiB
family_case eigen "matrices: [{name: lap, generator: stencil, points: 5, nx: 100, ny: 100, nz: 1}]
problem: {solver: [lobpcg], block: [128], nev: [4], iters: [5]}
kernels: [{name: eigen.cpu.lobpcg, params: {}}]"
echo "trust.memory: every family: ok"
