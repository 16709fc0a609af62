# rooftune figures and the figure types of `rooftune plot`. Run with a case:
#   committed  the committed figures regenerate byte-for-byte (twice, and equal to results/figures)
#   types      speedup bars, box plots, stacked bars, heat maps and scaling figures from a real
#              store, checked against numbers recomputed here from the store
#   errors     what the new figure types refuse, with a message naming the plot
source "$(dirname "$0")/lib.sh"
CASE=$5

case "$CASE" in
committed)
  # Regenerate from a copy of the committed stores, so the source tree is only read.
  mkdir -p "$WORK/results"
  cp -r "$SRC/results/baselines" "$WORK/results/"
  side_files() { find "$WORK/results/baselines" \( -name '*-wal' -o -name '*-shm' \) | sort; }
  side_files >"$WORK/side.before"
  "$RT" figures --results "$WORK/results" --out "$WORK/f1" >"$WORK/f1.log" 2>&1 ||
    { cat "$WORK/f1.log"; fail "rooftune figures failed"; }
  "$RT" figures --results "$WORK/results" --out "$WORK/f2" >"$WORK/f2.log" 2>&1 ||
    { cat "$WORK/f2.log"; fail "second rooftune figures failed"; }
  n=$(cd "$WORK/f1" && find . -name '*.dat' | wc -l)
  [ "$n" -ge 3 ] || fail "only $n data files regenerated"
  # Twice the same bytes.
  (cd "$WORK/f1" && find . -name '*.dat' | sort) >"$WORK/f1.list"
  (cd "$WORK/f2" && find . -name '*.dat' | sort) >"$WORK/f2.list"
  cmp -s "$WORK/f1.list" "$WORK/f2.list" || fail "the two regenerations wrote different files"
  # Drawn again into a folder that already holds them (as `rooftune figures` does into
  # results/figures): every figure stays, none is taken for stale (the roofline figure's files,
  # rewritten in place, once were).
  "$RT" figures --results "$WORK/results" --out "$WORK/f1" >"$WORK/f3.log" 2>&1 ||
    { cat "$WORK/f3.log"; fail "rooftune figures into an existing folder failed"; }
  (cd "$WORK/f1" && find . -name '*.dat' | sort) >"$WORK/f3.list"
  diff "$WORK/f2.list" "$WORK/f3.list" >"$WORK/f3.diff" ||
    fail "drawing into the existing folder lost or added figures: $(head -5 "$WORK/f3.diff")"
  while read -r f; do
    cmp -s "$WORK/f1/$f" "$WORK/f2/$f" || fail "$f differs between two regenerations"
  done <"$WORK/f1.list"
  # The .gp scripts differ only in the folder named in their "Regenerate:" comment.
  while read -r f; do
    g=${f%.dat}.gp
    diff <(grep -v '^# Regenerate: cd ' "$WORK/f1/$g") <(grep -v '^# Regenerate: cd ' "$WORK/f2/$g") \
      >/dev/null || fail "$g differs between two regenerations"
  done <"$WORK/f1.list"
  # And the same as the committed ones: every store's figures are committed, and nothing else.
  committed="$SRC/results/figures"
  (cd "$committed" && find . -name '*.dat' | sort) >"$WORK/committed.list"
  diff "$WORK/committed.list" "$WORK/f1.list" >"$WORK/list.diff" ||
    fail "results/figures does not match the committed stores (run build/rooftune figures):
$(cat "$WORK/list.diff")"
  while read -r f; do
    cmp -s "$committed/$f" "$WORK/f1/$f" ||
      fail "results/figures/${f#./} differs from its regeneration (run build/rooftune figures):
