# Issue 35's GPU paths end to end (skipped, exit 77, without a GPU; rt_gpu_gate): on a tiny Tiled
# SpMM space,
#  - measure.energy: every timed point has energy_j and power_w from NVML, in units a GPU can have
#    (power between 1 W and 2 kW: a mJ/J slip would be 1000x off);
#  - measure.compile_timeout_s: with a fresh variant cache and a limit no NVRTC compile meets,
#    every point is recorded timeout naming the limit; the abandoned compiles that finish while
#    the process lives reach the cache, and the same config then finds them there;
#  - measure.compile_ahead: on a cold cache the serial sweep's points after the first find their
#    variant compiled ahead (the store's compiled_ahead, compile_ahead_s), all verified, the same
#    points as with compile_ahead 0, which compiles every point on its path;
#  - --parallel gpus (one worker per GPU, each given its own GPU: the phase record's gpu; on two
#    matrices, the second one's inputs built ahead by every worker) and, with two GPUs or more,
#    --parallel ranks under mpirun: the serial run's points; no process of --parallel gpus
#    starts MPI (no launcher started them).
# Args: rooftune, scratch folder, mpiexec.
set -euo pipefail
RT=$1
WORK=$2
MPIEXEC=$3
source "$(dirname "$0")/../gpu/rt_gpu_gate.sh"
rt_gpu_gate "$("$RT" list 2>/dev/null | grep -E '^  spmm\.cuda\.tiled ' || echo "unavailable here: not listed")"
rm -rf "$WORK" && mkdir -p "$WORK"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
fail() { echo "FAIL: $*" >&2; exit 1; }
sql() { sqlite3 -batch -noheader "$1" "$2"; }
cfg="$WORK/tiny.yaml"
cat >"$cfg" <<EOF
experiment: {name: gpu-tune-tiny}
matrices: [{name: band, generator: banded, rows: 200000, bandwidth: 8, seed: 1}]
problem: {K: [32], precision: [fp32], layout: [col]}
kernels:
  - name: spmm.cuda.tiled
    params: {staging: [ell], register_tile: [1, 2, 4, 8], shared_kib: [48], block_size: [256]}
measure: {warmup: 2, min_reps: 5, max_reps: 2000, max_time_s: 1, min_time_s: 0.5, target_rel_ci: 0}
EOF
export ROOFTUNE_CACHE_DIR="$WORK/cache"

