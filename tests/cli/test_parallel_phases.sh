# Where a parallel run's time goes, and the scheduling that cuts it (issue 35 item 3), on CPU
# kernels: every run records each process's phases in the store's phases table (the main process,
# each worker process or MPI rank: start, MPI, config, backend, checks, matrices, sweeps, every
# point and its steps); worker processes are started before the coordinator's own set-up and
# released after its checks (a bad config is reported once); each is given one GPU
# (CUDA_VISIBLE_DEVICES, a fake driver plays 2 GPUs); points are handed out breadth first, to the
# worker that left the last sweep first, and a worker with nothing left in a sweep leaves it at
# once, builds the next sweep's inputs and measures its points during the others' tail. The
# points are the serial run's.
# A process no MPI launcher started starts no MPI ('mpi skipped'), unless a kernel needs it.
#   $1 rooftune  $2 this folder  $3 scratch folder  $4 mpiexec  $5 folder of the fake libcuda.so.1
source "$(dirname "$0")/lib.sh"
MPIEXEC=$4
FAKE=$5
export OMP_NUM_THREADS=1
cfg="$WORK/sched.yaml"
# Per precision: the CSR sweep has 2 points, the tiled one 1; each point takes at least 0.3 s.
cat >"$cfg" <<EOF2
experiment: {name: cli-phases}
matrices:
  - {name: band, generator: banded, rows: 3000, bandwidth: 9, seed: 1}
problem: {K: [8], precision: [fp32, fp64], layout: [row]}
kernels:
  - name: spmm.cpu.csr
    params: {row_block: [16, 32], col_block: [8]}
  - name: spmm.cpu.tiled
    params: {register_tile: [4], buffer_kib: [8]}
measure: {warmup: 1, min_reps: 3, max_reps: 100000, min_time_s: 0.3, max_time_s: 0.5, target_rel_ci: 0.5}
EOF2
# Phases every run has, whatever its mode: sane times, one "point" row per recorded point (on the
# process that measured it), each step of a point inside it.
check_phases() { # DB LABEL MPI: MPI the main process's MPI phase ('mpi', or 'mpi skipped' alone)
  local db=$1 label=$2 mpi=$3
  # (mpirun starts the ranks together: rank 1 may start before rank 0, a negative time)
  rt_sql_is "$db" 0 "SELECT COUNT(*) FROM phases WHERE (begin_s < 0 AND process NOT LIKE 'rank %') OR end_s < begin_s
                     OR begin_s > (SELECT begin_s FROM phases WHERE process = 'main' AND phase = 'end')" ||
    fail "$label: $got phase(s) before the start, ending before they begin, or after the end"
  rt_sql_is "$db" 0 "SELECT COUNT(*) FROM points p WHERE (SELECT COUNT(*) FROM phases h
                     WHERE h.phase = 'point' AND h.point_key = p.point_key) != 1" ||
    fail "$label: $got point(s) without exactly one 'point' phase"
  rt_sql_is "$db" 0 "SELECT COUNT(*) FROM phases s JOIN phases pt ON pt.point_key = s.point_key
                     AND pt.phase = 'point' AND pt.process = s.process
                     WHERE s.phase != 'point' AND (s.begin_s < pt.begin_s - 1e-6 OR s.end_s > pt.end_s + 1e-6)" ||
    fail "$label: $got step(s) outside their point"
  for phase in "$mpi" config backend check store "matrix band" "sweep 1" "sweep 4" end; do
    rt_sql_is "$db" 1 "SELECT COUNT(*) FROM phases WHERE process = 'main' AND phase = '$phase'" ||
      fail "$label: main has $got '$phase' phase(s)"
  done
}

# 1. Serial: the main process's phases and every point's.
"$RT" run "$cfg" --db "$WORK/serial.db" --quiet >/dev/null
points "$WORK/serial.db" >"$WORK/serial.txt"
[ "$(wc -l <"$WORK/serial.txt")" = 6 ] || fail "serial run: $(wc -l <"$WORK/serial.txt") points"
check_phases "$WORK/serial.db" serial "mpi skipped"
rt_sql_is "$WORK/serial.db" main "SELECT GROUP_CONCAT(DISTINCT process) FROM phases" ||
  fail "serial: processes $got"
rt_sql_is "$WORK/serial.db" 6 "SELECT COUNT(*) FROM phases WHERE phase = 'setup'" ||
  fail "serial: $got setup steps"