$(diff "$committed/$f" "$WORK/f1/$f" | head -5)"
  done <"$WORK/f1.list"
  # The stores were only read: no new WAL side files appeared beside them.
  side_files >"$WORK/side.after"
  cmp -s "$WORK/side.before" "$WORK/side.after" ||
    fail "figures left -wal/-shm files beside the committed stores: $(comm -13 "$WORK/side.before" "$WORK/side.after")"
  # Two stores of one device holding the same experiment (a run on 2 and one on 4 ranks) get a
  # folder each, named after the store; a lone store's folder keeps the experiment's name.
  mkdir -p "$WORK/twin/baselines/dev"
  # sed reads the whole list: `head -1` would leave sort writing into a closed pipe (SIGPIPE),
  # which pipefail turns into a silent exit when the list outgrows one write (a deep checkout)
  one=$(find "$WORK/results/baselines" -name '*.db' | sort | sed -n 1p)
  cp "$one" "$WORK/twin/baselines/dev/a-np2.db"
  cp "$one" "$WORK/twin/baselines/dev/a-np4.db"
  "$RT" figures --results "$WORK/twin" --out "$WORK/twin/f" >"$WORK/twin.log" 2>&1 ||
    { cat "$WORK/twin.log"; fail "rooftune figures on two stores of one experiment failed"; }
  for st in a-np2 a-np4; do
    [ -n "$(find "$WORK/twin/f/dev/$st" -name '*.dat' 2>/dev/null)" ] ||
      fail "the store $st.db of a shared experiment got no folder of its own: $(ls "$WORK/twin/f/dev")"
  done
  [ "$(ls "$WORK/twin/f/dev" | wc -l)" = 2 ] || fail "two stores, folders: $(ls "$WORK/twin/f/dev")"
  # A plots file beside a store (STORE.plots.yaml) declares its figures after the run: drawn in
  # place of the recorded config's or the default set; one naming another experiment is refused,
  # naming the file.
  mkdir -p "$WORK/pf/baselines/dev"
  cp "$one" "$WORK/pf/baselines/dev/p.db"
  exp=$(sql "$one" "SELECT experiment FROM runs ORDER BY id LIMIT 1")
  printf 'experiment: {name: %s}\nplots:\n  - {type: bars, series: kernel, name: from-plots-file}\n' \
    "$exp" >"$WORK/pf/baselines/dev/p.plots.yaml"
  "$RT" figures --results "$WORK/pf" --out "$WORK/pf/f" >"$WORK/pf.log" 2>&1 ||
    { cat "$WORK/pf.log"; fail "rooftune figures with a plots file failed"; }
  grep -q "from the store's plots file" "$WORK/pf.log" || fail "plots file not used: $(cat "$WORK/pf.log")"
  [ -s "$WORK/pf/f/dev/$exp/from-plots-file.dat" ] ||
    fail "the plots file's figure is missing: $(ls "$WORK/pf/f/dev/$exp")"
  printf 'experiment: {name: not-this-one}\nplots:\n  - {type: bars, series: kernel}\n' \
    >"$WORK/pf/baselines/dev/p.plots.yaml"
  expect_exit 2 "$RT" figures --results "$WORK/pf" --out "$WORK/pf/g"
  grep -q "p.plots.yaml: experiment.name names none of the store's experiments ('not-this-one'" <<<"$OUT" ||
    fail "wrong experiment in a plots file: $OUT"
  # A plots file that is not YAML, or names a column the store lacks, is refused naming its line.
  printf 'experiment: {name: %s\nplots: [\n' "$exp" >"$WORK/pf/baselines/dev/p.plots.yaml"
  expect_exit 2 "$RT" figures --results "$WORK/pf" --out "$WORK/pf/h"
  grep -q "p.plots.yaml:2:[0-9]*: YAML syntax error" <<<"$OUT" || fail "broken plots file: $OUT"
  printf 'experiment: {name: %s}\nplots:\n  - {type: line, x: nosuch, y: gflops}\n' "$exp" \
    >"$WORK/pf/baselines/dev/p.plots.yaml"
  expect_exit 2 "$RT" figures --results "$WORK/pf" --out "$WORK/pf/i" --no-roofline
  grep -q "p.plots.yaml:3:5: plots\[0\] .*x: unknown name 'nosuch'" <<<"$OUT" ||
    fail "plots file naming an unknown column: $OUT"
  # No store at all is an error naming where it looked.
  expect_exit 2 "$RT" figures --results "$WORK/empty" --out "$WORK/f3"
  grep -q "$WORK/empty/baselines" <<<"$OUT" || fail "$OUT"
  ;;
