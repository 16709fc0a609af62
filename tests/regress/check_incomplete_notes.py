#!/usr/bin/env python3
"""results.incomplete_notes: the numbers that results/incomplete/README.md, the Hopper page
(docs/families/spmm-hopper.md) and the sparse-DNN note of results/figures/README.md state about
the partial GPU runs are the data's own: the sparse-DNN
store (results/incomplete/h100/spdnn-inference.db), the Hopper bar's export
(results/incomplete/h100-x2/hopper-bar.csv) and the racecheck log beside it. (The 4 x H200
triangular-solve numbers are checked by sptrsv.bar_summary against the complete store in
results/baselines/h200-x4/.)

usage: check_incomplete_notes.py ROOT [--readme=PATH] [--hopper=PATH] [--figures=PATH]
(the page options put a copy in place of a page, so a test can prove a wrong number fails)."""
import csv
import json
import os
import re
import sqlite3
import sys

root = sys.argv[1]
pages = {"readme": os.path.join(root, "results/incomplete/README.md"),
         "hopper": os.path.join(root, "docs/families/spmm-hopper.md"),
         "figures": os.path.join(root, "results/figures/README.md")}
for a in sys.argv[2:]:
    key, _, path = a[2:].partition("=")
    pages[key] = path
text = {k: " ".join(open(p).read().split()) for k, p in pages.items()}
failures = []


def says(page, statement, why):
    if " ".join(statement.split()) not in text[page]:
        failures.append(f"{pages[page]}: should say '{statement}' ({why})")


# The sparse-DNN store: dnn-1024's best fused median, the best cuSPARSE point per layout, their
# samples and the speedups.
db = sqlite3.connect(os.path.join(root, "results/incomplete/h100/spdnn-inference.db"))
ok = "status = 'ok' AND matrix = 'dnn-1024'"
fused = db.execute(f"SELECT MIN(time_median_s) FROM points WHERE {ok} "
                   "AND kernel = 'spdnn.cuda.fused'").fetchone()[0]
best = {}
for params, t, n in db.execute(
        f"SELECT params, time_median_s, (SELECT COUNT(*) FROM samples s WHERE s.point_id = p.id) "
        f"FROM points p WHERE {ok} AND kernel = 'spdnn.cuda.cusparse'"):
    p = json.loads(params)
    if p["layout"] not in best or t < best[p["layout"]][0]:
        best[p["layout"]] = (t, p["alg"].upper(), n)
says("readme", f"best median is {1e3 * fused:.1f} ms", "dnn-1024's best fused point")
row, col = best["row"], best["col"]
says("readme", f"({row[1]}, {1e3 * row[0]:.1f} ms: {row[0] / fused:.2f}x)",
     "the best row-major cuSPARSE point")
says("readme", f"({col[1]}, {1e3 * col[0]:.1f} ms: {col[0] / fused:.2f}x)",
     "the best column-major cuSPARSE point")
says("figures", f"found the fused layer's best at {1e3 * fused:.1f} ms again and the best row-major "
     f"cuSPARSE + ReLU at {1e3 * row[0]:.1f} ms ({row[1]}): against the tuned baseline the fused "
     f"layer is {row[0] / fused:.2f}x on 1024 neurons", "the figures README's note on the tuned baseline")
says("figures", f"the column-major side ({1e3 * col[0]:.1f} ms, {col[1]}) gives {col[0] / fused:.2f}x",
     "the figures README's note on the column-major side")
if row[2] != col[2]:
    failures.append(f"the best points have {row[2]} and {col[2]} samples: the README says one count")
says("readme", f"every one of them {row[2]} samples", "the samples of the quoted points")
run = db.execute("SELECT git_revision, git_dirty, status FROM runs").fetchall()
if len(run) != 1 or run[0][1] != 0:
    failures.append(f"the sparse-DNN store should hold one clean run, holds {run}")
else:
    says("readme", f"| {run[0][0][:7]} (clean) |", "the store's revision")