# 2. Three worker processes.
"$RT" run "$cfg" --db "$WORK/gpus.db" --parallel gpus --workers 3 >"$WORK/gpus.log"
points "$WORK/gpus.db" >"$WORK/gpus.txt"
diff "$WORK/serial.txt" "$WORK/gpus.txt" >/dev/null || fail "gpus: not the serial run's points"
check_phases "$WORK/gpus.db" gpus "mpi skipped"
for k in 0 1 2; do
  grep -q "^phases: worker $k: start .*, ready .*, exit " "$WORK/gpus.log" ||
    fail "no phase line of worker $k: $(grep phases "$WORK/gpus.log")"
  for phase in start "mpi skipped" config backend check go bye exit "matrix band"; do
    rt_sql_is "$WORK/gpus.db" 1 "SELECT COUNT(*) FROM phases WHERE process = 'worker $k' AND phase = '$phase'" ||
      fail "worker $k has $got '$phase' phase(s)"
  done
done
rt_sql_is "$WORK/gpus.db" 0 "SELECT COUNT(*) FROM phases h JOIN points p ON p.point_key = h.point_key
                             WHERE h.phase = 'point' AND h.process = 'main' AND p.status != 'infeasible'" ||
  fail "gpus: the coordinator measured $got point(s)"
# Started before the coordinator's own set-up (backend, checks, store); released after its
# checks.
ph() { sql "$WORK/gpus.db" "SELECT $1 FROM phases WHERE process = '$2' AND phase = '$3'"; }
awk -v s="$(ph end_s main spawn)" -v b="$(ph begin_s main backend)" 'BEGIN { exit !(s <= b) }' ||
  fail "the workers were started after the coordinator's backend start"
rt_sql_is "$WORK/gpus.db" 0 "SELECT COUNT(*) FROM phases g WHERE g.phase = 'go' AND g.end_s <
                             (SELECT end_s FROM phases WHERE process = 'main' AND phase = 'check') - 1e-6" ||
  fail "$got worker(s) went on before the coordinator's checks"
# Breadth first: a sweep's 2 points went to 2 workers (one worker took both before).
sweep_of() { # DB PRECISION KERNEL: the processes that measured that sweep's points
  sql "$1" "SELECT GROUP_CONCAT(h.process, ',') FROM phases h JOIN points p ON p.point_key = h.point_key
            WHERE h.phase = 'point' AND p.kernel = '$3' AND p.problem LIKE '%\"$2\"%'"
}
for prec in fp32 fp64; do
  csr=$(sweep_of "$WORK/gpus.db" $prec spmm.cpu.csr)
  [ "$(echo "$csr" | tr ',' '\n' | sort -u | wc -l)" = 2 ] || fail "$prec CSR sweep: its 2 points on $csr"
  tiled=$(sweep_of "$WORK/gpus.db" $prec spmm.cpu.tiled)
  # The worker left out of the CSR sweep left it at once: it is served first in the next one.
  case ",$csr," in *",$tiled,"*) fail "$prec tiled sweep on $tiled, a worker of the CSR sweep ($csr)" ;; esac
  # ...and started before the CSR sweep's points ended: the coordinator kept the CSR sweep open
  # with its two points in flight and handed the next sweep's point to the worker that had left
  # it (fp32: sweep 1 open while sweep 2's point runs; checked for the first pair only, whose
  # order the hand-out fixes: the fp64 pair's depends on which of the fp32 points ends first).
  if [ $prec = fp32 ]; then
    rt_sql_is "$WORK/gpus.db" 1 "SELECT (SELECT h.begin_s FROM phases h JOIN points p ON p.point_key = h.point_key
                                 WHERE h.phase = 'point' AND p.kernel = 'spmm.cpu.tiled' AND p.problem LIKE '%\"$prec\"%')
                                 < (SELECT MIN(h.end_s) FROM phases h JOIN points p ON p.point_key = h.point_key
                                 WHERE h.phase = 'point' AND p.kernel = 'spmm.cpu.csr' AND p.problem LIKE '%\"$prec\"%')" ||
      fail "$prec tiled sweep's point began after the CSR sweep's points ended (no overlap)"
  fi
