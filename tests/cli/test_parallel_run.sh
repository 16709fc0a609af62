# Parallel tuning (search.parallel, kernels[i].parallel) on CPU kernels: worker processes (--parallel gpus --workers N)
# and MPI ranks (--parallel ranks, mpirun -np 2, and -np 3 resuming a 2-rank run) measure the same points as a serial run
# (same kernels, matrices, parameters, problems, statuses and verification, infeasible points
# included), each point whole on one rank, once; resume after --max-points and after SIGINT adds
# only the missing points; bad input is refused naming the key (exit 2).
source "$(dirname "$0")/lib.sh"
MPIEXEC=$4
cfg="$WORK/par.yaml"
# 2 matrices x 2 problem points x (3 csr + 1 tiled) = 16 points; row_block 512 is infeasible.
cat >"$cfg" <<EOF
experiment: {name: cli-parallel}
matrices:
  - {name: band, generator: banded, rows: 3000, bandwidth: 9, seed: 1}
  - {name: rmat, generator: rmat, scale: 11, edge_factor: 8, seed: 2}
problem: {K: [8], precision: [fp32, fp64], layout: [row]}
kernels:
  - name: spmm.cpu.csr
    params: {row_block: [32, 256, 512], col_block: [8]}
    constraints: ["row_block <= 256"]
  - name: spmm.cpu.tiled
    params: {register_tile: [4], buffer_kib: [8]}
measure: {warmup: 1, min_reps: 3, max_reps: 4, max_time_s: 0.05, target_rel_ci: 0.5}
EOF
export OMP_NUM_THREADS=1
check_like_serial() { # DB LABEL
  points "$1" >"$WORK/$2.txt"
  diff "$WORK/serial.txt" "$WORK/$2.txt" >/dev/null ||
    fail "$2: not the serial run's points: $(diff "$WORK/serial.txt" "$WORK/$2.txt" | head -5)"
  [ "$(sql "$1" "SELECT COUNT(*) FROM points WHERE ranks != 1")" = 0 ] ||
    fail "$2: a point measured on more than one rank"
  [ "$(sql "$1" "SELECT COUNT(*) - COUNT(DISTINCT point_key) FROM points")" = 0 ] ||
    fail "$2: a point recorded twice"
  [ "$(sql "$1" "SELECT COUNT(*) FROM points p WHERE status = 'ok' AND (SELECT COUNT(*) FROM
       samples s WHERE s.point_id = p.id) < 3")" = 0 ] || fail "$2: an ok point without its samples"
}

"$RT" run "$cfg" --db "$WORK/serial.db" --quiet >/dev/null
points "$WORK/serial.db" >"$WORK/serial.txt"
[ "$(wc -l <"$WORK/serial.txt")" = 16 ] || fail "serial run: $(wc -l <"$WORK/serial.txt") points"
[ "$(sql "$WORK/serial.db" "SELECT COUNT(*) FROM points WHERE status = 'infeasible'")" = 4 ] ||
  fail "serial run: the infeasible points are missing"

# 1. Three worker processes.
"$RT" run "$cfg" --db "$WORK/gpus.db" --parallel gpus --workers 3 >"$WORK/gpus.log"
grep -q "parallel tuning: 3 worker process(es)" "$WORK/gpus.log" || fail "no worker line: $(head -5 "$WORK/gpus.log")"
grep -q "summary: 16 point(s): 12 measured" "$WORK/gpus.log" || fail "summary: $(grep summary "$WORK/gpus.log")"
check_like_serial "$WORK/gpus.db" gpus
[ "$(sql "$WORK/gpus.db" "SELECT status FROM runs")" = complete ] || fail "gpus: run not complete"
# With early abort and pruning the workers compare with the best time they were handed: the
# points stay the same (an aborted point is still ok and verified; nothing is pruned against the
# generic machine file's loose bounds). Whether any point stops here depends on timing;
# runner.early_abort_ranks_np* check the rule on synthetic times.
"$RT" run "$cfg" --db "$WORK/gpus-abort.db" --parallel gpus --workers 2 --quiet \
  --set measure.abort_factor=1.2 --set search.prune=bound >/dev/null
check_like_serial "$WORK/gpus-abort.db" gpus-abort
[ "$(sql "$WORK/gpus-abort.db" "SELECT COUNT(*) FROM metrics m JOIN points p ON p.id = m.point_id
     WHERE m.name = 'abort_best_s' AND NOT p.time_median_s > 1.2 * m.value")" = 0 ] ||
  fail "an aborted point was not slower than the factor times the best it was handed"