types)
  db="$WORK/f.db"
  make_db "$db"
  # A second measurement on two ranks gives the scaling figures their x.
  mpirun=${MPIEXEC:-mpirun}
  "$mpirun" --oversubscribe -np 2 "$RT" run "$HERE/tiny.yaml" --db "$db" --quiet >"$WORK/mpi.log" 2>&1 ||
    { cat "$WORK/mpi.log"; fail "the 2-rank run failed"; }
  # A communication matrix on the two-rank points (no CPU kernel records one yet).
  sql "$db" "INSERT INTO metrics (point_id, name, unit, available, deterministic, value)
             SELECT p.id, 'comm_bytes_' || i.v || '_' || j.v, 'bytes', 1, 1, 100 * p.id + 10 * i.v + j.v
             FROM points p, (SELECT 0 AS v UNION SELECT 1) i, (SELECT 0 AS v UNION SELECT 1) j
             WHERE p.ranks = 2;
             INSERT INTO metrics (point_id, name, unit, available, deterministic, value)
             SELECT id, 'comm_bytes_total', 'bytes', 1, 1, 1 FROM points WHERE ranks = 2;"
  "$RT" plot --db "$db" --out "$WORK/figs" --config "$HERE/figures.yaml" >"$WORK/plot.log" 2>&1 ||
    { cat "$WORK/plot.log"; fail "rooftune plot failed"; }
  for stem in speedup samples breakdown strong-scaling efficiency comm; do
    [ -s "$WORK/figs/$stem.dat" ] && [ -s "$WORK/figs/$stem.gp" ] || fail "$stem not written"
    if command -v gnuplot >/dev/null; then
      [ -s "$WORK/figs/$stem.png" ] && [ -s "$WORK/figs/$stem.svg" ] || fail "$stem not drawn"
    fi
  done
  python3 - "$db" "$WORK/figs" <<'PY'
import math, shlex, sqlite3, sys
db, figs = sqlite3.connect(sys.argv[1]), sys.argv[2]
def rows(stem):
    out = []
    for line in open(f"{figs}/{stem}.dat"):
        if line.strip() and not line.startswith("#"):
            out.append(shlex.split(line))
    return out
def close(a, b): return abs(a - b) <= 1e-8 * max(abs(a), abs(b), 1e-300)
ok = "status = 'ok'"

# Speedup bars: per matrix, the best gflops per kernel, and each over spmm.cpu.csr's.
best = {(m, k): g for m, k, g in db.execute(
    f"SELECT matrix, kernel, MAX(gflops) FROM points WHERE {ok} GROUP BY matrix, kernel")}
for r in rows("speedup"):
    m, csr, tiled, s_csr, s_tiled = r[0], *map(float, r[1:])
    assert close(csr, best[(m, "spmm.cpu.csr")]) and close(tiled, best[(m, "spmm.cpu.tiled")]), r
    assert s_csr == 1.0 and close(s_tiled, tiled / csr), r
gp = open(f"{figs}/speedup.gp").read()
assert "sprintf('%.2fx'" in gp, "speedup labels missing from the script"

# Box plots: quartiles (type 7) and Tukey whiskers of the chosen point's samples.
def quantile(x, p):
    h = (len(x) - 1) * p; lo = math.floor(h)
    return x[lo] if lo + 1 >= len(x) else x[lo] + (h - lo) * (x[lo + 1] - x[lo])
n_boxes = 0
for r in rows("samples"):
    if len(r) != 10: continue  # the outlier block
    q1, wlo, whi, q3, med = map(float, r[2:7]); n, pid = int(r[7]), int(r[8])
    x = sorted(s for (s,) in db.execute("SELECT seconds FROM samples WHERE point_id = ?", (pid,)))
    assert n == len(x) == 15, (n, len(x))
    assert close(q1, quantile(x, .25)) and close(q3, quantile(x, .75)) and close(med, quantile(x, .5)), r
    iqr = q3 - q1
    assert close(wlo, min([v for v in x if v >= q1 - 1.5 * iqr] + [q1])), r
    assert close(whi, max([v for v in x if v <= q3 + 1.5 * iqr] + [q3])), r
    # the chosen point is the fastest of its (kernel, matrix)
    k, m = db.execute("SELECT kernel, matrix FROM points WHERE id = ?", (pid,)).fetchone()
    fastest = db.execute(f"SELECT MIN(time_median_s) FROM points WHERE {ok} AND kernel = ? AND matrix = ?",
                         (k, m)).fetchone()[0]
    t = db.execute("SELECT time_median_s FROM points WHERE id = ?", (pid,)).fetchone()[0]
    assert t == fastest, (pid, t, fastest)
    n_boxes += 1
assert n_boxes == 4, n_boxes

# Stacked bars: the total is the sum of the segments; '?' where the point lacks a value.
for r in rows("breakdown"):
    total, pid = float(r[1]), int(r[2])
    seg = [None if v == "?" else float(v) for v in r[4:]]
    assert close(total, sum(v for v in seg if v is not None)), r
    t = db.execute("SELECT time_median_s FROM points WHERE id = ?", (pid,)).fetchone()[0]
    assert close(seg[1], t), r
    pre = db.execute("SELECT value FROM metrics WHERE point_id = ? AND name = 'preprocess_s'", (pid,)).fetchone()
    assert (seg[0] is None) == (pre is None), r