done
# Inputs ahead: each worker built the first sweep's inputs as it entered it ('inputs and
# reference') and the fp64 ones in a thread during the fp32 tiled sweep, before it reached them
# ('inputs and reference ahead', taken by its first fp64 point); the tiled sweeps share their
# CSR sweep's inputs, and the last sweep starts no build.
for k in 0 1 2; do
  for phase in "inputs and reference" "inputs and reference ahead"; do
    rt_sql_is "$WORK/gpus.db" 1 "SELECT COUNT(*) FROM phases WHERE process = 'worker $k' AND phase = '$phase'" ||
      fail "worker $k: $got '$phase' phase(s), want 1"
  done
  # (begun after the worker entered sweep 2: the fp32 tiled one, whose inputs are the CSR one's)
  rt_sql_is "$WORK/gpus.db" 1 "SELECT (SELECT begin_s FROM phases WHERE process = 'worker $k' AND phase = 'inputs and reference ahead')
                               >= (SELECT begin_s FROM phases WHERE process = 'worker $k' AND phase = 'sweep 2')" ||
    fail "worker $k built the fp64 inputs ahead before its sweep 2"
done
rt_sql_is "$WORK/gpus.db" 0 "SELECT COUNT(*) FROM phases WHERE process = 'main' AND phase LIKE 'inputs%'" ||
  fail "the coordinator built $got set(s) of inputs"

# 3. One GPU each: under a driver that reports 2 GPUs (the fake libcuda, no plugin: CPU kernels
#    run), one worker per GPU, worker i on GPU i; the coordinator's CUDA_VISIBLE_DEVICES is
#    divided, round robin when there are more workers than GPUs.
fake_run() { # DB ARGS...
  local db=$1
  shift
  env -u ROOFTUNE_NO_CUDA LD_LIBRARY_PATH="$FAKE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    ROOFTUNE_PLUGIN_DIR="$WORK/no-plugin" FAKE_CUDA_DEVICES=2 \
    "$RT" run "$cfg" --db "$db" --parallel gpus --quiet --set measure.min_time_s=0 "$@" >"$db.log" 2>&1 ||
    fail "fake GPUs $*: $(tail -3 "$db.log")"
}
mkdir -p "$WORK/no-plugin"
# On a GPU host /proc/driver/nvidia/gpus counts the real GPUs, which the fake driver's 2 do not
# match (a refusal, as it should be); there the GPUs are named, as a user of such a host would.
if [ -d /proc/driver/nvidia/gpus ]; then
  CUDA_VISIBLE_DEVICES=0,1 fake_run "$WORK/fake.db"
else
  fake_run "$WORK/fake.db"
fi
rt_sql_is "$WORK/fake.db" "worker 0:0,worker 1:1" "SELECT GROUP_CONCAT(process || ':' || gpu, ',') FROM
           (SELECT DISTINCT process, gpu FROM phases WHERE process != 'main' ORDER BY process)" ||
  fail "one worker per GPU: $got"
CUDA_VISIBLE_DEVICES="GPU-b,5" fake_run "$WORK/fake3.db" --workers 3
rt_sql_is "$WORK/fake3.db" "worker 0:GPU-b,worker 1:5,worker 2:GPU-b" "SELECT GROUP_CONCAT(process || ':' || gpu, ',')
           FROM (SELECT DISTINCT process, gpu FROM phases WHERE process != 'main' ORDER BY process)" ||
  fail "3 workers on CUDA_VISIBLE_DEVICES=GPU-b,5: $got"
points "$WORK/fake3.db" >"$WORK/fake3.txt"
diff "$WORK/serial.txt" "$WORK/fake3.txt" >/dev/null || fail "fake GPUs: not the serial run's points"
# The GPUs are counted from CUDA_VISIBLE_DEVICES (no cuInit before the spawn: "gpu count" takes
# nothing); a list the driver does not follow (3 entries, 2 GPUs) is an error naming both counts,
# before the store is opened (nothing recorded, nothing lost), the workers ended.
rt_sql_is "$WORK/fake3.db" 1 "SELECT end_s - begin_s < 0.05 FROM phases WHERE process = 'main' AND phase = 'gpu count'" ||
  fail "counting 2 GPUs from CUDA_VISIBLE_DEVICES took a while"
expect 2 "CUDA_VISIBLE_DEVICES says 3 GPU.s., the CUDA driver reports 2" \
  env -u ROOFTUNE_NO_CUDA CUDA_VISIBLE_DEVICES=0,1,2 LD_LIBRARY_PATH="$FAKE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  ROOFTUNE_PLUGIN_DIR="$WORK/no-plugin" FAKE_CUDA_DEVICES=2 \
  "$RT" run "$cfg" --db "$WORK/mismatch.db" --parallel gpus --quiet
