#!/usr/bin/env python3
"""sptrsv.bar_summary (the numbers): what results/baselines/h200-x4/README.md and the sptrsv page
(docs/families/sptrsv.md, "Issue 32's bar on 4 x H200") say of the 4 x H200 triangular-solve bar
is the data's own: the store results/baselines/h200-x4/sptrsv-scaling.db, counted as
ci/sptrsv-bar.sql counts it (every run of the latest run's revision and config), and the
CHOLMOD thread timings of sptrsv-blas.txt beside it. Each statement is computed from the data and
formatted as the page writes it; a page that says another number fails.

usage: check_bar_notes.py ROOT [--readme=PATH] [--sptrsv=PATH]
(the options put a copy in place of a page, so the test can prove that a wrong number fails)."""
import math
import os
import re
import sqlite3
import sys

root = sys.argv[1]
base = os.path.join(root, "results/baselines/h200-x4")
pages = {"readme": os.path.join(base, "README.md"),
         "sptrsv": os.path.join(root, "docs/families/sptrsv.md")}
for a in sys.argv[2:]:
    key, _, path = a[2:].partition("=")
    if key not in pages:
        sys.exit(f"no page {key!r} (pages: {', '.join(pages)})")
    pages[key] = path
# line breaks and table padding are layout, not statements: compare words
text = {k: " ".join(open(p, encoding="utf-8").read().split()) for k, p in pages.items()}
failures = []


def says(page, statement, why):
    if " ".join(statement.split()) not in text[page]:
        failures.append(f"{pages[page]}: should say '{statement}' ({why})")


def both(statement, why):
    says("readme", statement, why)
    says("sptrsv", statement, why)


db = sqlite3.connect(f"file:{os.path.join(base, 'sptrsv-scaling.db')}?mode=ro&immutable=1", uri=True)
one = lambda sql, *args: db.execute(sql, args).fetchone()[0]

# The runs: clean, of one revision and config, the last complete; the points each measured.
runs = db.execute("SELECT id, git_revision, git_dirty, config_hash, status FROM runs ORDER BY id").fetchall()
rev, cfg = runs[-1][1], runs[-1][3]
if any((r[1], r[2], r[3]) != (rev, 0, cfg) for r in runs) or runs[-1][4] != "complete":
    failures.append(f"the store should hold clean runs of one revision and config, the last complete: {runs}")
says("readme", f"come from a clean tree at {rev[:7]}", "the runs' revision")
says("readme", f"one config (hash {cfg})", "the runs' config")
says("sptrsv", f"on 4 x H200 from the clean tree {rev[:7]}", "the runs' revision")
per_run = db.execute("SELECT run_id, GROUP_CONCAT(DISTINCT matrix), COUNT(*) FROM points GROUP BY run_id "
                     "ORDER BY run_id").fetchall()
statuses = [r[4] for r in runs]
if statuses != ["interrupted", "complete"] or any("," in r[1] for r in per_run):
    failures.append(f"the README describes two runs, one matrix each: {statuses}, {per_run}")
else:
    says("readme", f"Run 1 (`interrupted`: the first call's deadline stopped it) measured {per_run[0][1]} "
         f"whole, {per_run[0][2]} points; run 2 (`complete`) skipped those and measured {per_run[1][1]}'s "
         f"{per_run[1][2]}", "the points of each run")

# The points, as ci/sptrsv-bar.sql counts them.
db.execute("""CREATE TEMP VIEW m AS SELECT p.*, json_extract(p.params, '$.layout') AS layout,
    json_extract(p.params, '$.map') AS map,
    (SELECT COUNT(*) FROM samples s WHERE s.point_id = p.id) AS n,
    (SELECT value FROM metrics WHERE point_id = p.id AND name = 'parts') AS parts,
    (SELECT value FROM metrics WHERE point_id = p.id AND name = 'nnz_l') AS nnz_l,
    (SELECT value FROM metrics WHERE point_id = p.id AND name = 'model_over_measured') AS mom,
    (SELECT value FROM metrics WHERE point_id = p.id AND name = 'critical_path_len') AS path,
    (SELECT value FROM metrics WHERE point_id = p.id AND name = 'critical_path_messages') AS hops,
    COALESCE((SELECT value FROM metrics WHERE point_id = p.id AND name = 'noisy'), 0) AS noisy,
    COALESCE((SELECT value FROM metrics WHERE point_id = p.id AND name = 'aborted'), 0) AS aborted
    FROM points p WHERE p.run_id IN (SELECT r.id FROM runs r, (SELECT git_revision, config_hash FROM runs
                                     ORDER BY id DESC LIMIT 1) l
                     WHERE r.git_revision = l.git_revision AND r.config_hash = l.config_hash)""")