labels = [r[0] for r in rows("breakdown")]
assert labels == sorted(labels), labels  # grouped by matrix, then kernel

# Heat map: the fastest two-rank point's matrix, cell (i, j) = 100 id + 10 i + j.
pid = db.execute(f"SELECT id FROM points WHERE {ok} AND ranks = 2 ORDER BY time_median_s, id LIMIT 1").fetchone()[0]
cells = {(int(i), int(j)): float(v) for i, j, v in rows("comm")}
assert cells == {(i, j): 100 * pid + 10 * i + j for i in (0, 1) for j in (0, 1)}, (pid, cells)

# Scaling: the best time per (kernel, ranks); efficiency T1 / (2 T2), ideal T1 / p.
t = {(k, p): v for k, p, v in db.execute(
    f"SELECT kernel, ranks, MIN(time_median_s) FROM points WHERE {ok} GROUP BY kernel, ranks")}
kernels = sorted({k for k, _ in t})
blocks = open(f"{figs}/efficiency.dat").read().split("\n\n\n")
assert len(blocks) == len(kernels) == 2, len(blocks)
for k, block in zip(kernels, blocks):
    data = [l.split() for l in block.splitlines() if l and not l.startswith("#")]
    assert [int(d[0]) for d in data] == [1, 2], data
    assert float(data[0][1]) == 1.0 and close(float(data[1][1]), t[(k, 1)] / (2 * t[(k, 2)])), (k, data)
blocks = open(f"{figs}/strong-scaling.dat").read().split("\n\n\n")
for k, block in zip(kernels, blocks):
    data = [l.split() for l in block.splitlines() if l and not l.startswith("#")]
    assert close(float(data[1][1]), t[(k, 2)]) and close(float(data[1][2]), t[(k, 1)] / 2), (k, data)
print("figure data checked against the store")
PY
  # The data files are stable: drawing again gives the same bytes.
  "$RT" plot --db "$db" --out "$WORK/figs2" --config "$HERE/figures.yaml" >/dev/null 2>&1
  for f in "$WORK"/figs/*.dat; do
    cmp -s "$f" "$WORK/figs2/$(basename "$f")" || fail "$(basename "$f") differs when drawn again"
  done
  ;;
errors)
  db="$WORK/f.db"
  make_db "$db"
  bad() { # bad YAML-PLOT-LIST FRAGMENT
    printf 'experiment: {name: regress-tiny}\nplots:\n%s\n' "$1" >"$WORK/bad.yaml"
    expect_exit 3 "$RT" plot --db "$db" --out "$WORK/bad" --config "$WORK/bad.yaml"
    grep -qF -- "$2" <<<"$OUT" || fail "message lacks '$2': $OUT"
  }
  bad "  - {type: bars, series: kernel, baseline: spmm.cpu.ell}" \
      "bad.yaml:3:5: plots[0] (bars-matrix-gflops): baseline: 'spmm.cpu.ell' is not a value of kernel"
  bad "  - {type: bars, series: kernel, baseline: spmm.cpu.ell}" "'spmm.cpu.csr', 'spmm.cpu.tiled'"
  bad "  - {type: heatmap, y: peer_bytes}" "no metric of the family peer_bytes_<i>_<j>"
  bad "  - {type: box, y: efficiency}" "a box plot draws every repetition, so y must be a time"
  bad "  - {type: stacked, stack: [preprocess_s, kernel]}" "'kernel' cannot be stacked"
  bad "  - {type: stacked, stack: [nothing_s]}" "stack[0]: unknown name 'nothing_s'"
  bad "  - {type: scaling, x: matrix}" "a scaling figure needs positive numbers on x"
  # A heat map whose family exists only on points that are not ok is skipped, not an error.
  sql "$db" "INSERT INTO metrics (point_id, name, unit, available, deterministic, value)
             VALUES (1, 'peer_bytes_0_0', 'bytes', 1, 1, 5); UPDATE points SET status = 'wrong' WHERE id = 1"
  printf 'experiment: {name: regress-tiny}\nplots:\n  - {type: heatmap, y: peer_bytes}\n' >"$WORK/skip.yaml"
  expect_exit 0 "$RT" plot --db "$db" --out "$WORK/skip" --config "$WORK/skip.yaml"
  grep -q "skipped heatmap-peer_bytes" <<<"$OUT" || fail "skip not reported: $OUT"
  ;;
*) fail "unknown case '$CASE'" ;;
esac
echo "figures $CASE: ok"