# Worker processes share the host's cores for their OpenMP host phases (inputs, references,
# plans): without OMP_NUM_THREADS each gets the usable cores over the workers (at least 1); a set
# OMP_NUM_THREADS reaches every worker unchanged.
env -u OMP_NUM_THREADS "$RT" run "$cfg" --db "$WORK/gpus-omp.db" --parallel gpus --workers 2 >"$WORK/gpus-omp.log" ||
  fail "gpus without OMP_NUM_THREADS: $(tail -3 "$WORK/gpus-omp.log")"
# nproc itself honours OMP_NUM_THREADS (GNU coreutils), so it counts the cores with it unset too.
cores=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
share=$(( cores / 2 > 0 ? cores / 2 : 1 ))
grep -q "parallel tuning: 2 worker process(es), .*, $share OpenMP thread(s) each" "$WORK/gpus-omp.log" ||
  fail "no OpenMP share of $share: $(grep "parallel tuning" "$WORK/gpus-omp.log")"
grep -q "OpenMP threads as OMP_NUM_THREADS says" "$WORK/gpus.log" ||
  fail "a set OMP_NUM_THREADS: $(grep "parallel tuning" "$WORK/gpus.log")"
check_like_serial "$WORK/gpus-omp.db" gpus-omp

# tune with worker processes: the workers only run (one harvest, by the process started here).
"$RT" tune "$cfg" --db "$WORK/tune.db" --parallel gpus --workers 2 >"$WORK/tune.log" 2>&1 ||
  fail "tune --parallel gpus: $(tail -5 "$WORK/tune.log")"
[ "$(grep -c "^tuning database" "$WORK/tune.log")" = 1 ] || fail "tune: $(grep "tuning database" "$WORK/tune.log")"
check_like_serial "$WORK/tune.db" tune
[ "$(sql "$WORK/tune.db" "SELECT COUNT(*) FROM tuning")" -ge 1 ] || fail "tune recorded no entry"

# 2. MPI ranks: 2 (rank 0 measures too; 3 ranks finish the resume below).
for np in 2; do
  "$MPIEXEC" --allow-run-as-root --oversubscribe -np $np "$RT" run "$cfg" --db "$WORK/ranks$np.db" \
    --parallel ranks >"$WORK/ranks$np.log"
  grep -q "parallel tuning: $np rank(s)" "$WORK/ranks$np.log" || fail "ranks $np: no parallel line"
  check_like_serial "$WORK/ranks$np.db" "ranks$np"
  [ "$(sql "$WORK/ranks$np.db" "SELECT COUNT(*) FROM runs")" = 1 ] || fail "ranks $np: one run row"
done

# tune under mpirun: every rank runs, the store's owner (rank 0) alone records the tuning entries
# (two ranks harvesting at once found the store locked by each other: exit 2 on the 4 x H200 host)
"$MPIEXEC" --allow-run-as-root --oversubscribe -np 2 "$RT" tune "$cfg" --db "$WORK/tune-ranks.db" \
  --parallel ranks >"$WORK/tune-ranks.log" 2>&1 || fail "tune --parallel ranks: $(tail -5 "$WORK/tune-ranks.log")"
[ "$(grep -c "^tuning database" "$WORK/tune-ranks.log")" = 1 ] ||
  fail "tune --parallel ranks: $(grep "tuning database" "$WORK/tune-ranks.log")"
check_like_serial "$WORK/tune-ranks.db" tune-ranks
[ "$(sql "$WORK/tune-ranks.db" "SELECT COUNT(*) FROM tuning")" -ge 1 ] || fail "tune ranks recorded no entry"

# A rank bound to fewer cores than its share of the host is told so (mpirun binds ranks to cores
# by default); taskset stands in for the launcher's binding.
# (Only where this test itself may use every online core: a container's cpuset would warn too.)
if command -v taskset >/dev/null && [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] &&
  [ "$(nproc)" = "$(getconf _NPROCESSORS_ONLN)" ]; then
  taskset -c 0 "$RT" run "$cfg" --db "$WORK/bound.db" --dry-run >"$WORK/bound.log" 2>&1 ||
    fail "bound dry run: $(tail -3 "$WORK/bound.log")"
  grep -q "this rank may run on 1 of the host's $(getconf _NPROCESSORS_ONLN) cores" "$WORK/bound.log" ||
    fail "no binding warning: $(grep -i warning "$WORK/bound.log")"
  "$RT" run "$cfg" --db "$WORK/bound.db" --dry-run >"$WORK/unbound.log" 2>&1
  ! grep -q "this rank may run on" "$WORK/unbound.log" || fail "binding warning without a binding"