ok = "status = 'ok'"
PERSIST, SUPER, CUSP = "sptrsv.cuda.persistent", "sptrsv.cuda.supernodal", "sptrsv.cuda.cusparse"

# The samples behind every number quoted: all but the aborted points have the same count and met
# their target; the noisy points are exactly the aborted ones.
full = db.execute(f"SELECT MIN(n), MAX(n), MAX(noisy), MAX(ci_rel) FROM m WHERE {ok} AND aborted = 0").fetchone()
if full[0] != full[1] or full[2] != 0:
    failures.append(f"the pages say every point but the aborted ones has one sample count and met its target: {full}")
says("readme", f"fully measured cuSPARSE point has {full[0]} samples and met its 5 % confidence target "
     f"(`ci_rel` at most {100 * full[3]:.1f} %)", "samples and confidence of the quoted points")
says("sptrsv", f"each of {full[0]} samples within its confidence target", "samples of the table's points")
above = one("SELECT COUNT(*) FROM m WHERE status = 'above_roofline'")
if above:
    failures.append(f"{above} point(s) above the roofline: the README says none")

matrices = [r[0] for r in db.execute("SELECT DISTINCT matrix FROM m ORDER BY matrix DESC")]
LAYOUT = {("px1", "subtree"): "P x 1 over subtrees", ("1xp", "subtree"): "1 x P over subtrees",
          ("2d", "subtree"): "2 x 2", ("px1", "cyclic"): "P x 1 block cyclic"}
rows, doc_rows = [], []
strong = {}
for mx in matrices:
    nnz = one("SELECT MAX(nnz_l) FROM m WHERE matrix = ?", mx)
    nnz_s = re.sub(r"e\+0?", "e", f"{nnz:.3g}")
    best = lambda kernel: db.execute(f"SELECT time_median_s, params FROM m WHERE {ok} AND matrix = ? AND kernel = ? "
                                     "ORDER BY time_median_s LIMIT 1", (mx, kernel)).fetchone()
    cs, cs_p = best(CUSP)
    sn, sn_p = best(SUPER)
    b1 = min(cs, sn)
    if sn > cs or '"threads_per_block":1024' not in sn_p:
        failures.append(f"{mx}: the pages call the supernodal solve at 1024 threads the best baseline")
    if not all(f'"{k}":"{v}"' in cs_p for k, v in (("api", "spsv"), ("format", "csr"), ("storage", "lower"),
                                                   ("index", "32"))):
        failures.append(f"{mx}: the best cuSPARSE option set is {cs_p}, not what the pages say")
    n_cs = one(f"SELECT COUNT(*) FROM m WHERE {ok} AND matrix = ? AND kernel = ?", mx, CUSP)
    pbest = {}
    for g in (1, 2, 4):
        pbest[g] = db.execute(f"SELECT time_median_s, layout, map FROM m WHERE {ok} AND matrix = ? AND kernel = ? "
                              "AND parts = ? ORDER BY time_median_s LIMIT 1", (mx, PERSIST, g)).fetchone()
    p1, p2, p4 = (pbest[g][0] for g in (1, 2, 4))
    strict = min(b1, p1)
    met = lambda a, c: "met" if nnz >= 2e8 and a >= 1.5 and c >= 2.0 else "not met"
    strong[mx] = (b1 / p2, b1 / p4, strict / p2, strict / p4, sn / p1, p1 / p4)
    says("readme", f"| {mx} | {nnz_s} | {1e3 * cs:.3f} | {1e3 * sn:.3f} | {1e3 * p1:.3f} | {1e3 * p2:.3f} | "
         f"{1e3 * p4:.3f} | {b1 / p2:.2f}x / {b1 / p4:.2f}x: {met(b1 / p2, b1 / p4)} | {strict / p2:.2f}x / "
         f"{strict / p4:.2f}x: {met(strict / p2, strict / p4)} |", f"{mx}: the README's bar row")
    says("sptrsv", f"| {mx} ({nnz_s}) | cusparseSpSV, CSR, lower, 32-bit indices (best of {n_cs}) | 1 | "
         f"{1e3 * cs:.3f} | {b1 / cs:.2f} | |", f"{mx}: the cuSPARSE row")
    says("sptrsv", f"| | `sptrsv.cuda.supernodal`, 1024 threads | 1 | {1e3 * sn:.3f} | {b1 / sn:.2f} | |",
         f"{mx}: the supernodal row")
    says("sptrsv", f"| | `sptrsv.cuda.persistent` | 1 | {1e3 * p1:.3f} | {b1 / p1:.2f} | 1.00 |",
         f"{mx}: the persistent row on one GPU")
    for g in (2, 4):
        t, lay, mp = pbest[g]
        says("sptrsv", f"| | `sptrsv.cuda.persistent`, {LAYOUT[(lay, mp)]} | {g} | {1e3 * t:.3f} | {b1 / t:.2f} | "
             f"{p1 / t:.2f} |", f"{mx}: the persistent row on {g} GPUs")
