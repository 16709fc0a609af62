# dspmm.cuda.sender end to end on a GPU host (exit 77, skipped, only where there is no
# NVIDIA driver or no CUDA device: a GPU host whose plugin does not load fails, see tests/gpu).
#   $1 rooftune  $2 repository root  $3 scratch folder  $4 mpiexec
# Runs configs/ci/hierarchical-comm-gpu-small.yaml (the GPU kernel and the CPU kernel on the same
# points) under mpirun -np 2 (one node: every hop inside it) and -np 4 --ranks-per-node 2 (two
# emulated nodes: IPC or staging inside a node, staging between nodes; ranks may share a GPU) and
# fails unless every point is measured (verified against the reference) with none wrong or in
# error, and every GPU point sent exactly the bytes and messages per tier that the CPU kernel sent
# for the same point. Pipelined points (stages 1, 3, 8; 2 and 3 buffer sets) must all verify with
# the same bytes per tier whatever the stages. Then a rank that fails (fail_rank, in run and in setup) must fail the point
# with that rank named, without a hang.
. "$(dirname "$0")/../rt_test_lib.sh"
rt_args RT ROOT WORK MPIEXEC -- "$@"
rt_scratch "$WORK"
rt_mpi_env
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
unset ROOFTUNE_NO_CUDA
CFG="$ROOT/configs/ci/hierarchical-comm-gpu-small.yaml"

"$RT" list >"$WORK/list.txt" 2>&1 || fail "rooftune list: $(cat "$WORK/list.txt")"
line=$(grep -E '^ *dspmm\.cuda\.sender ' "$WORK/list.txt" || true)
[ -n "$line" ] || fail "rooftune list does not know dspmm.cuda.sender"
# shellcheck source=../gpu/rt_gpu_gate.sh
. "$ROOT/tests/gpu/rt_gpu_gate.sh"
rt_gpu_gate "$line" # skips (77) only without a GPU; a GPU host with a broken plugin fails

# compare DB: every GPU point's per-tier totals equal the CPU point's of the same configuration.
compare_with_cpu() {
  python3 - "$1" <<'PY'
import json, sqlite3, sys
con = sqlite3.connect(sys.argv[1])
pts = con.execute("SELECT id, kernel, matrix, params, problem FROM points").fetchall()
def key(matrix, params, problem):
    p, q = json.loads(params), json.loads(problem)
    return (matrix, p["comm"], p["p_batch"], p["minibatch"], q["precision"], q["K"])
def metrics(pid):
    return dict(con.execute("SELECT name, value FROM metrics WHERE point_id = ? AND available = 1",
                            (pid,)).fetchall())
cpu = {key(m, p, q): metrics(i) for i, k, m, p, q in pts if k == "dspmm.cpu.sender"}
checked = moved = 0
for i, k, m, p, q in pts:
    if k != "dspmm.cuda.sender":
        continue
    kk = key(m, p, q)
    assert kk in cpu, f"no dspmm.cpu.sender point for {kk}"
    g, c = metrics(i), cpu[kk]
    for t in ("socket", "node", "global"):
        for what in ("bytes", "msgs"):
            for agg in ("total", "max"):
                name = f"comm_{what}_{t}_{agg}"
                assert name in g, f"{kk} {p}: the GPU point has no {name}"
                assert g[name] == c[name], f"{kk} {p}: {name} GPU {g[name]}, CPU {c[name]}"
    assert "time_staging_s" in g, f"{kk} {p}: time_staging_s is not measured"
    moved += g["comm_bytes_global_total"] + g["comm_bytes_node_total"] + g["comm_bytes_socket_total"] > 0
    checked += 1
assert checked == 12 * 2, f"{checked} GPU points compared, want 24"
assert moved > 0, "no GPU point communicated: the comparison proves nothing"
print(f"{checked} GPU point(s): per-tier volumes equal dspmm.cpu.sender's")
PY
}

run_case() {
  local name=$1 np=$2
  shift 2
  local db="$WORK/$name.db"
  timeout 300 "$MPIEXEC" --allow-run-as-root --oversubscribe -np "$np" "$RT" run "$CFG" --db "$db" "$@" \
    >"$WORK/$name.log" 2>&1 || { cat "$WORK/$name.log" >&2; fail "$name: mpirun -np $np: exit $?"; }
  local summary
  summary=$(grep '^summary:' "$WORK/$name.log" || true)
  echo "$name: $summary"
  echo "$summary" | grep -qE '^summary: ([0-9]+) point\(s\): \1 measured, 0 resumed' ||
    { cat "$WORK/$name.log" >&2; fail "$name: not every point measured: $summary"; }
  echo "$summary" | grep -q ' 0 wrong, 0 infeasible, 0 error(s), 0 timeout(s)' ||
    { cat "$WORK/$name.log" >&2; fail "$name: $summary"; }
  local n
  rt_sql_is "$db" 24 "SELECT COUNT(*) FROM points WHERE status='ok' AND verified=1 AND ranks=$np AND kernel='dspmm.cuda.sender'" || fail "$name: $got verified GPU points, want 24"
  compare_with_cpu "$db" || fail "$name: GPU and CPU volumes differ"
}