fi

# 3. Resume: a point budget stops the run after exactly that many points; the same command again
#    measures only the rest.
"$RT" run "$cfg" --db "$WORK/resume.db" --parallel gpus --workers 2 --max-points 5 --quiet >/dev/null
[ "$(sql "$WORK/resume.db" "SELECT COUNT(*) FROM points")" = 5 ] ||
  fail "--max-points 5: $(sql "$WORK/resume.db" "SELECT COUNT(*) FROM points") points"
"$RT" run "$cfg" --db "$WORK/resume.db" --parallel gpus --workers 2 >"$WORK/resume.log"
grep -q "resumed: 5 point(s)" "$WORK/resume.log" || fail "resume: $(grep -E "summary|resumed" "$WORK/resume.log")"
check_like_serial "$WORK/resume.db" resume
"$MPIEXEC" --allow-run-as-root --oversubscribe -np 2 "$RT" run "$cfg" --db "$WORK/resume2.db" \
  --parallel ranks --max-points 7 --quiet >/dev/null
"$MPIEXEC" --allow-run-as-root --oversubscribe -np 3 "$RT" run "$cfg" --db "$WORK/resume2.db" \
  --parallel ranks --quiet >/dev/null
check_like_serial "$WORK/resume2.db" resume-ranks

# 4. SIGINT to the coordinator: its workers finish their points, the run is 'interrupted' with
#    every point it recorded, no worker process is left, and a rerun completes the set.
slow="$WORK/slow.yaml"
sed -e 's/max_reps: 4, max_time_s: 0.05/max_reps: 40, max_time_s: 2/' \
    -e 's/target_rel_ci: 0.5/target_rel_ci: 0.0001/' "$cfg" >"$slow"
"$RT" run "$slow" --db "$WORK/int.db" --parallel gpus --workers 2 --quiet >/dev/null 2>"$WORK/int.err" &
pid=$!
for _ in $(seq 300); do
  n=$(sql "$WORK/int.db" "SELECT COUNT(*) FROM points" 2>/dev/null || echo 0)
  [ "${n:-0}" -ge 2 ] && break
  sleep 0.1
done
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" = 3 ] || fail "interrupted run: exit $rc, want 3: $(cat "$WORK/int.err")"
[ "$(sql "$WORK/int.db" "SELECT status FROM runs")" = interrupted ] || fail "run not 'interrupted'"
kept=$(sql "$WORK/int.db" "SELECT COUNT(*) FROM points")
[ "$kept" -ge 2 ] && [ "$kept" -lt 16 ] || fail "interrupted run kept $kept points"
if pgrep -f "$WORK/int.db" >/dev/null; then fail "a worker process outlived its coordinator"; fi
"$RT" run "$slow" --db "$WORK/int.db" --parallel gpus --workers 2 --quiet >/dev/null
[ "$(sql "$WORK/int.db" "SELECT COUNT(*) FROM points")" = 16 ] &&
  [ "$(sql "$WORK/int.db" "SELECT COUNT(DISTINCT point_key) FROM points")" = 16 ] ||
  fail "rerun after SIGINT: not the 16 points once each"

# 5. One MPI run, two kinds of kernel entry (kernels[i].parallel): the CSR kernel's points span
#    both ranks (ranks = 2, each rank its rows, as without parallel tuning), the tiled kernel's are
#    spread (ranks = 1). Once with search.parallel: ranks and the CSR entry saying none, once with
#    search.parallel left none and the tiled entry saying ranks; the second is stopped by
#    --max-points (every rank agrees to stop, whoever recorded what) and resumed.
span="$WORK/span.yaml"
awk '/name: spmm.cpu.csr/ {print; print "    parallel: none"; next} {print}' "$cfg" >"$span"
spread="$WORK/spread.yaml"
awk '/name: spmm.cpu.tiled/ {print; print "    parallel: ranks"; next} {print}' "$cfg" >"$spread"
check_mixed() { # DB LABEL
  sql "$1" "SELECT kernel||'|'||matrix||'|'||params||'|'||problem||'|'||status||'|'||verified
            FROM points ORDER BY 1" >"$WORK/$2.txt"
  diff "$WORK/serial.txt" "$WORK/$2.txt" >/dev/null ||
    fail "$2: not the serial run's points: $(diff "$WORK/serial.txt" "$WORK/$2.txt" | head -5)"
  [ "$(sql "$1" "SELECT COUNT(*) FROM points WHERE ranks != 2 AND kernel = 'spmm.cpu.csr'")" = 0 ] ||
    fail "$2: a CSR point not measured by both ranks"
  [ "$(sql "$1" "SELECT COUNT(*) FROM points WHERE ranks != 1 AND kernel = 'spmm.cpu.tiled'")" = 0 ] ||
    fail "$2: a tiled point not measured by one rank"
  [ "$(sql "$1" "SELECT COUNT(*) - COUNT(DISTINCT point_key) FROM points")" = 0 ] ||
    fail "$2: a point recorded twice"
}
"$MPIEXEC" --allow-run-as-root --oversubscribe -np 2 "$RT" run "$span" --db "$WORK/span.db" \
  --parallel ranks >"$WORK/span.log" || fail "span: $(tail -3 "$WORK/span.log")"