s7, s27 = strong["lap3d7-84"], strong["lap3d27-70"]
both_met = all(v[0] >= 1.5 and v[1] >= 2.0 for v in strong.values())
strict_met = any(v[2] >= 1.5 and v[3] >= 2.0 for v in strong.values())
if not both_met or strict_met:
    failures.append("the pages say the bar is met on both matrices and the strict reading on neither")
says("sptrsv", f"met, {s7[0]:.2f}x / {s7[1]:.2f}x on lap3d7-84 and {s27[0]:.2f}x / {s27[1]:.2f}x on lap3d27-70",
     "the bar's ratios")
says("sptrsv", f"{s7[2]:.2f}x / {s7[3]:.2f}x and {s27[2]:.2f}x / {s27[3]:.2f}x, not met", "the strict ratios")
says("readme", f"already {s7[4]:.2f}x (lap3d7-84) and {s27[4]:.2f}x (lap3d27-70) the supernodal solve",
     "the persistent solve on one GPU over the supernodal one")
says("readme", f"gains {s7[5]:.2f}x and {s27[5]:.2f}x on four GPUs", "the persistent solve's own scaling")

# The layouts: the subtree layouts on 4 GPUs against one another; the block-cyclic one the slowest
# at every GPU count, once slower than one GPU; the critical paths.
spread = max(one(f"SELECT MAX(time_median_s) / MIN(time_median_s) FROM m WHERE {ok} AND kernel = ? AND matrix = ? "
                 "AND parts = 4 AND map = 'subtree'", PERSIST, mx) for mx in matrices)
says("sptrsv", f"within {math.ceil(100 * (spread - 1))}% of one another on 4 GPUs", "the subtree layouts' spread")
for mx in matrices:
    for g in (2, 4):
        slowest = db.execute(f"SELECT map FROM m WHERE {ok} AND kernel = ? AND matrix = ? AND parts = ? "
                             "ORDER BY time_median_s DESC LIMIT 1", (PERSIST, mx, g)).fetchone()[0]
        if slowest != "cyclic":
            failures.append(f"{mx} on {g} GPUs: the slowest persistent point is not the block-cyclic one")
worse = db.execute(f"""SELECT matrix, parts, time_median_s FROM m c WHERE {ok} AND kernel = '{PERSIST}'
    AND map = 'cyclic' AND time_median_s > (SELECT MIN(time_median_s) FROM m o WHERE o.{ok} AND o.kernel = c.kernel
    AND o.matrix = c.matrix AND o.parts = 1)""").fetchall()
if len(worse) != 1:
    failures.append(f"the page names one block-cyclic point slower than one GPU: {worse}")
else:
    says("sptrsv", f"({worse[0][0]} on {int(worse[0][1])} GPUs: {1e3 * worse[0][2]:.3f} ms, slower than one GPU)",
         "the block-cyclic point slower than one GPU")
cyc = db.execute(f"SELECT MIN(path), MAX(path), MIN(hops), MAX(hops) FROM m WHERE {ok} AND kernel = ? "
                 "AND map = 'cyclic'", (PERSIST,)).fetchone()