# Energy.
"$RT" run "$cfg" --db "$WORK/energy.db" --set measure.energy=true --quiet >/dev/null
ok=$(sql "$WORK/energy.db" "SELECT COUNT(*) FROM points WHERE status = 'ok'")
[ "$ok" -ge 1 ] || fail "no timed point"
with=$(sql "$WORK/energy.db" "SELECT COUNT(*) FROM points p JOIN metrics e ON e.point_id = p.id
  AND e.name = 'energy_j' AND e.available = 1 AND e.value > 0 JOIN metrics w ON w.point_id = p.id
  AND w.name = 'power_w' AND w.value > 1 AND w.value < 2000 WHERE p.status = 'ok'")
[ "$with" = "$ok" ] || fail "$with of $ok points with energy_j and a plausible power_w: $(sql "$WORK/energy.db" \
  "SELECT name, available, value, reason FROM metrics WHERE name IN ('energy_j', 'power_w') LIMIT 4")"
"$RT" pareto --db "$WORK/energy.db" --plot "$WORK/pareto" >"$WORK/pareto.out" || fail "pareto: $(cat "$WORK/pareto.out")"
[ "$(sql "$WORK/energy.db" "SELECT COUNT(*) FROM pareto")" -ge 1 ] || fail "no front stored"

# Compile time limit: nothing compiles in 1 ms. A CPU sweep after the GPU one keeps the process
# alive a few seconds, for the abandoned compiles to finish (a process that exits ends them).
rm -rf "$WORK/cache-limit"
sed 's/^measure:/  - {name: spmm.cpu.csr, params: {row_block: [16, 32, 64, 128, 256, 512]}}\nmeasure:/' \
  "$cfg" >"$WORK/limit.yaml"
ROOFTUNE_CACHE_DIR="$WORK/cache-limit" "$RT" run "$WORK/limit.yaml" --db "$WORK/limit.db" \
  --set measure.compile_timeout_s=0.001 --quiet >/dev/null || true
n=$(sql "$WORK/limit.db" "SELECT COUNT(*) FROM points WHERE backend = 'cuda'")
timeouts=$(sql "$WORK/limit.db" "SELECT COUNT(*) FROM points WHERE status = 'timeout' AND reason
  LIKE '%measure.compile_timeout_s%abandoned%'")
[ "$n" = 4 ] && [ "$timeouts" = 4 ] || fail "compile limit: $timeouts of $n points timed out: $(sql "$WORK/limit.db" \
  "SELECT status, reason FROM points WHERE backend = 'cuda' LIMIT 2")"
cached=$(ls "$WORK/cache-limit" 2>/dev/null | grep -c '\.cubin$' || true)
[ "$cached" -ge 1 ] || fail "no abandoned compile reached the cache"
# The same points without a limit: the cached variants are hits, the others compile (on the
# points' own path: compile ahead would make them cache hits too).
ROOFTUNE_CACHE_DIR="$WORK/cache-limit" "$RT" run "$cfg" --db "$WORK/limit2.db" \
  --set measure.compile_ahead=0 >"$WORK/limit2.out"
[ "$(sql "$WORK/limit2.db" "SELECT COUNT(*) FROM points WHERE status = 'ok'")" = 4 ] ||
  fail "after the limit: $(sql "$WORK/limit2.db" "SELECT status, reason FROM points")"
grep -q "$((4 - cached)) compile(s), $cached cache hit(s)" "$WORK/limit2.out" ||
  fail "$cached variants cached, but: $(grep summary "$WORK/limit2.out")"

# Compile ahead (measure.compile_ahead): a cold variant cache and driver compute cache. The serial
# sweep's first point compiles on its own path, every later one finds its variant compiled ahead
# by the pool (compiled_ahead 1, the pool's NVRTC time in compile_ahead_s, nothing compiled on the
# path), every point verified; with compile_ahead 0 every point compiles on its path, the same
# points verified.
ahead_run() { # NAME THREADS
  rm -rf "$WORK/cache-$1"
  CUDA_CACHE_PATH="$WORK/cache-$1/driver" ROOFTUNE_CACHE_DIR="$WORK/cache-$1" "$RT" run "$cfg" \
    --db "$WORK/$1.db" --set measure.compile_ahead="$2" >"$WORK/$1.out" || fail "$1: $(tail -3 "$WORK/$1.out")"
}
metric_count() { # DB CONDITION
  sql "$1" "SELECT COUNT(*) FROM points p JOIN metrics a ON a.point_id = p.id AND a.name = 'compiled_ahead'
    JOIN metrics c ON c.point_id = p.id AND c.name = 'compiled' JOIN metrics s ON s.point_id = p.id
    AND s.name = 'compile_ahead_s' WHERE p.status = 'ok' AND p.verified = 1 AND $2"
}
ahead_run ahead 2
ahead_run ahead-off 0
[ "$(sql "$WORK/ahead.db" "SELECT COUNT(*) FROM points WHERE status = 'ok' AND verified = 1")" = 4 ] ||
  fail "compile ahead: $(sql "$WORK/ahead.db" "SELECT status, reason FROM points")"
done_ahead=$(metric_count "$WORK/ahead.db" "a.value = 1 AND c.value = 0 AND s.value > 0")
on_path=$(metric_count "$WORK/ahead.db" "a.value = 0 AND c.value = 1")
[ "$done_ahead" -ge 2 ] && [ $((done_ahead + on_path)) = 4 ] ||
  fail "compile ahead: $done_ahead point(s) compiled ahead, $on_path on their path: $(sql "$WORK/ahead.db" \
    "SELECT p.params, m.name, m.value FROM points p JOIN metrics m ON m.point_id = p.id AND m.name LIKE 'compile%'")"
grep -q "($done_ahead compiled ahead)" "$WORK/ahead.out" || fail "compile ahead: summary $(grep summary "$WORK/ahead.out")"
[ "$(metric_count "$WORK/ahead-off.db" "a.value = 0 AND c.value = 1 AND s.value = 0")" = 4 ] ||
  fail "compile_ahead 0: not every point compiled on its path"
diff <(sql "$WORK/ahead.db" "SELECT params, status, verified FROM points ORDER BY 1") \
  <(sql "$WORK/ahead-off.db" "SELECT params, status, verified FROM points ORDER BY 1") >/dev/null ||
  fail "compile ahead changed the points"

# Parallel: the serial run's points.
points() { sql "$1" "SELECT kernel||'|'||matrix||'|'||params||'|'||status||'|'||verified||'|'||ranks FROM points ORDER BY 1"; }
"$RT" run "$cfg" --db "$WORK/serial.db" --quiet >/dev/null
points "$WORK/serial.db" >"$WORK/serial.txt"
"$RT" run "$cfg" --db "$WORK/gpus.db" --parallel gpus --quiet >/dev/null
points "$WORK/gpus.db" | diff "$WORK/serial.txt" - >/dev/null || fail "--parallel gpus: not the serial points"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || echo 1)
# One worker per GPU, each on its own (CUDA_VISIBLE_DEVICES: worker i on GPU i where the variable
# is unset here), each with its CUDA start and points in the phase record.
workers=$(sql "$WORK/gpus.db" "SELECT COUNT(DISTINCT process) FROM phases WHERE process LIKE 'worker %'")
[ "$workers" = "$gpus" ] || fail "--parallel gpus: $workers worker(s) for $gpus GPU(s)"
if [ -z "${CUDA_VISIBLE_DEVICES:-}" ]; then
  mapped=$(sql "$WORK/gpus.db" "SELECT COUNT(*) FROM phases WHERE phase = 'backend' AND process LIKE 'worker %'
    AND gpu = substr(process, 8)")
  [ "$mapped" = "$gpus" ] || fail "--parallel gpus: $mapped of $gpus workers on their own GPU: $(sql "$WORK/gpus.db" \
    "SELECT DISTINCT process, gpu FROM phases")"
fi
# Started by no MPI launcher, the coordinator and its workers start no MPI (the CUDA plugin's
# kernels here ask for no communicator): 'mpi skipped' in every process, no 'mpi'.
[ "$(sql "$WORK/gpus.db" "SELECT SUM(phase = 'mpi skipped')||'|'||SUM(phase = 'mpi') FROM phases")" = "$((gpus + 1))|0" ] ||
  fail "--parallel gpus: MPI skipped|started $(sql "$WORK/gpus.db" "SELECT SUM(phase = 'mpi skipped')||'|'||SUM(phase = 'mpi') FROM phases") in $((gpus + 1)) processes"
[ "$(sql "$WORK/gpus.db" "SELECT COUNT(*) FROM phases WHERE phase = 'point' AND process LIKE 'worker %'")" = 4 ] ||
  fail "--parallel gpus: the workers' point phases: $(sql "$WORK/gpus.db" "SELECT process, phase FROM phases WHERE phase = 'point'")"
# Two matrices: each worker builds the second one's inputs and reference in a thread while it
# measures the first one's points with CUDA kernels (rt_inputs_ahead.h), and its first point of
# the second matrix takes them; the points are still the serial run's.
sed 's/seed: 1}]/seed: 1}, {name: band2, generator: banded, rows: 150000, bandwidth: 8, seed: 2}]/' \
  "$cfg" >"$WORK/two.yaml"
"$RT" run "$WORK/two.yaml" --db "$WORK/serial2.db" --quiet >/dev/null
"$RT" run "$WORK/two.yaml" --db "$WORK/gpus2.db" --parallel gpus --quiet >/dev/null
[ "$(sql "$WORK/serial2.db" "SELECT COUNT(*) FROM points WHERE verified = 1 AND matrix = 'band2'")" -ge 1 ] ||
  fail "two matrices, serial: $(sql "$WORK/serial2.db" "SELECT matrix, status, reason FROM points")"
points "$WORK/gpus2.db" | diff <(points "$WORK/serial2.db") - >/dev/null ||
  fail "--parallel gpus, two matrices: not the serial points"
ahead=$(sql "$WORK/gpus2.db" "SELECT COUNT(*) FROM phases WHERE phase = 'inputs and reference ahead'
  AND process LIKE 'worker %'")
[ "$ahead" = "$gpus" ] || fail "--parallel gpus: $ahead of $gpus workers took the second matrix's inputs built ahead"
if [ "$gpus" -ge 2 ]; then
  "$MPIEXEC" --allow-run-as-root -np 2 "$RT" run "$cfg" --db "$WORK/ranks.db" --parallel ranks --quiet >/dev/null
  points "$WORK/ranks.db" | diff "$WORK/serial.txt" - >/dev/null || fail "--parallel ranks: not the serial points"
fi
echo "tune gpu: ok ($gpus GPU(s))"