run_case np2 2
run_case np4_rpn2 4 --ranks-per-node 2
# Two emulated nodes hold global traffic: the comparison above covered the staged transport.
g=$(sql "$WORK/np4_rpn2.db" "SELECT MAX(m.value) FROM metrics m JOIN points p ON p.id = m.point_id WHERE p.kernel='dspmm.cuda.sender' AND m.name='comm_bytes_global_total'")
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 0 else 1)" "${g:-0}" ||
  fail "np4_rpn2: no bytes crossed the emulated nodes"

# Pipelining (issue 21): stages 1, 3 (does not divide K = 16) and 8, two and three buffer sets,
# every scheme, IPC and staged hops inside a node, 2 emulated nodes x 2: every point verified, the
# same bytes per tier whatever the stages, and the pipeline model, overlap and timeline stored.
db="$WORK/pipe.db"
timeout 300 "$MPIEXEC" --allow-run-as-root --oversubscribe -np 4 "$RT" run "$CFG" --db "$db" \
  --ranks-per-node 2 --set 'kernels=[{name: dspmm.cuda.sender, params: {comm: [direct, node, socket+node], stages: [1, 3, 8], stage_buffers: [2, 3], intra: [ipc, staged]}}]' \
  --set 'problem.precision=[fp32]' >"$WORK/pipe.log" 2>&1 ||
  { cat "$WORK/pipe.log" >&2; fail "pipelined run: exit $?"; }
python3 - "$db" dspmm.cuda.sender 36 <<'PY' || fail "pipelined points"
import json, sqlite3, sys
con = sqlite3.connect(sys.argv[1])
kernel, want = sys.argv[2], int(sys.argv[3])
pts = con.execute("SELECT id, params, status, verified FROM points WHERE kernel = ?",
                  (kernel,)).fetchall()
assert len(pts) == want, f"{len(pts)} {kernel} points, want {want}"
by_shape = {}
for pid, params, status, verified in pts:
    p = json.loads(params)
    assert status == "ok" and verified == 1, f"{p}: {status}"
    m = dict(con.execute("SELECT name, value FROM metrics WHERE point_id = ? AND available = 1",
                         (pid,)).fetchall())
    for name in ("pipeline_model_s", "pipeline_model_ratio", "time_overlap_s", "time_wall_s"):
        assert name in m and m[name] >= 0, f"{p}: no {name}"
    # The event timeline: every phase's busy time is part of the union, the union fits in the
    # execution's wall time (the timeline starts after the wall clock and ends before it stops),
    # and the multiply was timed.
    busy = {ph: m.get(f"time_busy_{ph}_s") for ph in
            ("multiply", "d2h", "ipc", "h2d", "reduce", "mpi", "sum", "union", "overlap")}
    assert all(v is not None and v >= 0 for v in busy.values()), f"{p}: timeline {busy}"
    assert busy["multiply"] > 0, f"{p}: no multiply on the timeline"
    assert busy["union"] <= 1.02 * m["time_wall_s"] + 1e-4, f"{p}: union {busy} > wall"
    for ph in ("multiply", "d2h", "ipc", "h2d", "reduce", "mpi"):
        assert busy[ph] <= busy["union"] + 1e-9, f"{p}: {ph} busy beyond the union {busy}"
    assert busy["union"] <= busy["sum"] + 1e-9, f"{p}: union above the sum {busy}"
    vols = tuple(m[f"comm_{w}_{t}_total"] for t in ("socket", "node", "global") for w in ("bytes",))
    shape = (p["comm"], p.get("intra", ""))
    by_shape.setdefault(shape, set()).add(vols)
    assert m["chunks"] == min(p["stages"], 16), f"{p}: {m['chunks']} chunks"
for shape, vols in by_shape.items():
    assert len(vols) == 1, f"{shape}: bytes per tier depend on the stages: {vols}"
print(f"{len(pts)} pipelined point(s) verified; bytes per tier independent of the stages")
PY

# Failure injection: rank 2 fails in run, then in setup; both points in error naming rank 2.
db="$WORK/fail.db"
set +e
timeout 180 "$MPIEXEC" --allow-run-as-root --oversubscribe -np 4 "$RT" run "$CFG" --db "$db" \
  --ranks-per-node 2 --set 'kernels=[{name: dspmm.cuda.sender, params: {comm: [node], fail_rank: [2], fail_at: [run, setup]}}]' \
  --set 'problem.precision=[fp32]' >"$WORK/fail.log" 2>&1
rc=$?
set -e
[ "$rc" = 124 ] && fail "the failure run hung"
[ "$rc" = 1 ] || { cat "$WORK/fail.log" >&2; fail "failure run: exit status $rc, want 1"; }
rt_sql_is "$db" 2 "SELECT COUNT(*) FROM points WHERE status='error'" || fail "$got points in error, want 2"
rt_sql_has "$db" "SELECT reason FROM points WHERE params LIKE '%\"fail_at\":\"run\"%'" "injected failure on rank 2" || fail "run failure: $got"
rt_sql_has "$db" "SELECT reason FROM points WHERE params LIKE '%\"fail_at\":\"setup\"%'" "rank 2.*injected failure on rank 2 in setup" || fail "setup failure: $got"
echo "dspmm.cuda.sender: ok"