sub = db.execute(f"SELECT MIN(path), MAX(path), MAX(hops) FROM m WHERE {ok} AND kernel = ? AND map = 'subtree' "
                 "AND parts > 1", (PERSIST,)).fetchone()
says("sptrsv", f"its critical path {cyc[0]:.0f}-{cyc[1]:.0f} tasks with {cyc[2]:.0f}-{cyc[3]:.0f} link hops against "
     f"{sub[0]:.0f}-{sub[1]:.0f} tasks and at most {sub[2]:.0f} hops over subtrees on 2 and 4 GPUs",
     "the critical paths of the layouts")
path = {}
for mx in matrices:
    path1 = one(f"SELECT path FROM m WHERE {ok} AND kernel = ? AND matrix = ? AND parts = 1", PERSIST, mx)
    p4 = db.execute(f"SELECT MIN(path), MAX(path) FROM m WHERE {ok} AND kernel = ? AND matrix = ? AND parts = 4 "
                    "AND map = 'subtree'", (PERSIST, mx)).fetchone()
    path[mx] = f"{path1:.0f}", f"{p4[0]:.0f}-{p4[1]:.0f}"
says("sptrsv", f"its critical path shortens from {path['lap3d7-84'][0]} tasks on one GPU to {path['lap3d7-84'][1]} "
     f"on four (lap3d7-84) and from {path['lap3d27-70'][0]} to {path['lap3d27-70'][1]} (lap3d27-70)",
     "the critical path on 1 and 4 GPUs")

# The model: the share within 30%, the points outside.
moms = db.execute(f"SELECT matrix, parts, map, mom FROM m WHERE {ok} AND kernel = ? ORDER BY matrix, parts",
                  (PERSIST,)).fetchall()
inside = sum(1 for r in moms if 0.7 <= r[3] <= 1.3)
outside = [r for r in moms if not 0.7 <= r[3] <= 1.3]
share = 100 * inside / len(moms)
says("readme", f"on {inside} of {len(moms)} persistent points ({share:.0f} %; the bar asks 80 %)", "the model's share")
says("sptrsv", f"on {inside} of {len(moms)} persistent points ({share:.0f}%, bar 80%: "
     f"{'met' if share >= 80 else 'not met'})", "the model's share")
if len(outside) != 2 or any(r[0] != "lap3d27-70" or r[2] != "cyclic" for r in outside):
    failures.append(f"the pages name lap3d27-70's two block-cyclic points as the model's misses: {outside}")
else:
    o2, o4 = sorted(outside, key=lambda r: r[1])
    says("readme", f"lap3d27-70's P x 1 block-cyclic points (model over measured {o2[3]:.2f} on 2 GPUs, "
         f"{o4[3]:.2f} on 4)", "the model's misses")
    says("sptrsv", f"the two outside are lap3d27-70's block-cyclic points ({o2[3]:.2f} and {o4[3]:.2f})",
         "the model's misses")

# The aborted sliced-ELL points: their times against the best CSR point, the noisy points, the
# infeasible option sets.
aborted = db.execute("SELECT COUNT(*), SUM(json_extract(params, '$.format') = 'sell' AND json_extract(params, "
                     "'$.api') = 'spsv' AND n = 1 AND noisy = 1) FROM m WHERE aborted = 1").fetchone()
noisy = one("SELECT COUNT(*) FROM m WHERE noisy = 1")
per_mx = aborted[0] // len(matrices)
if aborted[0] != aborted[1] or noisy != aborted[0]:
    failures.append(f"the pages say the aborted points are the noisy sliced-ELL SpSV ones, one sample each: "
                    f"{aborted}, {noisy} noisy")
says("readme", f"sliced-ELL SpSV ({per_mx} option sets a matrix) stopped after one repetition", "the aborted points")
says("sptrsv", f"sliced-ELL SpSV ({per_mx} option sets a matrix) stopped after one repetition", "the aborted points")
says("readme", f"they are the {noisy} noisy points of the store", "the noisy points")
sec, rat = [], []
for mx in matrices:
    csr = one(f"SELECT MIN(time_median_s) FROM m WHERE {ok} AND kernel = ? AND matrix = ? "
              "AND json_extract(params, '$.format') = 'csr'", CUSP, mx)
    lo, hi = db.execute("SELECT MIN(time_median_s), MAX(time_median_s) FROM m WHERE aborted = 1 AND matrix = ?",
                        (mx,)).fetchone()
    sec.append(f"{lo:.1f}-{hi:.1f} s")
    rat.append(f"{lo / csr:.0f}-{hi / csr:.0f}x")