# The Hopper export: row-major K = 32, the new kernel's best against tiled_pipe's, and the
# points the shared-memory rule refused.
rows = list(csv.DictReader(open(os.path.join(root, "results/incomplete/h100-x2/hopper-bar.csv"))))
def best_ms(matrix, kernel, layout, k):
    ts = [float(r["time_median_s"]) for r in rows
          if r["status"] == "ok" and r["matrix"] == matrix and r["kernel"] == kernel
          and json.loads(r["problem"])["layout"] == layout and json.loads(r["problem"])["K"] == k]
    return 1e3 * min(ts)
for m in ("banded-1m", "stencil7-96"):
    tma, pipe = best_ms(m, "spmm.cuda.tiled_tma", "row", 32), best_ms(m, "spmm.cuda.tiled_pipe", "row", 32)
    if not 1.9 <= pipe / tma <= 2.2:
        failures.append(f"{m}: tiled_tma {tma:.3f} ms, tiled_pipe {pipe:.3f} ms: not '2x faster'")
tma_rows = [r for r in rows if r["kernel"] == "spmm.cuda.tiled_tma"]
def count(pred):
    return sum(1 for r in tma_rows if pred(r))
col = count(lambda r: r["status"] == "infeasible" and r["reason"].startswith("layout=col"))
smem = count(lambda r: r["status"] == "infeasible" and "shared memory" in r["reason"])
spill = count(lambda r: r["status"] == "infeasible" and r["reason"].startswith("register spills"))
ran = count(lambda r: r["status"] == "ok")
if col + smem + spill + ran != len(tma_rows):
    failures.append("the new kernel's points have statuses the page does not count")
says("hopper", f"Of the new kernel's {len(tma_rows)} points in that run, {col} were column-major",
     "the export's column-major refusals")
says("hopper", f"{smem} were refused by the shared-memory rule", "the export's refusals")
says("hopper", f"{spill} by register spills, and {ran} ran", "the export's spills and measured points")
log = open(os.path.join(root, "results/incomplete/h100-x2/gpu-sanitize-tma-racecheck.log")).read()
hazards = re.search(r"RACECHECK SUMMARY: \d+ hazards displayed \((\d+) errors", log).group(1)
says("hopper", f"racecheck reported {hazards} hazards", "the racecheck log's summary")
says("readme", f"{hazards} hazards, each between", "the racecheck log's summary")
bw = best_ms("banded-1m-bw64", "spmm.cuda.tiled_tma", "row", 32) > best_ms(
    "banded-1m-bw64", "spmm.cuda.tiled_pipe", "row", 32)
if not bw:
    failures.append("banded-1m-bw64: the page says the new kernel is slower there")

# The 4 x H200 right-hand-side run (partial): the persistent solve with 8 right-hand sides on 1 and
# 4 GPUs against the supernodal solve, and the backward solve with one.
rhs = sqlite3.connect(os.path.join(root, "results/incomplete/h200-x4/sptrsv-rhs.db"))


def rhs_best(kernel, nrhs, solve, parts=None):
    sql = ("SELECT MIN(time_median_s) FROM points p WHERE status = 'ok' AND kernel = ? AND "
           "json_extract(problem, '$.nrhs') = ? AND json_extract(problem, '$.solve') = ?")
    args = [kernel, nrhs, solve]
    if parts is not None:
        sql += " AND json_extract(params, '$.parts') = ?"
        args.append(parts)
    return rhs.execute(sql, args).fetchone()[0]


P, S = "sptrsv.cuda.persistent", "sptrsv.cuda.supernodal"
p1, p4, sn = rhs_best(P, 8, "forward", 1), rhs_best(P, 8, "forward", 4), rhs_best(S, 8, "forward")
says("readme", f"with 8 right-hand sides the persistent solve takes {1e3 * p1:.3f} ms on one GPU and {1e3 * p4:.3f} ms "
     f"on four, against {1e3 * sn:.3f} ms for the supernodal solve (1024 threads): {sn / p4:.2f}x over the supernodal "
     f"solve and {p1 / p4:.2f}x over its own one-GPU time", "the 8 right-hand sides")
b1, b4 = rhs_best(P, 1, "backward", 1), rhs_best(P, 1, "backward", 4)
says("readme", f"one right-hand side takes {1e3 * b1:.3f} ms on one GPU and {1e3 * b4:.3f} ms on four ({b1 / b4:.2f}x)",
     "the backward solve")