grep -q "the kernel entries not spread: every rank in each of their points" "$WORK/span.log" || fail "span: no parallel line"
check_mixed "$WORK/span.db" span
"$MPIEXEC" --allow-run-as-root --oversubscribe -np 2 "$RT" run "$spread" --db "$WORK/spread.db" \
  --max-points 5 --quiet >/dev/null || fail "spread --max-points 5 failed"
[ "$(sql "$WORK/spread.db" "SELECT COUNT(*) FROM points")" = 5 ] ||
  fail "spread --max-points 5: $(sql "$WORK/spread.db" "SELECT COUNT(*) FROM points") points"
"$MPIEXEC" --allow-run-as-root --oversubscribe -np 2 "$RT" run "$spread" --db "$WORK/spread.db" \
  >"$WORK/spread.log" || fail "spread resume: $(tail -3 "$WORK/spread.log")"
grep -q "resumed: 5 point(s)\|5 resumed" "$WORK/spread.log" || fail "spread resume: $(grep summary "$WORK/spread.log")"
check_mixed "$WORK/spread.db" spread

# CONFIG run alone into $WORK/<PREFIX>1.db, then spread over 2 ranks into $WORK/<PREFIX>2.db.
serial_and_spread() { # CONFIG PREFIX LABEL
  "$RT" run "$1" --db "$WORK/${2}1.db" --quiet >/dev/null || fail "$3 serial run"
  "$MPIEXEC" --allow-run-as-root --oversubscribe -np 2 "$RT" run "$1" --db "$WORK/${2}2.db" \
    --parallel ranks --quiet >/dev/null || fail "$3 spread run"
}

# A rank measuring whole points builds the whole problem: the triangular solve's inputs (which
# split the rows by the job's place) are those of a one-rank job, so a spread point verifies all
# of x and records the whole solve's flops, as a serial run does (they were 1/N of it: the first
# 4 x H200 bar recorded its single-GPU solves' GFLOP/s at a quarter). The persistent solve spans.
if "$RT" list 2>/dev/null | grep "sptrsv.cpu.levelset" | grep -qv unavailable; then
  sp="$WORK/sp.yaml"
  cat >"$sp" <<'YAML'
experiment: {name: cli-parallel-sptrsv}
matrices:
  - {name: lap, generator: laplacian, stencil: 7, nx: 14}
problem: {nrhs: [1], ordering: [metis], max_supernode: [128], solve: [forward]}
kernels:
  - name: sptrsv.cpu.levelset
  - name: sptrsv.cpu.persistent
    params: {parts: [1, 2]}
    parallel: none