both(f"{sec[0]} a solve on {matrices[0]} and {sec[1]} on {matrices[1]}, {rat[0]} and {rat[1][:-1]}x the best CSR point",
     "the sliced-ELL solves against the best CSR point")
inf = {one("SELECT COUNT(*) FROM m WHERE status = 'infeasible' AND matrix = ?", mx) for mx in matrices}
if len(inf) != 1:
    failures.append(f"the pages give one count of infeasible option sets a matrix: {inf}")
both(f"{inf.pop()} option sets a matrix are infeasible", "the infeasible option sets")

# The spread points' flops: every point of a matrix records the whole solve's (a spread point is a
# one-rank job to the families, not a rank's row share as in the first measurement).
for mx in matrices:
    fl = {r[0] for r in db.execute(f"SELECT DISTINCT flops FROM m WHERE {ok} AND matrix = ?", (mx,)).fetchall()}
    if len(fl) != 1:
        failures.append(f"{mx}: the README says every point of a matrix records the same flops: {sorted(fl)}")
says("readme", "Every point of a matrix records the same `flops` (2 nnz(L), one right-hand side)",
     "the spread points' flops")

# CHOLMOD: the thread counts of the blas mode, the fastest, and the factors of the bar.
blas = [(int(t), float(s)) for t, s in re.findall(r"OPENBLAS_NUM_THREADS=(\d+) cholmod_factor_s=([0-9.]+)",
                                                   open(os.path.join(base, "sptrsv-blas.txt")).read())]
th = dict(blas)
fastest = min(blas, key=lambda r: r[1])[0]
cores = max(th)
says("readme", f"`OPENBLAS_NUM_THREADS` 1, 8, {fastest} (the cores per GPU) and {cores} (every core)",
     "the blas mode's thread counts")
says("readme", f"{th[1]:.2f}, {th[8]:.2f}, {th[fastest]:.2f} and {th[cores]:.2f} s", "the blas mode's times")
says("sptrsv", f"in {th[1]:.2f} s with one OpenBLAS thread, {th[8]:.2f} s with 8, {th[fastest]:.2f} s with "
     f"{fastest} (the cores per GPU) and {th[cores]:.2f} s with {cores}", "the blas mode's times")
both(f"{th[cores] / th[fastest]:.1f}x slower than {fastest} threads", "every core against the fastest")
if th[cores] <= th[1]:
    failures.append("the README says every core is slower than one thread")
says("readme", f"with the fastest count, {fastest},", "the bar's thread count")
fac = dict(db.execute("SELECT p.matrix, MAX(m.value) FROM points p JOIN metrics m ON m.point_id = p.id "
                      "AND m.name = 'cholmod_factor_s' GROUP BY p.matrix").fetchall())
both(f"factorised lap3d7-84 in {fac['lap3d7-84']:.1f} s and lap3d27-70 in {fac['lap3d27-70']:.1f} s",
     "CHOLMOD's times in the store")
cached = db.execute("SELECT p.matrix, COUNT(DISTINCT p.run_id), SUM(m.value = 0), SUM(m.value = 1) FROM points p "
                    "JOIN metrics m ON m.point_id = p.id AND m.name = 'factor_cached' GROUP BY p.matrix").fetchall()
counts = {(r[1], r[2], r[3]) for r in cached}
if len(counts) != 1 or next(iter(counts))[0] != 1:
    failures.append(f"the README says each call factorised its one matrix, the same counts each: {cached}")
else:
    _, fresh, read = counts.pop()
    says("readme", f"the first {fresh} points of each matrix record `factor_cached = 0`, the other {read} read the "
         "factor from the cache", "the factor cache's use")

for f in failures:
    print("FAIL", f)
print(f"sptrsv bar notes: {len(failures)} wrong")
sys.exit(1 if failures else 0)