[ ! -e "$WORK/mismatch.db" ] || fail "a GPU count mismatch left a store"
if pgrep -f "$WORK/mismatch.db" >/dev/null; then fail "a worker of the GPU count mismatch is left"; fi

# 4. MPI ranks: rank 1's phases reach rank 0's store.
"$MPIEXEC" --allow-run-as-root --oversubscribe -np 2 "$RT" run "$cfg" --db "$WORK/ranks.db" \
  --parallel ranks --quiet --set measure.min_time_s=0 >/dev/null
check_phases "$WORK/ranks.db" ranks mpi
for phase in start mpi backend check "matrix band" bye; do
  rt_sql_is "$WORK/ranks.db" 1 "SELECT COUNT(*) FROM phases WHERE process = 'rank 1' AND phase = '$phase'" ||
    fail "rank 1 has $got '$phase' phase(s)"
done

# 5. Bad input: a bad config with workers is reported once, by the coordinator (its workers were
#    started before its checks and are ended, silently), and so is a store that is not one; the
#    worker options refuse garbage.
sed 's/spmm.cpu.tiled/spmm.cpu.nope/' "$cfg" >"$WORK/bad.yaml"
expect 2 "unknown kernel 'spmm.cpu.nope'" "$RT" run "$WORK/bad.yaml" --db "$WORK/bad.db" --parallel gpus --workers 3
[ "$(grep -c "unknown kernel" "$WORK/out.txt")" = 1 ] || fail "the bad config was reported $(grep -c "unknown kernel" "$WORK/out.txt") times"
[ ! -e "$WORK/bad.db" ] || fail "a refused run left a store"
if pgrep -f "$WORK/bad.yaml" >/dev/null; then fail "a worker of the refused run is left"; fi
# A store that cannot be opened fails the run after its checks: still one message, the workers
# (never released) end silently.
echo "not a store" >"$WORK/not-a-store.db"
expect 3 "is not a SQLite database" "$RT" run "$cfg" --db "$WORK/not-a-store.db" --parallel gpus --workers 3 --quiet
# (Workers start no MPI: no Open MPI daemon of theirs prints to the shared stderr either.)
[ "$(grep -c . "$WORK/out.txt")" = 1 ] ||
  fail "a store that is not one, with workers: $(cat "$WORK/out.txt")"
if pgrep -f "$WORK/not-a-store.db" >/dev/null; then fail "a worker of the failed run is left"; fi
expect 2 "worker-gpu expects one GPU" "$RT" run "$cfg" --db "$WORK/bad.db" --worker-fd 5 --worker-index 0 --worker-gpu "1,2"
expect 2 "worker-gpu expects one GPU" "$RT" run "$cfg" --db "$WORK/bad.db" --worker-fd 5 --worker-index 0 --worker-gpu ""
expect 2 "go together" "$RT" run "$cfg" --db "$WORK/bad.db" --worker-gpu 1
expect 2 "worker-gpu 1, but CUDA_VISIBLE_DEVICES is '0'" env CUDA_VISIBLE_DEVICES=0 \
  "$RT" run "$cfg" --db "$WORK/bad.db" --worker-fd 5 --worker-index 0 --worker-gpu 1
[ ! -e "$WORK/bad.db" ] || fail "a refused worker left a store"
# 7. Matrices of --parallel gpus: each built once, by the coordinator, ahead of its turn, in shared
#    memory the workers map (rt_prefetch.h): one "prefetch matrix" phase of main's per matrix of
#    the config, none of a worker's; the next matrix's build starts during the current matrix's
#    sweeps, the last matrix starts none; a matrix that cannot be built (in the middle) is
#    recorded as its sweep's error once, with the serial run's reason; a run stopped with a build
#    ahead in flight ends cleanly, and its resume completes the serial run's points.
echo "not a matrix" >"$WORK/bad.mtx"
three="$WORK/three.yaml"
cat >"$three" <<EOF3
experiment: {name: cli-phases-three}
matrices:
  - {name: band, generator: banded, rows: 3000, bandwidth: 9, seed: 1}
  - {name: gone, file: $WORK/bad.mtx}
  - {name: rmat, generator: rmat, scale: 10, edge_factor: 8, seed: 2}