measure: {warmup: 1, min_reps: 6, max_reps: 8, max_time_s: 0.2, target_rel_ci: 0.2}
YAML
  serial_and_spread "$sp" sp sptrsv
  serial_flops=$(sql "$WORK/sp1.db" "SELECT flops FROM points WHERE kernel = 'sptrsv.cpu.levelset'")
  sp_row=$(sql "$WORK/sp2.db" "SELECT flops || '|' || ranks || '|' || status FROM points
                               WHERE kernel = 'sptrsv.cpu.levelset'")
  [ "$sp_row" = "$serial_flops|1|ok" ] ||
    fail "spread sptrsv point: $sp_row, want the serial run's flops $serial_flops on one rank, ok"
  [ "$(sql "$WORK/sp2.db" "SELECT COUNT(*) FROM points WHERE kernel = 'sptrsv.cpu.persistent'
        AND ranks = 2 AND status = 'ok' AND flops = $serial_flops")" = 2 ] ||
    fail "spanning persistent points: $(sql "$WORK/sp2.db" "SELECT ranks, status, flops FROM points")"
fi

# The same for sparse DNN inference, whose features are split by the job's place: a spread point
# infers every feature (its family once read MPI_COMM_WORLD itself, so a spread point took 1/N).
dnn="$WORK/dnn.yaml"
cat >"$dnn" <<'YAML'
experiment: {name: cli-parallel-spdnn}
matrices:
  - {name: dnn1024, generator: sparse_dnn, neurons: 1024, seed: 1}
problem: {layers: [2], features: [12], feature_density: [0.3], network_seed: [1]}
kernels:
  - name: spdnn.cpu.fused
    params: {feature_tile: [1, 4], threads: [1]}
measure: {warmup: 1, min_reps: 3, max_reps: 4, max_time_s: 0.05, target_rel_ci: 0.5}
YAML
serial_and_spread "$dnn" dnn spdnn
dnn_flops=$(sql "$WORK/dnn1.db" "SELECT DISTINCT flops FROM points WHERE status = 'ok'")
[ -n "$dnn_flops" ] && [ "$(sql "$WORK/dnn2.db" "SELECT COUNT(*) FROM points WHERE ranks = 1
      AND status = 'ok' AND verified = 1 AND flops = $dnn_flops")" = 2 ] ||
  fail "spread spdnn points: $(sql "$WORK/dnn2.db" "SELECT ranks, status, flops FROM points"),
want 2 verified on one rank with the serial run's flops $dnn_flops"

# 6. Bad input: exit 2, naming the key or option.
expect_usage() { # LABEL ARGS...
  local label=$1; shift
  local rc=0
  "$@" >"$WORK/bad.out" 2>"$WORK/bad.err" || rc=$?
  [ "$rc" = 2 ] || fail "$label: exit $rc, want 2"
}
expect_usage "--parallel bogus" "$RT" run "$cfg" --db "$WORK/bad.db" --parallel bogus
grep -q "search.parallel" "$WORK/bad.err" || fail "--parallel bogus: $(cat "$WORK/bad.err")"
expect_usage "--workers -1" "$RT" run "$cfg" --db "$WORK/bad.db" --parallel gpus --workers -1
grep -q "search.workers" "$WORK/bad.err" || fail "--workers -1: $(cat "$WORK/bad.err")"
expect_usage "bayes" "$RT" run "$cfg" --db "$WORK/bad.db" --parallel gpus --set search.strategy=bayes
grep -q "needs search.strategy exhaustive or random" "$WORK/bad.err" ||
  fail "parallel bayes: $(cat "$WORK/bad.err")"
expect_usage "--worker-fd alone" "$RT" run "$cfg" --db "$WORK/bad.db" --worker-fd 5
grep -q "go together" "$WORK/bad.err" || fail "--worker-fd alone: $(cat "$WORK/bad.err")"
expect_usage "--worker-fd 1" "$RT" run "$cfg" --db "$WORK/bad.db" --worker-fd 1 --worker-index 0
expect_usage "span gpus" "$RT" run "$span" --db "$WORK/bad.db" --parallel gpus --workers 2
grep -q "kernels\[0\].parallel: none inside search.parallel: gpus" "$WORK/bad.err" ||
  fail "span gpus: $(cat "$WORK/bad.err")"
expect_usage "spread bayes" "$RT" run "$spread" --db "$WORK/bad.db" --set search.strategy=bayes
grep -q "kernels\[1\].parallel: ranks needs search.strategy" "$WORK/bad.err" ||
  fail "spread bayes: $(cat "$WORK/bad.err")"
expect_usage "parallel bogus" "$RT" run "$cfg" --db "$WORK/bad.db" --set kernels.0.parallel=bogus
grep -q "kernels\[0\].parallel: expected one of search, none, ranks, got 'bogus'" "$WORK/bad.err" ||
  fail "kernels.0.parallel=bogus: $(cat "$WORK/bad.err")"
[ ! -e "$WORK/bad.db" ] || fail "a refused run left a store"
# gpus under mpirun: refused (ranks is the mode for a job), nothing measured.
rc=0
"$MPIEXEC" --allow-run-as-root --oversubscribe -np 2 "$RT" run "$cfg" --db "$WORK/mixed.db" \
  --parallel gpus --workers 2 >/dev/null 2>"$WORK/mixed.err" || rc=$?
[ "$rc" != 0 ] || fail "--parallel gpus under mpirun was accepted"
grep -q "under mpirun use search.parallel: ranks" "$WORK/mixed.err" || fail "mixed: $(cat "$WORK/mixed.err")"
[ "$(sql "$WORK/mixed.db" "SELECT COUNT(*) FROM points")" = 0 ] || fail "mixed: points recorded"
echo "parallel run: ok"