n_bad = rhs.execute("SELECT COUNT(*) FROM points WHERE kernel = ? AND json_extract(problem, '$.solve') = 'backward' "
                    "AND status != 'infeasible'", (S,)).fetchone()[0]
low = rhs.execute("SELECT MIN((SELECT COUNT(*) FROM samples s WHERE s.point_id = p.id)), MAX(ci_rel) FROM points p "
                  "WHERE status = 'ok'").fetchone()
if n_bad or low[0] < 6 or low[1] > 0.05:
    failures.append(f"the README says the supernodal backward points are infeasible ({n_bad} are not) and every "
                    f"measured point has 6 samples within 5 % ({low})")

# The 4 x H200 nrhs-32 run (partial): the persistent solve on 1 and 4 GPUs against the supernodal
# solve, the cuSPARSE SpSV points' range, set-up and count.
rhs = sqlite3.connect(os.path.join(root, "results/incomplete/h200-x4/sptrsv-rhs-nrhs32.db"))
p1, p4, sn = rhs_best(P, 32, "forward", 1), rhs_best(P, 32, "forward", 4), rhs_best(S, 32, "forward")
says("readme", f"with 32 right-hand sides the forward persistent solve takes {1e3 * p1:.3f} ms on one GPU and "
     f"{1e3 * p4:.3f} ms on four, against {1e3 * sn:.3f} ms for the supernodal solve (1024 threads): {sn / p4:.2f}x "
     f"over the supernodal solve and {p1 / p4:.2f}x over its own one-GPU time", "the 32 right-hand sides")
lo, hi, s0, s1, n_ok = rhs.execute(
    "SELECT MIN(time_median_s), MAX(time_median_s), MIN(setup_s), MAX(setup_s), COUNT(*) FROM points "
    "WHERE kernel = 'sptrsv.cuda.cusparse' AND status = 'ok'").fetchone()
n_inf = rhs.execute("SELECT COUNT(*) FROM points WHERE kernel = 'sptrsv.cuda.cusparse' AND status = 'infeasible'").fetchone()[0]
says("readme", f"{1e3 * lo:.3f} ms at best", "the best SpSV point")
says("readme", f"up to {1e3 * hi:.3f} ms, after {s0:.1f}-{s1:.1f} s of set-up", "the SpSV range")
says("readme", f"{n_ok + n_inf} of the 48 cuSPARSE option sets ({n_ok} measured, {n_inf} infeasible", "the SpSV count")
if hi > 10 * lo:
    failures.append("the README says every SpSV point is within 10x of the best")

# The race control's result (results/baselines/h200-x4/tma-race-summary.txt) as the Hopper page
# tells it: per mode, verified or not and racecheck's hazard count.
race = {}
for line in open(os.path.join(root, "results/baselines/h200-x4/tma-race-summary.txt")):
    m = re.match(r"([a-z_()-]+) verified=(yes|no) (racecheck_hazards|synccheck_errors)=(\d+)", line)
    if m:
        race[(m.group(1), m.group(3))] = (m.group(2), int(m.group(4)))
hz = lambda mode: race[(mode, "racecheck_hazards")]
if hz("correct")[0] != "yes" or hz("broken")[0] != "no" or hz("correct")[1] != hz("broken")[1]:
    failures.append(f"the Hopper page says correct verifies, broken does not, with the same hazard count: {race}")
says("hopper", f"`correct` verified and racecheck reported {hz('correct')[1]} hazard; `broken` did not verify and "
     f"racecheck reported {hz('broken')[1]} hazard too; `correct` with each buffer used once, {hz('correct-once')[1]}; "
     f"`generic_mbar` verified with {hz('generic_mbar')[1]} hazards; `generic_sync` verified with "
     f"{hz('generic_sync')[1]}; synccheck found {race[('correct(synccheck)', 'synccheck_errors')][1]} errors on "
     "`correct`", "the race control's result")

for f in failures:
    print("FAIL", f)
print(f"incomplete notes: {len(failures)} wrong")
sys.exit(1 if failures else 0)