problem: {K: [8], precision: [fp32], layout: [row]}
kernels:
  - name: spmm.cpu.csr
    params: {row_block: [16, 32, 64], col_block: [8]}
measure: {warmup: 1, min_reps: 3, max_reps: 4, max_time_s: 0.05, target_rel_ci: 0.5}
EOF3
with_reasons() { sql "$1" "SELECT kernel||'|'||matrix||'|'||params||'|'||status||'|'||verified||'|'||COALESCE(reason, '')
                            FROM points ORDER BY 1"; }
rc1=0
"$RT" run "$three" --db "$WORK/three1.db" --quiet >/dev/null 2>&1 || rc1=$?
with_reasons "$WORK/three1.db" >"$WORK/three1.txt"
[ "$(grep -c "|gone|.*|error|.*matrix 'gone'" "$WORK/three1.txt")" = 1 ] || fail "serial three: $(cat "$WORK/three1.txt")"
rc2=0
"$RT" run "$three" --db "$WORK/three2.db" --parallel gpus --workers 2 --quiet >/dev/null 2>&1 || rc2=$?
[ "$rc1" = "$rc2" ] && [ "$(sql "$WORK/three1.db" "SELECT status FROM runs")" = "$(sql "$WORK/three2.db" "SELECT status FROM runs")" ] ||
  fail "gpus three: exit $rc2 and run $(sql "$WORK/three2.db" "SELECT status FROM runs"), serial: exit $rc1"
with_reasons "$WORK/three2.db" >"$WORK/three2.txt"
diff "$WORK/three1.txt" "$WORK/three2.txt" >/dev/null ||
  fail "gpus three: not the serial run's points: $(diff "$WORK/three1.txt" "$WORK/three2.txt" | head -5)"
for m in band gone rmat; do
  rt_sql_is "$WORK/three2.db" 1 "SELECT COUNT(*) FROM phases WHERE phase = 'prefetch matrix $m'" ||
    fail "matrix $m built $got time(s) ahead"
done
rt_sql_is "$WORK/three2.db" 0 "SELECT COUNT(*) FROM phases WHERE phase LIKE 'prefetch%' AND process != 'main'" ||
  fail "$got build(s) in a worker"
rt_sql_is "$WORK/three2.db" 3 "SELECT COUNT(*) FROM phases WHERE phase LIKE 'prefetch%'" ||
  fail "$got builds for 3 matrices (the last one starts none)"
for k in 0 1; do
  for m in band rmat; do
    rt_sql_is "$WORK/three2.db" 1 "SELECT COUNT(*) FROM phases WHERE process = 'worker $k' AND phase = 'matrix $m'" ||
      fail "worker $k mapped matrix $m $got time(s)"
  done
  # The first matrix's inputs built in place, the third's ahead (planned past the matrix that
  # failed, built once its matrix was mapped), taken by its first point.
  for phase in "inputs and reference" "inputs and reference ahead"; do
    rt_sql_is "$WORK/three2.db" 1 "SELECT COUNT(*) FROM phases WHERE process = 'worker $k' AND phase = '$phase'" ||
      fail "three: worker $k has $got '$phase' phase(s), want 1"
  done
done
# (the build of matrix 2 began during matrix 1's sweep, and matrix 1's before the coordinator's
# backend, beside the workers' start)
rt_sql_is "$WORK/three2.db" 1 "SELECT (SELECT begin_s FROM phases WHERE phase = 'prefetch matrix gone')
                               < (SELECT end_s FROM phases WHERE process = 'main' AND phase = 'sweep 1')" ||
  fail "the second matrix was not built ahead"
rt_sql_is "$WORK/three2.db" 1 "SELECT (SELECT begin_s FROM phases WHERE phase = 'prefetch matrix band')
                               <= (SELECT begin_s FROM phases WHERE process = 'main' AND phase = 'backend')" ||
  fail "the first matrix was not built beside the workers' start"
"$RT" run "$three" --db "$WORK/three3.db" --parallel gpus --workers 2 --max-points 2 --quiet >/dev/null 2>&1 || true
rt_sql_is "$WORK/three3.db" 2 "SELECT COUNT(*) FROM points" || fail "--max-points 2 with a build ahead: $got points"
if pgrep -f "$WORK/three3.db" >/dev/null; then fail "a worker of the stopped run is left"; fi
"$RT" run "$three" --db "$WORK/three3.db" --parallel gpus --workers 2 --quiet >/dev/null 2>&1 || true
with_reasons "$WORK/three3.db" >"$WORK/three3.txt"
diff "$WORK/three1.txt" "$WORK/three3.txt" >/dev/null ||
  fail "resumed three: not the serial run's points: $(diff "$WORK/three1.txt" "$WORK/three3.txt" | head -5)"

# 8. MPI only where a launcher started the process: the serial run, the coordinator and every
#    worker process record "mpi skipped" and no MPI start; under mpirun (1 rank serially, 3 ranks
#    in parallel) every rank starts MPI as before and measures the serial run's points; a run
#    alone whose kernels need MPI (the 2D SpMM's one-sided tiles) starts it when the first one
#    asks, its phase record says when, and its points are those of the same run under mpirun -np 1.
rt_sql_is "$WORK/serial.db" 0 "SELECT COUNT(*) FROM phases WHERE phase = 'mpi'" ||
  fail "serial: $got MPI start(s) without a launcher"
rt_sql_is "$WORK/gpus.db" 0 "SELECT COUNT(*) FROM phases WHERE phase = 'mpi'" ||
  fail "gpus: $got MPI start(s) in the coordinator and its workers"
rt_sql_is "$WORK/gpus.db" 4 "SELECT COUNT(DISTINCT process) FROM phases WHERE phase = 'mpi skipped'" ||
  fail "gpus: $got process(es) say 'mpi skipped', want the coordinator and 3 workers"
"$MPIEXEC" --allow-run-as-root --oversubscribe -np 1 "$RT" run "$cfg" --db "$WORK/np1.db" --quiet \
  --set measure.min_time_s=0 >/dev/null || fail "mpirun -np 1: exit $?"
"$MPIEXEC" --allow-run-as-root --oversubscribe -np 3 "$RT" run "$cfg" --db "$WORK/np3.db" --quiet \
  --parallel ranks --set measure.min_time_s=0 >/dev/null || fail "mpirun -np 3 --parallel ranks: exit $?"
for np in 1 3; do
  points "$WORK/np$np.db" >"$WORK/np$np.txt"
  diff "$WORK/serial.txt" "$WORK/np$np.txt" >/dev/null || fail "mpirun -np $np: not the serial run's points"
  rt_sql_is "$WORK/np$np.db" "$np|0" "SELECT SUM(phase = 'mpi')||'|'||SUM(phase = 'mpi skipped') FROM phases" ||
    fail "mpirun -np $np: MPI starts|skips $got"
done
late="$WORK/late.yaml"
cat >"$late" <<EOF4
experiment: {name: cli-phases-late}
matrices:
  - {name: band, generator: banded, rows: 400, bandwidth: 6, seed: 3}
problem: {N: [16], precision: [fp64]}
kernels:
  - name: spmm2d.cpu.stationary_c
    params: {pr: [0], refine: [1, 2], prefetch: [1]}
measure: {warmup: 1, min_reps: 3, max_reps: 4, max_time_s: 0.05, target_rel_ci: 0.5}
EOF4
"$RT" run "$late" --db "$WORK/late.db" --quiet >/dev/null || fail "a run alone that needs MPI: exit $?"
"$MPIEXEC" --allow-run-as-root --oversubscribe -np 1 "$RT" run "$late" --db "$WORK/late1.db" --quiet >/dev/null ||
  fail "the same under mpirun -np 1: exit $?"
rt_sql_is "$WORK/late.db" 1 "SELECT (SELECT COUNT(*) FROM phases WHERE phase = 'mpi') = 1 AND
                             (SELECT begin_s FROM phases WHERE phase = 'mpi') >
                             (SELECT begin_s FROM phases WHERE phase = 'mpi skipped')" ||
  fail "a run alone that needs MPI: no late 'mpi' phase after 'mpi skipped'"
rt_sql_is "$WORK/late.db" "2|2" "SELECT COUNT(*)||'|'||SUM(status = 'ok' AND verified = 1) FROM points" ||
  fail "a run alone that needs MPI: $got points (all, verified)"
sql "$WORK/late.db" "SELECT kernel||params||status||verified FROM points ORDER BY 1" >"$WORK/late.txt"
sql "$WORK/late1.db" "SELECT kernel||params||status||verified FROM points ORDER BY 1" >"$WORK/late1.txt"
diff "$WORK/late.txt" "$WORK/late1.txt" >/dev/null || fail "a run alone that needs MPI: not mpirun -np 1's points"

# 6. ci/gpu-tune-parallel.sh's own logic on CPU workers (ROOFTUNE_BIN, _TUNE_CONFIG, _GPUS): under
#    each run the breakdown of its wall time from the store's phases.
sed 's/min_time_s: 0.3/min_time_s: 0/' "$cfg" >"$WORK/ci.yaml"
OUT="$WORK/ci" ROOFTUNE_BIN="$RT" ROOFTUNE_TUNE_CONFIG="$WORK/ci.yaml" ROOFTUNE_GPUS=2 \
  ROOFTUNE_TUNE_CACHES="$WORK/ci-caches" bash "$HERE/../../ci/gpu-tune-parallel.sh" tune >"$WORK/ci.log" 2>&1 ||
  fail "ci/gpu-tune-parallel.sh tune on the CPU: $(tail -5 "$WORK/ci.log")"
summary="$WORK/ci/tune-parallel.txt"
for want in "^  serial phases: wall [0-9.]* s; record [0-9.]* s, outside -\?[0-9.]* s; first point at" \
  "^  gpus2 phases: wall .* against the ideal [0-9.]* s (.* busy over 2 process(es))" \
  "^  main: mpi skipped, config [0-9.]*, gpu count [0-9.]*, spawn [0-9.]*, backend" \
  "^  worker 1: start .*, ready .*; [0-9]* point(s), busy .* (inputs .*, setup .*, repetitions .*), waiting" \
  "^  sweep 4 (spmm.cpu.tiled, band): 1 point(s) from" "gpus2 vs serial: .* same verified points: yes"; do
  grep -q -- "$want" "$summary" || fail "no '$want' in the summary: $(cat "$summary")"
done
# ... and its rounds: every run cold, the order rotated, the medians and their speedup
OUT="$WORK/ci-rounds" ROOFTUNE_BIN="$RT" ROOFTUNE_TUNE_CONFIG="$WORK/ci.yaml" ROOFTUNE_GPUS=2 \
  ROOFTUNE_TUNE_ROUNDS=2 ROOFTUNE_TUNE_CACHES="$WORK/ci-caches" bash "$HERE/../../ci/gpu-tune-parallel.sh" rounds \
  >"$WORK/ci-rounds.log" 2>&1 || fail "ci/gpu-tune-parallel.sh rounds on the CPU: $(tail -5 "$WORK/ci-rounds.log")"
summary="$WORK/ci-rounds/tune-parallel.txt"
order=$(grep -o '^[a-z0-9]*-r[12]: exit' "$summary" | tr '\n' ' ')
[ "$order" = "serial-r1: exit gpus2-r1: exit gpus2-r2: exit serial-r2: exit " ] ||
  fail "rounds: the runs' order is '$order'"
for want in "^  serial: wall times [0-9.]* [0-9.]* s, median [0-9.]* s of 2 round(s)" \
  "^  gpus2: speedup of the medians [0-9.]*x (per round [0-9.]* [0-9.]*); bar >= 1.7x: " \
  "gpus2-r2 vs serial-r2: .* same verified points: yes"; do
  grep -q -- "$want" "$summary" || fail "rounds: no '$want' in the summary: $(cat "$summary")"
done
# ... and a stage whose serial run is not in its OUT says so rather than printing an empty speedup
OUT="$WORK/ci-alone" ROOFTUNE_BIN="$RT" ROOFTUNE_TUNE_CONFIG="$WORK/ci.yaml" ROOFTUNE_GPUS=2 \
  ROOFTUNE_TUNE_CACHES="$WORK/ci-caches" bash "$HERE/../../ci/gpu-tune-parallel.sh" omp \
  >"$WORK/ci-alone.log" 2>&1 || fail "ci/gpu-tune-parallel.sh omp alone: $(tail -5 "$WORK/ci-alone.log")"
grep -q "^  gpus2-omp vs serial: no serial run in $WORK/ci-alone to compare with" "$WORK/ci-alone/tune-parallel.txt" &&
  ! grep -q "speedup x\|Traceback" "$WORK/ci-alone/tune-parallel.txt" "$WORK/ci-alone.log" ||
  fail "omp alone: $(cat "$WORK/ci-alone/tune-parallel.txt")"
echo "parallel phases: ok"
