# End-to-end tests of the distributed SpMM through the rooftune binary.
#   $1 rooftune  $2 repository root  $3 scratch folder  $4 mpiexec  $5 mode  [$6.. mode arguments]
# Modes:
#   runner NP RPN RPS [--set ...]  mpirun -np NP rooftune run configs/ci/hierarchical-comm-small.yaml
#                                  with RPN ranks per node and RPS per socket: every point must be
#                                  verified by the runner's gate (the distributed C against the
#                                  reference) and its measured per-tier bytes and messages must
#                                  equal, exactly, the model-only mode's for the same job shape.
#   failure                        a rank that fails (test hook fail_rank, in run and in setup)
#                                  makes the run fail with that rank named, and nothing hangs.
#   model                          the model-only CLI: no mpirun, outputs, errors.
. "$(dirname "$0")/../rt_test_lib.sh"
rt_args RT ROOT WORK MPIEXEC MODE -- "$@"
shift 5
rt_scratch "$WORK"
rt_mpi_env
export ROOFTUNE_NO_CUDA=1 OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
CFG="$ROOT/configs/ci/hierarchical-comm-small.yaml"
mpirun_rt() { local np=$1; shift; "$MPIEXEC" --allow-run-as-root --oversubscribe -np "$np" "$RT" "$@"; }

# compare DB CSV: every verified point's metrics against the model row of the same point.
compare_with_model() {
  python3 - "$1" "$2" <<'EOF'
import csv, json, sqlite3, sys
db, model = sys.argv[1], sys.argv[2]
rows = {}
with open(model, newline="") as f:
    for r in csv.DictReader(f):
        rows[(r["matrix"], r["comm"], int(r["p_batch"]), int(r["minibatch"]), r["precision"], int(r["K"]))] = r
con = sqlite3.connect(db)
pts = con.execute("SELECT id, matrix, params, problem, status FROM points").fetchall()
assert pts, "no points in the store"
checked = 0
for pid, matrix, params, problem, status in pts:
    assert status == "ok", f"point {pid} ({matrix} {params}) is {status}"
    p, q = json.loads(params), json.loads(problem)
    key = (matrix, p["comm"], p["p_batch"], p["minibatch"], q["precision"], q["K"])
    assert key in rows, f"no model row for {key}"
    r = rows[key]
    assert r["status"] == "ok", f"model says {r['status']} for {key}"
    m = dict(con.execute("SELECT name, value FROM metrics WHERE point_id = ? AND available = 1", (pid,)).fetchall())
    for t in ("socket", "node", "global"):
        for what, col in (("bytes", "bytes"), ("msgs", "msgs")):
            for agg in ("total", "max"):
                got = m.get(f"comm_{what}_{t}_{agg}")
                want = float(r[f"{col}_{t}_{agg}"])
                assert got == want, f"{key}: comm_{what}_{t}_{agg} measured {got}, model {want}"
    for lvl in range(3):
        if r[f"partial_bytes_l{lvl}"]:
            assert m.get(f"partial_bytes_l{lvl}") == float(r[f"partial_bytes_l{lvl}"]), f"{key}: level {lvl}"
    # The pair matrix, when stored, adds up to the per-tier totals.
    if m.get("commmat_stored") == 1.0:
        for t in ("socket", "node", "global"):
            s = sum(v for k, v in m.items() if k.startswith(f"commmat_{t}_"))
            assert s == m[f"comm_bytes_{t}_total"], f"{key}: commmat {t} sums to {s}"
    checked += 1
print(f"{checked} point(s): measured volumes equal the model's")
EOF
}

case "$MODE" in
runner)
  np=$1 rpn=$2 rps=$3
  shift 3
  db="$WORK/run.db"
  mpirun_rt "$np" run "$CFG" --db "$db" --ranks-per-node "$rpn" --ranks-per-socket "$rps" "$@" \
    >"$WORK/run.log" 2>&1 || { cat "$WORK/run.log" >&2; fail "mpirun -np $np: exit $?"; }
  n=$(sql "$db" "SELECT COUNT(*) FROM points WHERE status='ok' AND verified=1 AND ranks=$np")
  all=$(sql "$db" "SELECT COUNT(*) FROM points")
  [ "$n" -gt 0 ] && [ "$n" = "$all" ] || { cat "$WORK/run.log" >&2; fail "$n of $all points verified"; }
  "$RT" run "$CFG" --model-only --ranks "$np" --ranks-per-node "$rpn" --ranks-per-socket "$rps" \
    --db "$db" "$@" >"$WORK/model.log" 2>&1 || { cat "$WORK/model.log" >&2; fail "model-only"; }
  compare_with_model "$db" "$WORK/hierarchical-comm-small-model.csv" || fail "model mismatch"
  echo "runner np $np rpn $rpn rps $rps: ok ($n points)"
  ;;
failure)
  db="$WORK/fail.db"
  set +e
  timeout 120 "$MPIEXEC" --allow-run-as-root --oversubscribe -np 4 "$RT" run "$CFG" --db "$db" \
    --ranks-per-node 2 --set 'matrices=[{name: u, generator: uniform, rows: 300, nnz_per_row: 4}]' \
    --set 'kernels.0.params={comm: [node], fail_rank: [2], fail_at: [run, setup], threads: [1]}' \
    >"$WORK/fail.log" 2>&1
  rc=$?
  set -e
  [ "$rc" = 124 ] && fail "the run hung"
  [ "$rc" = 1 ] || { cat "$WORK/fail.log" >&2; fail "exit status $rc, want 1 (points in error)"; }
  rt_sql_is "$db" 2 "SELECT COUNT(*) FROM points WHERE status='error'" || fail "$got points in error, want 2"
  r=$(sql "$db" "SELECT reason FROM points WHERE params LIKE '%\"fail_at\":\"run\"%'")
  echo "$r" | grep -q "rank 2" || fail "run failure does not name rank 2: $r"
  echo "$r" | grep -q "injected failure on rank 2" || fail "run failure lost its cause: $r"
  rt_sql_has "$db" "SELECT reason FROM points WHERE params LIKE '%\"fail_at\":\"setup\"%'" "^rank 2: .*injected failure on rank 2 in setup" || fail "setup failure: $got"
  rt_sql_is "$db" complete "SELECT status FROM runs" || fail "run status $got"
  echo "failure: ok"
  ;;
model)
  # Needs no mpirun; machine file times; the 12 points of the CI config at 8 ranks.
  out="$WORK/m.db"
  "$RT" run "$CFG" --model-only --ranks 8 --ranks-per-node 4 --ranks-per-socket 2 --db "$out" \
    --machine "$ROOT/roofline/machines/summit-node.yaml" >"$WORK/m.log" 2>&1 || {
    cat "$WORK/m.log" >&2; fail "model-only"; }
  grep -q "predicted comm" "$WORK/m.log" || fail "no predicted times: $(cat "$WORK/m.log")"
  [ ! -e "$out" ] || fail "model-only wrote a store"
  n=$(python3 -c "import csv,sys; print(sum(1 for r in csv.DictReader(open(sys.argv[1])) if r['status']=='ok' and float(r['comm_time_s'])>0))" \
        "$WORK/hierarchical-comm-small-model.csv")
  [ "$n" = 24 ] || fail "$n timed model rows, want 24"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d)==24 and d[0]['machine']=='summit-node'" \
    "$WORK/hierarchical-comm-small-model.json" || fail "JSON output"
  # Without --db the tables go to the current folder, never over results/'s committed copies;
  # --out names the folder (made when missing).
  mkdir -p "$WORK/cwd"
  (cd "$WORK/cwd" && "$RT" run "$CFG" --model-only --ranks 8 >"$WORK/mcwd.log" 2>&1) || fail "model-only without --db"
  [ -s "$WORK/cwd/hierarchical-comm-small-model.csv" ] && [ ! -e "$WORK/cwd/results" ] ||
    fail "model-only without --db: not in the current folder: $(ls -R "$WORK/cwd")"
  "$RT" run "$CFG" --model-only --ranks 8 --out "$WORK/o/deeper" >"$WORK/mout.log" 2>&1 || fail "--out: $(cat "$WORK/mout.log")"
  [ -s "$WORK/o/deeper/hierarchical-comm-small-model.json" ] || fail "--out: no JSON in the --out folder"
  # p_batch 2 does not divide 3 ranks: infeasible rows, not an error.
  "$RT" run "$CFG" --model-only --ranks 3 --db "$out" >"$WORK/m3.log" 2>&1 || fail "3 ranks"
  grep -q "infeasible: p_batch = 2 does not divide the 3 ranks" "$WORK/m3.log" || fail "3 ranks: $(cat "$WORK/m3.log")"
  # Usage errors (exit 2) with a message.
  set +e
  "$RT" run "$CFG" --model-only --db "$out" >"$WORK/e1.log" 2>&1; r1=$?
  "$RT" run "$CFG" --ranks 4 --db "$out" >"$WORK/e2.log" 2>&1; r2=$?
  "$RT" run "$CFG" --model-only --ranks 6 --ranks-per-node 4 --db "$out" >"$WORK/e3.log" 2>&1; r3=$?
  "$RT" run "$ROOT/configs/quickstart.yaml" --model-only --ranks 4 --db "$out" >"$WORK/e4.log" 2>&1; r4=$?
  set -e
  [ "$r1" = 2 ] && grep -q "needs --ranks" "$WORK/e1.log" || fail "missing --ranks: $r1 $(cat "$WORK/e1.log")"
  [ "$r2" = 2 ] && grep -q "only with --model-only" "$WORK/e2.log" || fail "--ranks alone: $r2"
  [ "$r3" = 2 ] && grep -q "does not divide" "$WORK/e3.log" || fail "rpn: $r3 $(cat "$WORK/e3.log")"
  [ "$r4" = 3 ] && grep -q "no kernel of the dspmm and gemm family" "$WORK/e4.log" || fail "no dspmm: $r4 $(cat "$WORK/e4.log")"
  echo "model: ok"
  ;;
*)
  fail "unknown mode $MODE"
  ;;
esac
