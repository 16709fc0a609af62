#!/usr/bin/env python3
"""figures.readme (issue 13, item 8; issue 33, items 4 and 5): the numbers that
results/figures/README.md states in its hand-written sections, and the store-derived numbers of
the documentation pages under docs/, recomputed from the committed stores in results/baselines/
(and, for the Nsight Compute figures, from the committed profiles in results/profiles/h100/;
for the tuning comparison, from results/tuning/).

Each check computes a value (or a table row) from a store, formats it as the page writes it (the
rounding is the page's), and requires that exact text in the page. A statement whose number
disagrees with its store, or a store replaced without updating the page, fails here and prints the
text the store supports. The section printed by ci/new-families-tables.py is checked by running
that script. Published figures (the papers' numbers), configuration constants and explanations
are not store values and are not checked. Headline ratios follow ci/store_rules.py: they come from
points with at least 5 samples that met their confidence target, and where a store has none the
page must say so ("not enough samples").

    check_figures_readme.py REPOSITORY_ROOT [PAGE] [--page NAME=PATH ...]

PAGE (default: the repository's results/figures/README.md) lets the test check a changed copy;
--page replaces another checked page (NAME: one of PAGES' keys) by a changed copy.
"""
import collections
import glob
import json
import math
import os
import re
import subprocess
import sys

ARGS = [a for a in sys.argv[1:] if not a.startswith("--page")]
ROOT = ARGS[0] if ARGS else "."
sys.path.insert(0, f"{ROOT}/ci")
import store_rules  # noqa: E402
from store_rules import NOT_ENOUGH  # noqa: E402

# The checked pages. Line breaks and indentation are a page's layout, not its statements: compare
# words.
PAGES = {"figures": f"{ROOT}/results/figures/README.md",
         "hopper": f"{ROOT}/docs/families/spmm-hopper.md",
         "architecture": f"{ROOT}/docs/architecture.md",
         "tuning": f"{ROOT}/docs/guides/tuning.md",
         "eigen": f"{ROOT}/docs/families/eigen.md",
         "tuning-results": f"{ROOT}/results/tuning/README.md"}
if len(ARGS) > 1:
    PAGES["figures"] = ARGS[1]
for a in sys.argv[1:]:
    if a.startswith("--page"):
        name, path = a.split("=", 1)[1].split("=", 1)
        if name not in PAGES:
            sys.exit(f"--page: no page {name!r} (pages: {', '.join(PAGES)})")
        PAGES[name] = path
TEXT = {name: " ".join(open(path, encoding="utf-8").read().split()) for name, path in PAGES.items()}
PAGE = TEXT["figures"]
BASE = f"{ROOT}/results/baselines"
failures = []
checked = 0
# Read-only connections with ci/store_rules.py's `pts` view (sample counts, noisy, sound).
STORES = store_rules.Stores(BASE)
q = STORES.rows


def one(path, sql, *args):
    return q(path, sql, *args)[0][0]


def need(text, why, page="figures"):
    """The page must contain text (computed from a store)."""
    global checked
    checked += 1
    text = " ".join(text.split())
    if text not in TEXT[page]:
        failures.append(f"{why}: the stores give\n    {text!r}\n  which {PAGES[page]} does not say")


def forbid(text, why, page="figures"):
    """The page must not say text (a statement the stores contradict)."""
    global checked
    checked += 1
    if " ".join(text.split()) in TEXT[page]:
        failures.append(f"{why}: {PAGES[page]} still says {text!r}")


def sound(path, pid):
    """Whether a point may feed a headline (ci/store_rules.py)."""
    return bool(one(path, "SELECT sound FROM pts WHERE id = ?", pid))


def noted(path, pid, text):
    """text, followed by what the point lacks for a headline, as the pages write it."""
    n, noisy = q(path, "SELECT n_samples, noisy FROM pts WHERE id = ?", pid)[0]
    return text + store_rules.note(n, noisy)


def all_sound(path, why):
    """Every verified point of the store may feed a headline (the hand-written statements about it
    then need no marks)."""
    global checked
    checked += 1
    bad = one(path, "SELECT COUNT(*) FROM pts WHERE status = 'ok' AND NOT sound")
    if bad:
        failures.append(f"{why}: {bad} verified point(s) of {path} have fewer than "
                        f"{store_rules.MIN_SAMPLES} samples or are noisy; the page states their ratios unmarked")


def rng(lo, hi, fmt="{:.2f}", sep="-"):
    a, b = fmt.format(lo), fmt.format(hi)
    return a if a == b else f"{a}{sep}{b}"


def best(path, where, group, value="MAX(gflops)"):
    return {tuple(r[:-1]): r[-1] for r in q(
        path, f"SELECT {group}, {value} FROM points WHERE status = 'ok' {where} GROUP BY {group}")}


def best_ids(path, group, where=""):
    """{group values: id} of the fastest verified point per group."""
    return {tuple(r[:-1]): r[-1] for r in q(path, f"""SELECT {group}, id FROM (SELECT *, ROW_NUMBER() OVER
        (PARTITION BY {group} ORDER BY time_median_s) rn FROM pts WHERE status = 'ok' {where}) WHERE rn = 1""")}


def require_sound(path, ids, why):
    """The page states these points' numbers (or their ratios) unmarked: each must be sound."""
    global checked
    checked += 1
    bad = [pid for pid in ids if not sound(path, pid)]
    if bad:
        failures.append(f"{why}: point(s) {bad} of {path} have fewer than {store_rules.MIN_SAMPLES} samples or "
                        "are noisy, yet the page states them unmarked")


def metric(path, name, where=""):
    return [r[0] for r in q(path, f"""SELECT m.value FROM metrics m JOIN points p ON p.id = m.point_id
        WHERE p.status = 'ok' AND m.name = ? {where}""", name)]


# --- Where they were measured: repetitions per store ---------------------------------------------
def reps(store):
    return q(f"h100/{store}.db", """SELECT MIN(c), MAX(c) FROM (SELECT COUNT(*) c FROM samples s
        JOIN points p ON p.id = s.point_id WHERE p.status = 'ok' GROUP BY s.point_id)""")[0]


for store in ["register-tiling", "tiled-block-size", "tiled-nnz-unroll", "tiled-spmm-vs-cusparse"]:
    lo, _ = reps(store)
    need(f"at least {lo} in", f"{store}: fewest repetitions")
    assert lo == 10, f"{store}: the page says at least 10 repetitions, the store has {lo}"
lo, hi = reps("gpu-counters")
need(f"{lo} to {hi} in\n`gpu-counters`", "gpu-counters: repetitions")
lo, hi = reps("spdnn-inference")
need(f"{lo} to {hi} in `spdnn-inference`", "spdnn-inference: repetitions")

# --- Provenance of the stores: every store's runs ---------------------------------------------------
for path in sorted(glob.glob(f"{BASE}/*/*.db")):
    rel = path[len(BASE) + 1:]
    runs = q(rel, "SELECT git_revision, git_dirty, status FROM runs ORDER BY id")
    need(f"| `{rel}` | " + "; ".join(f"{rev[:7]}{' (dirty)' if dirty else ''} {status}"
                                     for rev, dirty, status in runs) + " |", f"provenance: {rel}")

# --- Fig. 2(a) -------------------------------------------------------------------------------------
S = "h100/tiled-spmm-vs-cusparse.db"
runs = q(S, "SELECT r.status, COUNT(p.id) FROM runs r LEFT JOIN points p ON p.run_id = r.id "
            "GROUP BY r.id ORDER BY r.id")
total = one(S, "SELECT COUNT(*) FROM points")
assert len(runs) == 5, "Fig. 2(a): the page describes five runs"
assert [r[0] for r in runs] == ["interrupted"] * 4 + ["complete"], "Fig. 2(a): run states"
rev = one(S, "SELECT DISTINCT git_revision FROM runs")[:7]
need(f"{total} points in five runs, all from the clean revision {rev}: the first four, each stopped "
     f"at a device call's limit and left 'interrupted' in the store, measured {runs[0][1]}, "
     f"{runs[1][1]}, {runs[2][1]} and {runs[3][1]} points, each resuming where the last stopped; the "
     f"fifth measured the last {runs[4][1]} and is 'complete'", "Fig. 2(a): points and runs")
st = dict(q(S, "SELECT status, COUNT(*) FROM points GROUP BY status"))
inf = dict(q(S, "SELECT kernel, COUNT(*) FROM points WHERE status = 'infeasible' GROUP BY kernel"))
need(f"{st['ok']} verified and timed, {st['infeasible']} infeasible ({inf['spmm.cuda.tiled']} Tiled: "
     f"register spills; {inf['spmm.cuda.cusparse']} cuSPARSE:", "Fig. 2(a): statuses")
why = dict(q(S, """SELECT CASE WHEN reason LIKE 'constraint %' THEN 'constraint'
        WHEN reason LIKE 'register spills%' THEN 'spill' ELSE 'rule' END, COUNT(*) FROM points
        WHERE status = 'infeasible' AND kernel = 'spmm.cuda.tiled_pipe' GROUP BY 1"""))
need(f"{inf['spmm.cuda.tiled_pipe']} pipelined: {why['constraint']} combinations dropped by the config's "
     f"constraints, {why['rule']} refused by the kernel's rules", "Fig. 2(a): pipelined infeasible points")
need(f"{why['spill']} spill), {st['wrong']} wrong", "Fig. 2(a): pipelined spills")
worst = one(S, "SELECT MAX(rel_error) FROM points WHERE status = 'wrong'")
need(f"{st['wrong']} wrong (cuSPARSE on banded-1m, relative error "
     f"{worst:.1e}".replace("e-0", "e-"),
     "Fig. 2(a): wrong points")
g = best(S, "", "matrix, json_extract(problem, '$.K'), kernel")
require_sound(S, best_ids(S, "matrix, json_extract(problem, '$.K'), kernel").values(), "Fig. 2(a) table")
T, C, CSR, ELL = "spmm.cuda.tiled", "spmm.cuda.cusparse", "spmm.cuda.csr", "spmm.cuda.ell"
P = "spmm.cuda.tiled_pipe"
for m in ["xct-256", "xct-256-hilbert", "xct-512-hilbert", "banded-1m", "rmat-20"]:
    for k in [32, 128]:
        t, c, pp = g[(m, k, T)], g[(m, k, C)], g[(m, k, P)]
        need(f"| {k} | {t:.0f} | {pp:.0f} | {c:.0f} | **{t / c:.2f}** | **{pp / c:.2f}** | "
             f"{g[(m, k, CSR)]:.0f} | {g[(m, k, ELL)]:.0f} |", f"Fig. 2(a) table: {m}, K = {k}")
ratio = lambda m, a, b: [g[(m, k, a)] / g[(m, k, b)] for k in (32, 128)]
r = ratio("xct-256", C, T)
need(f"cuSPARSE is {rng(min(r), max(r), '{:.1f}')}x faster than Tiled SpMM on the naturally "
     "ordered XCT matrix", "Fig. 2(a): cuSPARSE over Tiled, XCT")
r = ratio("xct-256-hilbert", C, T)
need(f"\n{min(r):.2f}-{max(r):.1f}x faster on the Hilbert-ordered one", "Fig. 2(a): Hilbert")
RICH = ("xct-256-hilbert", "xct-512-hilbert", "banded-1m")
loc = [g[(m, k, T)] / g[(m, k, C)] for m in RICH for k in (32, 128)]
need(f"is **{math.prod(loc) ** (1 / len(loc)):.2f}**, short of", "Fig. 2(a): geometric mean")
loc = [g[(m, k, P)] / g[(m, k, C)] for m in RICH for k in (32, 128)]
need(f"the pipelined kernel's best points raise it to **{math.prod(loc) ** (1 / len(loc)):.2f}**, "
     f"and none of them is below {min(loc):.2f}x", "Fig. 2(a): geometric mean, pipelined")
assert all(g[(m, k, P)] >= g[(m, k, T)] for m in RICH for k in (32, 128)), \
    "Fig. 2(a): the page calls the pipelined points the bar's best Tiled points"
bar = lambda m: f"{g[(m, 32, P)] / g[(m, 32, C)]:.2f}x and {g[(m, 128, P)] / g[(m, 128, C)]:.2f}x"
need(f"the best Tiled point is {bar('xct-256-hilbert')} the best cuSPARSE on xct-256-hilbert, "
     f"{bar('xct-512-hilbert')} on xct-512-hilbert and {bar('banded-1m')} on banded-1m (K = 32, 128): a "
     f"geometric mean of **{math.prod(loc) ** (1 / len(loc)):.2f}** over the locality-rich matrices, "
     f"lowest {min(loc):.2f}", "Hopper summary: bar ratios")
assert math.prod(loc) ** (1 / len(loc)) < 2.0 and min(loc) >= 1.2, \
    "Hopper summary: the page says the lowest-ratio part is met and the geometric mean is not"
XCT = ("xct-256", "xct-256-hilbert", "xct-512-hilbert")
r = [v for m in XCT for v in ratio(m, T, CSR)]
need(f"on the three XCT matrices, Tiled beats our CSR kernel by {rng(min(r), max(r), '{:.1f}')}x",
     "Fig. 2(a): over CSR (issue 33: the range left out xct-512-hilbert)")
r = [v for m in XCT for v in ratio(m, T, ELL)]
need(f"our ELL kernel by {rng(min(r), max(r), '{:.1f}')}x", "Fig. 2(a): over ELL")
r = [g[("xct-256-hilbert", k, T)] / g[("xct-256", k, T)] for k in (32, 128)]
need(f"lifts Tiled by {rng(min(r), max(r), '{:.1f}')}x", "Fig. 2(a): Hilbert lift")
r, rp = ratio("banded-1m", T, C), ratio("banded-1m", P, C)
need(f"({r[0]:.2f}x at K = 32, {r[1]:.2f}x at K = 128; the pipelined kernel {rp[0]:.2f}x and "
     f"{rp[1]:.2f}x)", "Fig. 2(a): banded")
r = [g[("xct-256-hilbert", k, P)] / g[("xct-256", k, P)] for k in (32, 128)]
need(f"(the pipelined kernel by {rng(min(r), max(r), '{:.1f}')}x)", "Fig. 2(a): Hilbert lift, pipelined")
r = ratio("xct-512-hilbert", P, C)
need(f"passes it by {rng(min(r), max(r))}x with the\npipelined one", "Fig. 2(a): xct-512-hilbert")
r = ratio("xct-256-hilbert", P, C)
need(f"passes it on xct-256-hilbert too ({rng(min(r), max(r))}x)", "Fig. 2(a): xct-256-hilbert")
assert max(ratio("xct-256", P, C) + ratio("rmat-20", P, C)) < 1, \
    "Fig. 2(a): the page says the pipelined kernel does not pass cuSPARSE on xct-256 or rmat-20"
lay = {r[0]: r[1] for r in q(S, """SELECT json_extract(problem, '$.layout'), MAX(gflops) FROM points
        WHERE status = 'ok' AND kernel = 'spmm.cuda.tiled_pipe' AND json_extract(params, '$.warp_rows') = 0
        AND matrix = 'banded-1m' AND json_extract(problem, '$.K') = 32 GROUP BY 1""")}
need(f"on banded-1m ({lay['col']:.0f} GFLOP/s against {lay['row']:.0f} row-major at K = 32 in the paper "
     "config's store)", "Hopper summary: banded layouts")
for m, k in q(S, "SELECT DISTINCT matrix, json_extract(problem, '$.K') FROM points"):
    top = q(S, f"""SELECT json_extract(params, '$.tile_interleave'), json_extract(params, '$.nnz_order'),
            json_extract(params, '$.warp_rows') FROM points WHERE status = 'ok' AND kernel LIKE 'spmm.cuda.tiled%'
            AND matrix = '{m}' AND json_extract(problem, '$.K') = {k} ORDER BY gflops DESC LIMIT 1""")[0]
    want = (0, "columns", 8) if (m, k) == ("rmat-20", 128) else (1, "banks", 0)
    assert top == want, f"Fig. 2(a): the page names the best Tiled shape of {m}, K = {k}; the store has {top}"
U = "h100/tiled-nnz-unroll.db"
all_sound(U, "Fig. 2(a): nnz_unroll")
u = best(U, "AND matrix = 'xct-256-hilbert' AND kernel = 'spmm.cuda.tiled'", "problem, json_extract(params, '$.nnz_unroll')")
r = [u[(pr, 8)] / u[(pr, 1)] for pr, n in u if n == 1]
assert all(max((v, n) for (pp, n), v in u.items() if pp == pr)[1] == 8 for pr, _ in u), \
    "Fig. 2(a): the page says eight loads ahead were best"
for page in ("figures", "architecture"):
    need(f"was worth {rng(min(r), max(r))}x on the Hilbert-ordered XCT matrix", "nnz_unroll's worth "
         "(issue 33: '1.5x' was the best over one store-wide pair)", page)
    forbid("was worth 1.5x on XCT", "nnz_unroll's worth", page)

# Per layout (issue 33, item 2): row against row, column against column.
lay = {}
for m, k, lo, kern, gf, pid in q(S, """SELECT matrix, json_extract(problem, '$.K'), json_extract(problem, '$.layout'),
        kernel, gflops, id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY matrix, problem, kernel
        ORDER BY time_median_s) rn FROM pts WHERE status = 'ok') WHERE rn = 1"""):
    lay[(m, k, lo, kern)] = (gf, pid)
per = lambda lo, kern: [lay[(m, k, lo, kern)][0] / lay[(m, k, lo, C)][0] for m in RICH for k in (32, 128)]
used = [lay[(m, k, lo, kk)][1] for m in RICH for k in (32, 128) for lo in ("row", "col") for kk in (T, P, C)]
assert all(sound(S, pid) for pid in used), "Fig. 2(a): a per-layout ratio of the page uses a point that is not sound"
rp, rl, cp, cl = per("row", P), per("row", T), per("col", P), per("col", T)
csc = [lay[(m, k, "col", C)] for m in RICH for k in (32, 128)]
algs = {json.loads(one(S, "SELECT params FROM points WHERE id = ?", pid))["alg"] for _, pid in csc}
assert algs == {"coo_alg3"}, f"Fig. 2(a): the page names COO_ALG3 as column-major cuSPARSE's best: {algs}"
geo = lambda v: math.prod(v) ** (1 / len(v))
need(f"row-major Tiled points reach {rng(min(rp), max(rp))}x with the pipelined kernel on the locality-rich "
     f"matrices (geometric mean {geo(rp):.2f}) and {rng(min(rl), max(rl))}x with Listing 1's; against "
     f"column-major cuSPARSE (COO_ALG3 at best, {min(c for c, _ in csc):.0f}-{max(c for c, _ in csc):.0f} GFLOP/s "
     f"there), column-major Tiled points reach {rng(min(cp), max(cp))}x (geometric mean {geo(cp):.2f}) and "
     f"{rng(min(cl), max(cl))}x", "Fig. 2(a): per layout")

# --- Bank-ordered steps (tiled-bank-order.db) ----------------------------------------------------
BO = "h100/tiled-bank-order.db"
all_sound(BO, "the hand-written statements about h100/tiled-bank-order.db")
pairs = {}
for m, k, shape, o, g in q(BO, """SELECT matrix, json_extract(problem, '$.K'), json_remove(params, '$.nnz_order'),
        json_extract(params, '$.nnz_order'), gflops FROM points WHERE status = 'ok'
        AND kernel = 'spmm.cuda.tiled_pipe' AND json_extract(problem, '$.layout') = 'col'"""):
    pairs.setdefault((m, k, shape), {})[o] = g
lift = {}
for (m, k, shape), d in pairs.items():
    if "columns" in d and "banks" in d:
        lift.setdefault("xct" if m.startswith("xct") else m, []).append(d["banks"] / d["columns"])
need(f"the column-major pipelined kernel {rng(min(lift['xct']), max(lift['xct']), '{:.2f}')}x on the XCT",
     "bank order: XCT lift")
need(f"banded-1m ({rng(min(lift['banded-1m']), max(lift['banded-1m']), '{:.2f}')}x)", "bank order: banded")
bar = {}
for m, k in q(BO, "SELECT DISTINCT matrix, json_extract(problem, '$.K') FROM points"):
    cs = q(BO, f"""SELECT MAX(gflops) FROM points WHERE status = 'ok' AND kernel = 'spmm.cuda.cusparse'
           AND matrix = '{m}' AND json_extract(problem, '$.K') = {k}""")[0][0]
    tp, lay = q(BO, f"""SELECT gflops, json_extract(problem, '$.layout') FROM points WHERE status = 'ok'
           AND kernel LIKE 'spmm.cuda.tiled%' AND matrix = '{m}' AND json_extract(problem, '$.K') = {k}
           ORDER BY gflops DESC LIMIT 1""")[0]
    bar[(m, k)] = tp / cs
    assert lay == "col", f"bank order: the page says column-major is best everywhere ({m}, K = {k})"
b = lambda m: f"{bar[(m, 32)]:.2f}x and {bar[(m, 128)]:.2f}x"
need(f"bar's ratios are {b('xct-256-hilbert')} on xct-256-hilbert, {b('xct-512-hilbert')} on "
     f"xct-512-hilbert, {bar[('banded-1m', 32)]:.2f}x\n  and {bar[('banded-1m', 128)]:.2f}x on banded-1m",
     "bank order: bar ratios")
need(f"a geometric mean of **{math.prod(bar.values()) ** (1 / len(bar)):.2f}**, lowest "
     f"{min(bar.values()):.2f}, so the bar is still not met", "bank order: geometric mean")
assert math.prod(bar.values()) ** (1 / len(bar)) < 2.0 or min(bar.values()) < 1.2

# --- XOR-swizzled row-major stages (tiled-swizzle.db) ---------------------------------------------
SW = "h100/tiled-swizzle.db"
all_sound(SW, "the hand-written statements about h100/tiled-swizzle.db")
kinds = {}
for m, k, lay, o, g in q(SW, """SELECT matrix, json_extract(problem, '$.K'), json_extract(problem, '$.layout'),
        json_extract(params, '$.nnz_order'), MAX(gflops) FROM points WHERE status = 'ok'
        AND kernel = 'spmm.cuda.tiled_pipe' GROUP BY 1, 2, 3, 4"""):
    kinds[(m, k, lay, o)] = g
xk = [(m, k) for m, k, _, _ in kinds if m.startswith("xct")]
r = [kinds[(m, k, "row", "banks")] / kinds[(m, k, "row", "columns")] for m, k in xk]
need(f"Bank-ordered swizzled row-major points are {rng(min(r), max(r))}x the column-ordered swizzled ones",
     "swizzle: banks over columns")
r = [kinds[(m, k, "row", "banks")] / kinds[(m, k, "col", "banks")] for m, k in xk]
need(f"and {rng(min(r), max(r))}x the column-major bank-ordered points", "swizzle: row over col")
r = [kinds[("banded-1m", k, "row", "banks")] / kinds[("banded-1m", k, "col", "banks")] for k in (32, 128)]
need(f"about a third of column-major ({rng(min(r), max(r))}x)", "swizzle: banded")
bar = {}
for m, k in q(SW, "SELECT DISTINCT matrix, json_extract(problem, '$.K') FROM points"):
    cs = q(SW, f"""SELECT MAX(gflops) FROM points WHERE status = 'ok' AND kernel = 'spmm.cuda.cusparse'
           AND matrix = '{m}' AND json_extract(problem, '$.K') = {k}""")[0][0]
    tp = q(SW, f"""SELECT MAX(gflops) FROM points WHERE status = 'ok' AND kernel LIKE 'spmm.cuda.tiled%'
           AND matrix = '{m}' AND json_extract(problem, '$.K') = {k}""")[0][0]
    bar[(m, k)] = tp / cs
need(f"the bar's ratios are {b('xct-256-hilbert')} on xct-256-hilbert, {b('xct-512-hilbert')} on "
     f"xct-512-hilbert, {bar[('banded-1m', 32)]:.2f}x and {bar[('banded-1m', 128)]:.2f}x on banded-1m: a "
     f"geometric mean of **{math.prod(bar.values()) ** (1 / len(bar)):.2f}**, lowest {min(bar.values()):.2f}, "
     "so the bar is still not met", "swizzle: bar")
assert math.prod(bar.values()) ** (1 / len(bar)) < 2.0 or min(bar.values()) < 1.2

# --- Fig. 2(b) -------------------------------------------------------------------------------------
D = "h100/spdnn-inference.db"
t = {(k, m): (v, p, pid) for k, m, v, p, pid in q(D, """SELECT kernel, matrix, time_median_s * 1e3, params, id
    FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY kernel, matrix ORDER BY time_median_s) rn FROM pts
    WHERE status = 'ok') WHERE rn = 1""")}
NETS = [("dnn-1024", 1024), ("dnn-4096", 4096), ("dnn-16384", 16384), ("dnn-65536", 65536)]


def lacks(path, pid):
    """'; noisy, 3 samples' for a point that may not feed a headline, '' otherwise."""
    n = store_rules.note(*q(path, "SELECT n_samples, noisy FROM pts WHERE id = ?", pid)[0])
    return "; " + n[2:-1] if n else ""


r = {}
for m, n in NETS:
    (f, fp, fid), (c, cp, cid) = t[("spdnn.cuda.fused", m)], t[("spdnn.cuda.cusparse", m)]
    fp, cp = json.loads(fp), json.loads(cp)
    alg = cp["alg"].upper() if cp["alg"] != "default" else "default"
    order = ", bank-ordered steps" if fp.get("nnz_order") == "banks" else ""
    ok = sound(D, fid) and sound(D, cid)
    r[m] = c / f if ok else None
    need(f"| {n} neurons, 120 layers | {f:.1f} ms ({fp['stage_layout']} rows{order}, register tile "
         f"{fp['register_tile']}, {fp['shared_kib']} KiB{lacks(D, fid)}) | {c:.1f} ms ({alg}{lacks(D, cid)}) | "
         f"{f'**{c / f:.2f}x**' if ok else NOT_ENOUGH} |", f"Fig. 2(b) table: {m}")
cats = [int(metric(D, "categories", f"AND p.matrix = '{m}'")[0]) for m, _ in NETS]
need(f"({cats[0]}, {cats[1]}, {cats[2]} and {cats[3]} categories)", "Fig. 2(b): categories")
for kern, fmt in [("spdnn.cuda.fused", "{:.1f}"), ("spdnn.cuda.cusparse", "{:.1f}")]:
    vals = {m: metric(D, "dram_bytes_ratio", f"AND p.kernel = '{kern}' AND p.matrix = '{m}'")
            for m, _ in NETS}
    shown = [rng(min(v), max(v), fmt) for v in vals.values()]
    if kern.endswith("fused"):
        need(f"{shown[0]} (1024), {shown[1]} (4096), {shown[2]} (16384) and {shown[3]} (65536) for\nthe fused",
             "Fig. 2(b): fused DRAM ratio")
    else:
        need(f"{shown[0]}, {shown[1]}, {shown[2]} and {shown[3]} for cuSPARSE + ReLU",
             "Fig. 2(b): cuSPARSE DRAM ratio")
# The prose's bar verdicts (issue 33: three of the four ratios came from 3-sample noisy points).
forbid("the issue's 4x bar is met on all four", "Fig. 2(b): the bar's verdict on networks without a ratio")
assert r["dnn-1024"] is not None and r["dnn-1024"] >= 4, "Fig. 2(b): the page says the bar is met on 1024 neurons"
need(f"On 1024 neurons the fused layer is {r['dnn-1024']:.2f}x cuSPARSE + ReLU", "Fig. 2(b): 1024 neurons")
unsupported = [n for m, n in NETS if r[m] is None]
assert unsupported == [4096, 16384, 65536], f"Fig. 2(b): the page names the networks without a ratio: {unsupported}"
cs_n = sorted({q(D, "SELECT n_samples FROM pts WHERE id = ?", t[("spdnn.cuda.cusparse", m)][2])[0][0]
               for m, n in NETS if n in unsupported})
need(f"On the three larger networks this store supports no ratio: the fastest cuSPARSE point of each has "
     f"{' or '.join(map(str, cs_n))} samples and missed its confidence target", "Fig. 2(b): why no ratio")
algs = {m: {json.loads(p)["alg"]: (v, pid) for p, v, pid in q(D, f"""SELECT params, time_median_s, id FROM points
        WHERE status = 'ok' AND kernel = 'spdnn.cuda.cusparse' AND matrix = '{m}'""")} for m, _ in NETS}
a = algs["dnn-1024"]
require_sound(D, [a["default"][1], a["csr_alg1"][1]], "Fig. 2(b): default against CSR_ALG1 on 1024 neurons")
need(f"cuSPARSE's default algorithm was within {abs(a['default'][0] / a['csr_alg1'][0] - 1) * 100:.1f}% of "
     f"CSR_ALG1 on 1024 neurons", "Fig. 2(b): default against CSR_ALG1")
a2 = sorted({q(D, "SELECT n_samples FROM pts WHERE id = ?", algs[m]["csr_alg2"][1])[0][0] for m in ("dnn-1024", "dnn-4096")})
assert not any(sound(D, algs[m]["csr_alg2"][1]) for m in ("dnn-1024", "dnn-4096"))
need(f"CSR_ALG2 (run on the two small networks) has {' or '.join(map(str, a2))} samples there", "Fig. 2(b): CSR_ALG2")
forbid("CSR_ALG2 1.9-3.0x slower", "Fig. 2(b): CSR_ALG2 from 3-sample points")
# Bank-ordered against column-ordered feature rows, same shape (nnz_unroll 4).
bo = {}
for m, rt_, kib, o, v, pid in q(D, """SELECT matrix, json_extract(params, '$.register_tile'),
        json_extract(params, '$.shared_kib'), json_extract(params, '$.nnz_order'), time_median_s, id
        FROM points WHERE status = 'ok' AND kernel = 'spdnn.cuda.fused'
        AND json_extract(params, '$.stage_layout') = 'feature' AND json_extract(params, '$.nnz_unroll') = 4"""):
    bo[(m, rt_, kib, o)] = (v, pid)
for m, n in (("dnn-1024", 1024), ("dnn-4096", 4096)):
    pairs = [(bo[(mm, a_, b_, "columns")], v) for (mm, a_, b_, o), v in bo.items() if mm == m and o == "banks"]
    require_sound(D, [p[1] for pr in pairs for p in pr], f"Fig. 2(b): banks on {m}")
    g = [c[0] / b_[0] for c, b_ in pairs]
    need(f"{rng(min(g), max(g), '{:.2f}')}x on {n} neurons" if n == 1024 else
         f"{rng(min(g), max(g), '{:.2f}')}x on\n{n} over the column order", f"Fig. 2(b): banks on {m}")
fb = min((v for (mm, a_, b_, o), v in bo.items() if mm == "dnn-16384" and o == "banks"), key=lambda x: x[0])
sl = q(D, """SELECT time_median_s, id FROM points WHERE status = 'ok' AND matrix = 'dnn-16384'
    AND kernel = 'spdnn.cuda.fused' AND json_extract(params, '$.stage_layout') = 'slot' ORDER BY 1 LIMIT 1""")[0]
assert not sound(D, fb[1]) and not sound(D, sl[1])
forbid("plain slot rows beat bank-ordered feature rows too", "Fig. 2(b): a ranking of 3-sample points")
# XOR-swizzled slot rows: one shape (8 features, nnz_unroll 4, 227 KiB) in four variants.
sx = {}
for m, lay_, o, nb, v, pid in q(D, """SELECT matrix, json_extract(params, '$.stage_layout'),
        json_extract(params, '$.nnz_order'), json_extract(params, '$.n_buffers'), time_median_s, id
        FROM points WHERE status = 'ok' AND kernel = 'spdnn.cuda.fused'
        AND json_extract(params, '$.register_tile') = 8 AND json_extract(params, '$.nnz_unroll') = 4
        AND json_extract(params, '$.shared_kib') = 227"""):
    sx[(m, lay_, o, nb)] = (v, pid)
SMALL = [m for m, _ in NETS[:2]]
require_sound(D, [sx[(m, *k)][1] for m in SMALL for k in (("slot", "columns", 1), ("slot_xor", "columns", 1),
                                                             ("slot_xor", "banks", 1), ("slot_xor", "banks", 2))],
              "Fig. 2(b): slot_xor gains on the two small networks")
assert not any(sound(D, sx[(m, "slot_xor", "banks", 1)][1]) for m in ("dnn-16384", "dnn-65536"))
swz = [sx[(m, "slot", "columns", 1)][0] / sx[(m, "slot_xor", "columns", 1)][0] for m in SMALL]
bnk = [sx[(m, "slot_xor", "columns", 1)][0] / sx[(m, "slot_xor", "banks", 1)][0] for m in SMALL]
two = [sx[(m, "slot_xor", "banks", 1)][0] / sx[(m, "slot_xor", "banks", 2)][0] for m in SMALL]
need(f"the swizzle alone gives {rng(min(swz), max(swz))}x over plain slot rows and the bank order "
     f"{rng(min(bnk), max(bnk))}x more on 1024 and 4096 neurons", "Fig. 2(b): slot_xor gains")
forbid("least on 65536 neurons", "Fig. 2(b): a ratio from 3-sample points")
reuse = metric(D, "reuse_factor", "AND p.matrix = 'dnn-65536' AND p.kernel = 'spdnn.cuda.fused'")
need(f"a block's footprint is reused {rng(min(reuse), max(reuse))} times", "Fig. 2(b): reuse at 65536")
b4 = t[("spdnn.cuda.fused", "dnn-65536")]
assert json.loads(b4[1])["register_tile"] == 4 and json.loads(b4[1])["nnz_unroll"] == 8
n8 = sx[("dnn-65536", "slot_xor", "banks", 1)]
need(f"holds 4 features a thread with 8 loads of W^T in flight ({b4[0]:.0f} ms against {n8[0] * 1e3:.0f} ms at 8 "
     f"features, {one(D, 'SELECT n_samples FROM pts WHERE id = ?', b4[2])} samples each: {NOT_ENOUGH} to rank them)",
     "Fig. 2(b): 65536 fastest")
assert one(D, "SELECT n_samples FROM pts WHERE id = ?", b4[2]) == one(D, "SELECT n_samples FROM pts WHERE id = ?", n8[1])
need(f"was {rng(min(two), max(two))}x of 1 buffer on 1024 and 4096 neurons", "Fig. 2(b): 2 buffers")
assert max(two) < 1.0, "Fig. 2(b): the page says 2 buffers were slower"
L = "h100/spdnn-stage-layout.db"
lay = best(L, "AND kernel = 'spdnn.cuda.fused'", "matrix, json_extract(params, '$.stage_layout')")
lid = best_ids(L, "matrix, json_extract(params, '$.stage_layout')", "AND kernel = 'spdnn.cuda.fused'")
require_sound(L, [lid[("dnn-4096", "slot")], lid[("dnn-4096", "feature")]], "Fig. 2(b): slot over feature, 4096")
assert not sound(L, lid[("dnn-16384", "slot")])
need(f"{lay[('dnn-4096', 'slot')] / lay[('dnn-4096', 'feature')]:.2f}x the column-ordered feature rows on 4096 "
     f"neurons", "Fig. 2(b): slot over feature")
# Loads of W^T in flight on the paper's feature rows (spdnn-nnz-unroll.db).
N = "h100/spdnn-nnz-unroll.db"
nu = best(N, "AND kernel = 'spdnn.cuda.fused'", "matrix, json_extract(params, '$.nnz_unroll')", "MIN(time_median_s)")
require_sound(N, best_ids(N, "matrix, json_extract(params, '$.nnz_unroll')", "AND kernel = 'spdnn.cuda.fused'").values(),
              "Fig. 2(b): nnz_unroll on feature rows")
gain = {m: (nu[(m, 1)] / min(v for (mm, u_), v in nu.items() if mm == m and u_ > 1) - 1) * 100 for m in ("dnn-1024", "dnn-4096")}
need(f"moves the paper's layout by {gain['dnn-1024']:.1f}% on 1024 neurons and {gain['dnn-4096']:.1f}% on 4096",
     "Fig. 2(b): nnz_unroll on feature rows")
forbid("98.7 ms", "Fig. 2(b): a number from an uncommitted run")

# --- Nsight Compute profiles quoted by the page (results/profiles/h100/*.csv.gz) ----------------
def ncu(name):
    """{launch ID: {metric: value}} of a committed Nsight Compute CSV (numbers without separators)."""
    import csv
    import gzip
    with gzip.open(f"{ROOT}/results/profiles/h100/{name}", "rt", encoding="utf-8") as f:
        rows = csv.DictReader(line for line in f if line.startswith('"'))
        out = {}
        for r in rows:
            try:
                out.setdefault(int(r["ID"]), {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
            except ValueError:
                pass
    return out


WF, CF = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
ISSUE, WARPS, CPI = ("smsp__issue_active.avg.pct_of_peak_sustained_active",
                     "sm__warps_active.avg.pct_of_peak_sustained_active", "Warp Cycles Per Issued Instruction")
P = ncu("ncu-banks-spdnn.csv.gz")
a, b = P[0], P[8]  # layer 0, column order / bank-ordered
need(f"shared-load wavefronts from {a[WF] / 1e6:.1f} M ({a[CF] / 1e6:.1f} M of them bank conflicts) to "
     f"{b[WF] / 1e6:.1f} M with none, for {100 * (b['smsp__inst_executed_op_shared_ld.sum'] / a['smsp__inst_executed_op_shared_ld.sum'] - 1):.0f}% more load instructions",
     "profile: bank-ordered fused layer, wavefronts")
assert b[CF] == 0, "profile: the page says the bank-ordered layer has no load conflicts"
need(f"instructions issued on {b[ISSUE]:.0f}% of the cycles instead of {a[ISSUE]:.0f}%; the kernel from "
     f"{a['gpu__time_duration.sum'] / 1e3:.0f} to {b['gpu__time_duration.sum'] / 1e3:.0f} us",
     "profile: bank-ordered fused layer, issue and time")
need(f"({b[WARPS]:.0f}% of the warps active) and {b[CPI]:.1f} cycles between a warp's instructions, with "
     f"the shared pipe at {b['l1tex__throughput.avg.pct_of_peak_sustained_active']:.0f}%",
     "profile: bank-ordered fused layer, limits")
P = ncu("ncu-spdnn-65536.csv.gz")
a, b = P[0], P[8]  # layer 0, slot rows / bank-ordered feature rows
LS = "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"
ST = ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")
need(f"slot rows wait on global loads for {a[LS]:.1f} of the {a[CPI]:.1f} cycles between a warp's instructions",
     "profile: 65536, slot rows stalls")
need(f"{a['l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum'] / a['l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum']:.1f} "
     f"sectors per request, at {a['lts__throughput.avg.pct_of_peak_sustained_elapsed']:.0f}% of L2 throughput",
     "profile: 65536, gathers")
assert abs(a[CF] / a[WF] - 0.5) < 0.01, "profile: the page says half of the slot rows' shared loads conflict"
need(f"{100 * a[ST[1]] / a[ST[0]]:.0f}% of their shared stores being bank conflicts, with one 1024-thread "
     f"block per SM ({a[WARPS]:.0f}% of the warps active)", "profile: 65536, stores")
need(f"issue {100 * (b['smsp__inst_executed.sum'] / a['smsp__inst_executed.sum'] - 1):.0f}% more instructions "
     f"and wait {b[LS]:.1f} of {b[CPI]:.1f} cycles on global loads, "
     f"{b['gpu__time_duration.sum'] / a['gpu__time_duration.sum']:.2f}x slower", "profile: 65536, feature rows")
P = ncu("ncu-banks-spmm.csv.gz")
a, b = P[0], P[4]  # column order / bank-ordered
need(f"shared-load wavefronts from {a[WF] / 1e6:.1f} M ({a[CF] / 1e6:.1f} M conflicts) to {b[WF] / 1e6:.1f} M "
     f"({b[CF] / 1e6:.2f} M), instructions issued on {b[ISSUE]:.0f}% of the cycles instead of {a[ISSUE]:.0f}%, "
     f"the kernel from {a['gpu__time_duration.sum'] / 1e3:.0f} to {b['gpu__time_duration.sum'] / 1e3:.0f} us",
     "profile: bank-ordered pipelined SpMM")
need(f"{b[WARPS]:.0f}% of the warps active (64 registers per thread cap two 512-thread blocks per SM), "
     f"{b[CPI]:.1f} cycles between a warp's instructions, "
     f"{b['dram__throughput.avg.pct_of_peak_sustained_elapsed']:.0f}% of DRAM bandwidth",
     "profile: bank-ordered pipelined SpMM, limits")

# The Hopper summary's profiles and the skew and warp-mapping ratios of tiled-banks.db.
P = ncu("ncu-after-skew.csv.gz")
u, k, b, c = P[0], P[4], P[8], P[12]  # unskewed, skewed (same shape), best skewed shape, CSR_ALG3
SL = "smsp__inst_executed_op_shared_ld.sum"
need(f"counts {u[WF] / 1e6:.1f} M shared-memory wavefronts for {u[SL] / 1e6:.2f} M shared loads, {u[CF] / 1e6:.1f} M of "
     f"them bank conflicts; rotating each lane's start along its register tile (`skew` 1, same shape) cuts them to "
     f"{k[WF] / 1e6:.1f} M wavefronts and {k[CF] / 1e6:.1f} M conflicts and the kernel from {u['Duration'] / 1e3:.0f} "
     f"to {k['Duration'] / 1e3:.0f} us", "profile: skewed reads")
need(f"What limits the best skewed point now (block rows split over 4 blocks, {b['Duration'] / 1e3:.0f} us): "
     f"{b['No Eligible']:.0f}% of scheduler cycles without an eligible warp at {b['Achieved Occupancy']:.0f}% achieved "
     f"occupancy", "profile: the best skewed point")
need(f"{b['DRAM Throughput']:.0f}% of DRAM bandwidth, and the 2-way conflicts a 16-wide register tile leaves "
     f"({b[CF] / 1e6:.1f} M of {b[WF] / 1e6:.1f} M wavefronts)", "profile: the best skewed point's conflicts")
l2 = f"a {c['L2 Hit Rate']:.0f}% L2 hit rate at about {round(c['L2 Cache Throughput'], -1):.0f}% of L2 throughput"
need(f"cuSPARSE CSR_ALG3 ({c['Duration'] / 1e3:.0f} us) is bound by L2: {l2}", "profile: CSR_ALG3")
need(f"CSR_ALG3 reading B from L2 at a {c['L2 Hit Rate']:.0f}% hit rate and about "
     f"{round(c['L2 Cache Throughput'], -1):.0f}% of L2 throughput", "Fig. 2(a): CSR_ALG3's profile")
P = ncu("ncu-warp-mapping.csv.gz")
assert P[0][CF] / P[0][WF] < 0.01, "profile: the page says the warp mapping reads conflict-free"
P = ncu("ncu-before-tiled.csv.gz")
t0 = P[0]
assert t0["Grid Size"] == 276 and t0["Achieved Occupancy"] > 49, "profile: Listing 1's xct-256-hilbert launch"
need(f"one 1024-thread block per SM (occupancy {t0['Theoretical Occupancy'] / 100:g}), {t0['No Eligible']:.0f}% of "
     f"cycles with no eligible warp, {t0['DRAM Throughput']:.0f}% of DRAM bandwidth and a {t0['L2 Hit Rate']:.0f}% L2 "
     f"hit rate", "profile: Listing 1 before this work")
B = "h100/tiled-banks.db"
med = lambda v: (sorted(v)[(len(v) - 1) // 2] + sorted(v)[len(v) // 2]) / 2
per_k = {}
for m, kk, r in q(B, """SELECT a.matrix, json_extract(a.problem, '$.K'), b.time_median_s / a.time_median_s FROM pts a
        JOIN pts b ON a.matrix = b.matrix AND a.problem = b.problem AND a.kernel = b.kernel
        AND json_remove(a.params, '$.skew') = json_remove(b.params, '$.skew')
        WHERE a.sound AND b.sound AND json_extract(a.params, '$.skew') = 1 AND json_extract(b.params, '$.skew') = 0"""):
    per_k.setdefault((m, kk), []).append(r)
xm = [med(per_k[("xct-256-hilbert", kk)]) for kk in (32, 128)]
bm = [med(per_k[("banded-1m", kk)]) for kk in (32, 128)]
need(f"skewed reads are {rng(min(xm), max(xm))}x the unskewed ones on xct-256-hilbert and {rng(min(bm), max(bm))}x "
     f"on banded-1m", "tiled-banks: skewed over unskewed")
wb = {(m, kk): (t_, pid) for m, kk, t_, pid in q(B, """SELECT matrix, json_extract(problem, '$.K'), time_median_s, id FROM
        (SELECT *, ROW_NUMBER() OVER (PARTITION BY matrix, problem ORDER BY time_median_s) rn FROM pts
        WHERE status = 'ok' AND json_extract(params, '$.warp_rows') > 0) WHERE rn = 1""")}
cb = {(m, kk): (t_, pid) for m, kk, t_, pid in q(B, """SELECT matrix, json_extract(problem, '$.K'), time_median_s, id FROM
        (SELECT *, ROW_NUMBER() OVER (PARTITION BY matrix, json_extract(problem, '$.K') ORDER BY time_median_s) rn
        FROM pts WHERE status = 'ok' AND kernel = 'spmm.cuda.cusparse') WHERE rn = 1""")}
wr = {key: cb[key][0] / wb[key][0] for key in wb}
need(f"{wr[('xct-256-hilbert', 32)]:.2f}x and {wr[('xct-256-hilbert', 128)]:.2f}x cuSPARSE on xct-256-hilbert, "
     f"{wr[('banded-1m', 32)]:.2f}x and {wr[('banded-1m', 128)]:.2f}x on banded-1m, so the tuner does not pick it on XCT",
     "tiled-banks: the warp mapping against cuSPARSE")
rows_, nnz_ = q(B, "SELECT rows, nnz FROM matrices WHERE name = 'xct-256-hilbert' LIMIT 1")[0]
spb = {kk: one(B, "SELECT value FROM metrics WHERE point_id = ? AND name = 'stages_per_block_avg'",
               wb[("xct-256-hilbert", kk)][1]) for kk in (32, 128)}
need(f"({nnz_ / rows_:.0f} nonzeros per row over {spb[32]:.1f} or {spb[128]:.1f} stages per block: "
     f"{nnz_ / rows_ / spb[32]:.0f} or {nnz_ / rows_ / spb[128]:.0f} per row and stage on xct-256-hilbert at K = 32 or 128)",
     "tiled-banks: the warp mapping's share of a stage")

# docs/families/spmm-hopper.md: where the warp mapping is the best Tiled point (issue 33: the page
# said it wins nowhere).
wm_best = {}
for lo in ("any", "row"):
    where = "" if lo == "any" else "AND json_extract(problem, '$.layout') = 'row'"
    ids = best_ids(S, "matrix, json_extract(problem, '$.K')", f"AND kernel LIKE 'spmm.cuda.tiled%' {where}")
    require_sound(S, ids.values(), "spmm-hopper.md: the best Tiled points")
    wm_best[lo] = sorted(key for key, pid in ids.items() if (json.loads(one(S, "SELECT params FROM points WHERE id = ?",
                                                                              pid)).get("warp_rows") or 0) > 0)
assert wm_best["any"] == [("rmat-20", 128)], f"spmm-hopper.md names where the warp mapping is best: {wm_best}"
assert wm_best["row"] == [("banded-1m", 32), ("banded-1m", 128), ("rmat-20", 128)], wm_best
rowcs = {k: v for k, v in best_ids(S, "matrix, json_extract(problem, '$.K')", "AND kernel = 'spmm.cuda.cusparse' AND "
                                   "json_extract(problem, '$.layout') = 'row'").items()}
anyt = best_ids(S, "matrix, json_extract(problem, '$.K')", "AND kernel LIKE 'spmm.cuda.tiled%'")
rowt = best_ids(S, "matrix, json_extract(problem, '$.K')", "AND kernel LIKE 'spmm.cuda.tiled%' AND "
                "json_extract(problem, '$.layout') = 'row'")
anyc = best_ids(S, "matrix, json_extract(problem, '$.K')", "AND kernel = 'spmm.cuda.cusparse'")
tm_ = lambda pid: one(S, "SELECT time_median_s FROM points WHERE id = ?", pid)
need(f"it is the best Tiled point of either layout only on rmat-20 at K = 128 "
     f"({tm_(anyc[('rmat-20', 128)]) / tm_(anyt[('rmat-20', 128)]):.2f}x cuSPARSE there), and the best row-major Tiled "
     f"point on banded-1m ({tm_(rowcs[('banded-1m', 32)]) / tm_(rowt[('banded-1m', 32)]):.2f}x and "
     f"{tm_(rowcs[('banded-1m', 128)]) / tm_(rowt[('banded-1m', 128)]):.2f}x row-major cuSPARSE at K = 32 and 128) and on "
     f"rmat-20 at K = 128", "spmm-hopper.md: the warp mapping", "hopper")
forbid("it wins nowhere", "spmm-hopper.md: the warp mapping is rmat-20's best at K = 128", "hopper")

# --- Interleaved register tiles (tiled-interleave.db) ----------------------------------------------
TI = "h100/tiled-interleave.db"
all_sound(TI, "the hand-written statements about h100/tiled-interleave.db")
shapes = {}
for m, k, lay, shape, ti, g in q(TI, """SELECT matrix, json_extract(problem, '$.K'), json_extract(problem, '$.layout'),
        json_remove(params, '$.tile_interleave'), json_extract(params, '$.tile_interleave'), gflops FROM points
        WHERE status = 'ok' AND kernel = 'spmm.cuda.tiled_pipe'"""):
    shapes.setdefault((m, k, lay), {}).setdefault(shape, {})[ti] = g
meds, bests = [], []
for key, d in shapes.items():
    pr = sorted(v[1] / v[0] for v in d.values() if 0 in v and 1 in v)
    meds.append((pr[len(pr) // 2] + pr[(len(pr) - 1) // 2]) / 2)
    bests.append(max(v[1] for v in d.values() if 1 in v) / max(v[0] for v in d.values() if 0 in v))
need(f"lifts the pipelined kernel by a median of {rng(min(meds), max(meds))}x over same-shape pairs (per matrix, K "
     f"and layout) and its best point by {rng(min(bests), max(bests))}x", "interleave: lift")
for k in (32, 128):
    rt, bps, ti = q(TI, f"""SELECT json_extract(params, '$.register_tile'), json_extract(params, '$.blocks_per_sm'),
        json_extract(params, '$.tile_interleave') FROM points WHERE status = 'ok' AND kernel LIKE 'spmm.cuda.tiled%'
        AND matrix = 'xct-256-hilbert' AND json_extract(problem, '$.K') = {k} ORDER BY gflops DESC LIMIT 1""")[0]
    assert (rt, bps, ti) == (8, 3, 1), f"interleave: the page says register tile 8 at 3 blocks is best (K = {k})"
regs = set(metric(TI, "registers_per_thread", "AND json_extract(p.params, '$.blocks_per_sm') = 3"))
need(f"three 512-thread blocks per SM ({', '.join(f'{r:.0f}' for r in sorted(regs))} registers)",
     "interleave: registers at three blocks per SM")
bar, ceil, eff, lvl = {}, [], [], set()
for m, k in q(TI, "SELECT DISTINCT matrix, json_extract(problem, '$.K') FROM points"):
    ct = q(TI, f"""SELECT MIN(time_median_s) FROM points WHERE status = 'ok' AND kernel = 'spmm.cuda.cusparse'
           AND matrix = '{m}' AND json_extract(problem, '$.K') = {k}""")[0][0]
    pid, tt, bound = q(TI, f"""SELECT id, time_median_s, bound_s FROM points WHERE status = 'ok'
           AND kernel LIKE 'spmm.cuda.tiled%' AND matrix = '{m}' AND json_extract(problem, '$.K') = {k}
           ORDER BY time_median_s LIMIT 1""")[0]
    bar[(m, k)] = ct / tt
    ceil.append(ct / bound)
    eff.append(bound / tt)
    dram = one(TI, "SELECT value FROM metrics WHERE point_id = ? AND name = 'bound_limit_is_dram'", pid)
    assert dram == (1 if m == "banded-1m" else 0), f"interleave: the page names the limiting level ({m}, K = {k})"
geo = lambda v: math.prod(v) ** (1 / len(v))
both = lambda m: f"{bar[(m, 32)]:.2f}x and {bar[(m, 128)]:.2f}x"
need(f"the bar's ratios are {both('xct-256-hilbert')} on xct-256-hilbert, {both('xct-512-hilbert')} on "
     f"xct-512-hilbert, {bar[('banded-1m', 32)]:.2f}x and {bar[('banded-1m', 128)]:.2f}x on banded-1m: a geometric "
     f"mean of **{geo(bar.values()):.2f}**, lowest {min(bar.values()):.2f}, so the lowest-ratio part of the bar "
     "(1.2) is met and the geometric-mean part (2.0) is not", "interleave: bar")
assert geo(bar.values()) < 2.0 and min(bar.values()) >= 1.2
need(f"caps its ratio at {rng(min(ceil), max(ceil))} (geometric mean {geo(ceil):.2f}): a geometric mean of 2.0 "
     f"needs the Tiled points at {100 * 2.0 / geo(ceil):.0f}% of their bounds on average, and they run at "
     f"{100 * geo(eff):.0f}% ({rng(100 * min(eff), 100 * max(eff), '{:.0f}')}%)", "interleave: roofline")
P = ncu("ncu-interleave.csv.gz")
DR, HIT, L1 = "dram__bytes_read.sum", "lts__t_sector_hit_rate.pct", "l1tex__throughput.avg.pct_of_peak_sustained_active"
a32, b32, a128, b128 = P[0], P[4], P[8], P[12]  # first launch of each: K 32 along grid.y, interleaved; K 128
need(f"DRAM bytes read from {a32[DR] / 1e6:.0f} to {b32[DR] / 1e6:.0f} MB at K = 32 and from {a128[DR] / 1e6:.0f} "
     f"to {b128[DR] / 1e6:.0f} MB at K = 128, the L2 hit rate from {a32[HIT]:.0f}% to {b32[HIT]:.0f}% and from "
     f"{a128[HIT]:.0f}% to {b128[HIT]:.0f}%, the kernel from {a32['gpu__time_duration.sum'] / 1e3:.0f} to "
     f"{b32['gpu__time_duration.sum'] / 1e3:.0f} us and from {a128['gpu__time_duration.sum'] / 1e3:.0f} to "
     f"{b128['gpu__time_duration.sum'] / 1e3:.0f} us under the profiler", "profile: interleave, traffic")
need(f"the L1/shared-memory pipe at {b32[L1]:.0f}% (K = 32) and {b128[L1]:.0f}% (K = 128) of its peak, with bank "
     f"conflicts {100 * b32[CF] / b32[WF]:.1f}% and {100 * b128[CF] / b128[WF]:.1f}% of the shared-load wavefronts "
     f"and {b32[WARPS]:.0f}% and {b128[WARPS]:.0f}% of the warps active", "profile: interleave, limits")

# --- Fig. 4 ----------------------------------------------------------------------------------------
R = "h100/register-tiling.db"
all_sound(R, "the hand-written statements about h100/register-tiling.db")
rt = best(R, "", "matrix, json_extract(params, '$.register_tile')")
X, B = "xct-256-hilbert", "banded-1m"
need(f"from {rt[(X, 1)]:.0f} ({X}) and {rt[(B, 1)]:.0f} ({B}) GFLOP/s at tile 1", "Fig. 4: tile 1")
for m in (X, B):
    tile, peak = max(((k[1], v) for k, v in rt.items() if k[0] == m), key=lambda kv: kv[1])
    need(f"{peak:.0f} GFLOP/s at tile {tile}**", f"Fig. 4: peak of {m}")
    need(f"({m}, {peak / rt[(m, 1)]:.1f}x", f"Fig. 4: peak over tile 1 of {m}")
if max(rt[k] for k in rt if k[0] == B) != rt[(B, 32)]:
    need(f"{rt[(B, 32)]:.0f} at tile 32)", "Fig. 4: banded at tile 32")
need(f"the banded matrix goes {rt[(B, 29)]:.0f}, {rt[(B, 30)]:.0f},\n{rt[(B, 31)]:.0f}, then up to "
     f"{rt[(B, 32)]:.0f}", "Fig. 4: banded tiles 29-32")
need("the XCT matrix " + ", ".join(f"{rt[(X, k)]:.0f}" for k in (29, 30, 31, 32)),
     "Fig. 4: XCT tiles 29-32")
regs = metric(R, "registers_per_thread")
need(f"flat at {min(regs):.0f}-{max(regs):.0f}\n  registers per thread", "Fig. 4: registers")
assert max(metric(R, "spill_bytes")) == 0, "Fig. 4: the page says no variant spills"
occ = set(round(v, 3) for v in metric(R, "theoretical_occupancy"))
need(f"theoretical occupancy {occ.pop():g}", "Fig. 4: occupancy") if len(occ) == 1 else \
    failures.append(f"Fig. 4: occupancy is not one value: {sorted(occ)}")
ratio_at = lambda name, m, k: metric(R, name, f"AND p.matrix = '{m}' AND "
                                     f"json_extract(p.params, '$.register_tile') = {k}")[0]
need(f"from **{ratio_at('dram_bytes_ratio', X, 1):.1f} at tile 1**", "Fig. 4: DRAM ratio tile 1")
need(f"to {ratio_at('dram_bytes_ratio', X, 8):.1f} at tile 8, {ratio_at('dram_bytes_ratio', X, 16):.1f}"
     f" at tile 16 and **{ratio_at('dram_bytes_ratio', X, 32):.2f} at tile 32**", "Fig. 4: DRAM ratios")
need(f"on banded-1m from {ratio_at('dram_bytes_ratio', B, 1):.1f}\n  to "
     f"{ratio_at('dram_bytes_ratio', B, 32):.2f}", "Fig. 4: banded DRAM ratios")
assert min(metric(R, "dram_bytes_ratio")) >= 1.0, "Fig. 4: the page says no point reads less"
need(f"{ratio_at('l2_bytes_ratio', X, 1):.1f} to {ratio_at('l2_bytes_ratio', X, 32):.1f} (XCT) and "
     f"{ratio_at('l2_bytes_ratio', B, 1):.1f} to {ratio_at('l2_bytes_ratio', B, 32):.1f} (banded)",
     "Fig. 4: L2 ratios")

# --- Figs. 8-11: hierarchical communication on GPUs -----------------------------------------------
def staged_global(machine):
    """The machine file's staged device-buffer MPI figures of the global tier (GB/s, us)."""
    text = open(f"{ROOT}/roofline/machines/{machine}.yaml", encoding="utf-8").read()
    block = text[text.index("mpi_staged:"):]
    block = block[block.index("global:"):]
    grab = lambda key: float(block.split(key + ":")[1].split()[0])
    return grab("bandwidth_gbs"), grab("latency_us")


def comm_points(path):
    rows = q(path, """SELECT json_extract(problem, '$.K'), json_extract(params, '$.comm'),
        json_extract(params, '$.minibatch'), time_median_s * 1e3,
        (SELECT value FROM metrics m WHERE m.point_id = p.id AND m.name = 'comm_bytes_global_total'),
        (SELECT value FROM metrics m WHERE m.point_id = p.id AND m.name = 'comm_bytes_global_max'),
        (SELECT value FROM metrics m WHERE m.point_id = p.id AND m.name = 'comm_msgs_global_max'),
        (SELECT value FROM metrics m WHERE m.point_id = p.id AND m.name = 'time_global_s') * 1e3
        FROM points p WHERE status = 'ok'""")
    return {(k, c, mb): r for k, c, mb, *r in rows}


H4, H2 = comm_points("h200-x4/hierarchical-comm-gpu.db"), comm_points("h200-x2/hierarchical-comm-gpu.db")
for path in ("h200-x4/hierarchical-comm-gpu.db", "h200-x2/hierarchical-comm-gpu.db",
             "h200-x4/hierarchical-comm-gpu-summit.db", "h200-x2/stationary-spmm-gpu.db", "h100/tiled-banks.db"):
    all_sound(path, f"the hand-written statements about {path}")
gbs, lat_us = staged_global("h200-x4")
need(f"staged device-buffer bandwidth ({gbs:.2f} GB/s on the 4-GPU host) plus one latency "
     f"({lat_us:.0f} us) per message", "Figs. 8-11: the staged figures of h200-x4.yaml")
shares = []
for k, comm, mb in [(128, "direct", 0), (128, "node", 0), (128, "direct", 32), (128, "node", 32),
                    (256, "direct", 0), (256, "node", 0)]:
    ms, total, busiest, msgs, phase = H4[(k, comm, mb)]
    roof = busiest / (gbs * 1e9) * 1e3 + msgs * lat_us * 1e-3
    bold = lambda v: f"**{v:.2f}**" if comm == "node" and mb == 0 else f"{v:.2f}"
    need(f"| 4 x H200, 2 x 2 | {k} | {comm} | {mb} | {bold(ms)} | {total / 1e6:.1f} / "
         f"{busiest / 1e6:.1f} | {bold(phase)} | {f'{roof:.2f}' if mb == 0 else ''} |",
         f"Figs. 8-11 table: 2 x 2, K = {k}, {comm}, minibatch {mb}")
    if mb == 0:
        shares.append(roof / phase)
need(f"the global phase runs at {min(shares) * 100:.0f}-{max(shares) * 100:.0f}% of what that "
     "transport allows", "Figs. 8-11: global phase against the staged roofline")
for k in (128, 256):
    ms, total, busiest, msgs, phase = H2[(k, "direct", 0)]
    need(f"| 2 x H200, 2 x 1 | {k} | direct | 0 | {ms:.2f} | {total / 1e6:.1f} | {phase:.2f} | |",
         f"Figs. 8-11 table: 2 x 1, K = {k}")
d, n = H4[(128, "direct", 0)], H4[(128, "node", 0)]
need(f"the node reduction cuts the inter-node volume by **{(1 - n[1] / d[1]) * 100:.1f}%** "
     f"({d[1] / 1e6:.1f} to {n[1] / 1e6:.1f} MB at K = 128)", "Figs. 8-11: node reduction volume")
SU = comm_points("h200-x4/hierarchical-comm-gpu-summit.db")
sk = next(iter(SU))[0]
sd, sn, ss = SU[(sk, "direct", 0)], SU[(sk, "node", 0)], SU[(sk, "socket+node", 0)]
assert sn[1] == ss[1], "Summit: the page says node and socket+node move the same bytes"
need(f"the cut is **{(1 - sn[1] / sd[1]) * 100:.1f}%** ({sd[1] / 1e6:.1f} to {sn[1] / 1e6:.1f} MB, "
     "node and socket+node alike)", "Figs. 8-11: Summit volume")
d256, n256 = H4[(256, "direct", 0)], H4[(256, "node", 0)]
need(f"shortens the global phase by {(1 - n[4] / d[4]) * 100:.0f}% (K = 128) and "
     f"{(1 - n256[4] / d256[4]) * 100:.0f}% (K = 256) and the whole SpMM by "
     f"{(1 - n[0] / d[0]) * 100:.0f}% and {(1 - n256[0] / d256[0]) * 100:.0f}% on 2 x 2",
     "Figs. 8-11: time saved")
need(f"the global phase drops from {sd[4]:.2f} to {sn[4]:.2f} ms and the SpMM from {sd[0]:.2f} to "
     f"{sn[0]:.2f} ms (-{(1 - sn[0] / sd[0]) * 100:.0f}%)", "Figs. 8-11: Summit time")
need(f"node here ({ss[0]:.2f} ms)", "Figs. 8-11: Summit socket+node")
need(f"make every point slower ({d[0]:.2f} to {H4[(128, 'direct', 32)][0]:.2f} ms)",
     "Figs. 8-11: pipelining")
a, b = H2[(128, "direct", 0)], H2[(128, "node", 0)]
assert a[1] == b[1], "2 x 1: the page says direct and node move the same bytes"
need(f"direct and node move the same {a[1] / 1e6:.1f} MB and take the same time ({a[0]:.2f} and "
     f"{b[0]:.2f} ms)", "Figs. 8-11: 2 x 1")

# --- Table 2 and Figs. 3-4: stationary variants on GPUs ------------------------------------------
VARIANTS = [("stationary C", "stationary_c"), ("stationary A", "stationary_a"),
            ("stationary B", "stationary_b"), ("SUMMA", "summa"), ("SUMMA (stationary A)", "summa_a"),
            ("work stealing, random", "ws_random"), ("work stealing, locality", "ws_locality")]
COLUMNS = [("rmat-18-fig1", 128), ("rmat-18-fig1", 512), ("banded-256k", 128), ("banded-256k", 512)]


def best_ms(path, family="spmm2d"):
    """(variant, matrix, N) -> (ms, point id) of the fastest status-ok point."""
    out = {}
    for kernel, m, n, ms, pid in q(path, """SELECT kernel, matrix, json_extract(problem, '$.N'),
            time_median_s * 1e3, id FROM points WHERE status = 'ok' ORDER BY time_median_s DESC"""):
        out[(kernel.split(".")[-1], m, n)] = (ms, pid)
    return out


def point_metric(path, pid, name):
    return one(path, "SELECT value FROM metrics WHERE point_id = ? AND name = ?", pid, name)


for host, path in [("4 x H200 (2 x 2)", "h200-x4/stationary-spmm-gpu.db"),
                   ("2 x H200 (2 x 1)", "h200-x2/stationary-spmm-gpu.db")]:
    t = best_ms(path)
    fastest = {c: min(t[(v, *c)][0] for _, v in VARIANTS) for c in COLUMNS}
    for label, v in VARIANTS:
        cells = []
        for c in COLUMNS:
            ms, summa = t[(v, *c)][0], t[("summa", *c)][0]
            cell = f"{ms:.1f} ({summa / ms:.2f})"
            cells.append(f"**{cell}**" if ms == fastest[c] else cell)
        need(f"| {label} | " + " | ".join(cells) + " |", f"stationary table {host}: {label}")
S4 = "h200-x4/stationary-spmm-gpu.db"
all_sound(S4, "the hand-written statements about h200-x4/stationary-spmm-gpu.db")
t4 = best_ms(S4)
parts = []
for v in ("stationary_c", "summa", "stationary_a"):
    cols = []
    for name in ("compute_s_avg", "comm_s_avg", "accum_s_avg", "imbalance_s_avg", "staging_s_avg"):
        vals = [point_metric(S4, t4[(v, "rmat-18-fig1", n)][1], name) * 1e3 for n in (128, 512)]
        cols.append("0" if max(vals) == 0 else f"{vals[0]:.1f} / {vals[1]:.1f}")
    parts.append(cols)
c, su, a = parts
need(f"stationary C computes {c[0]}, waits on communication {c[1]}, accumulates {c[2]}, is idle "
     f"{c[3]} and stages {c[4]}; SUMMA {', '.join(su)}; stationary A {', '.join(a)}",
     "stationary: Table 2 breakdown")
ratios = lambda v: [t4[("summa", *col)][0] / t4[(v, *col)][0] for col in COLUMNS]
r = ratios("stationary_c")
need(f"beats SUMMA by {min(r):.2f}-{max(r):.2f}x on 4 GPUs", "stationary: stationary C over SUMMA")
r = ratios("ws_locality")
need(f"locality-aware work stealing by {min(r):.2f}-{max(r):.2f}x", "stationary: locality stealing")
x = {v: t4[(v, "xct-192", 128)][0] for v in ("stationary_a", "stationary_c", "summa")}
x512 = {v: t4[(v, "xct-192", 512)][0] for v in ("stationary_a", "stationary_c", "summa")}
fastest128 = min((ms, v) for (v, m, n), (ms, _) in t4.items() if m == "xct-192" and n == 128)
assert fastest128[1] == "stationary_a", "the page says stationary A is the fastest on XCT at N = 128"
fastest512 = min((ms, v) for (v, m, n), (ms, _) in t4.items() if m == "xct-192" and n == 512)
assert fastest512[1] == "stationary_c", "the page says stationary C leads on XCT at N = 512"
need(f"at N = 128 stationary A is the fastest variant ({x['stationary_a']:.2f} ms, "
     f"**{x['summa'] / x['stationary_a']:.2f}x** SUMMA), at N = 512 it falls to "
     f"{x512['summa'] / x512['stationary_a']:.2f}x and stationary C leads "
     f"({x512['summa'] / x512['stationary_c']:.2f}x)", "stationary: the S-A / S-C crossover")
imb = lambda m: point_metric(S4, t4[("stationary_c", m, 128)][1], "flops_imbalance")
need(f"is {imb('rmat-18-fig1'):.2f} over the 2 x 2 grid, banded's {imb('banded-256k'):.1f}",
     "stationary: flops imbalance")
r = ratios("stationary_c")
need(f"({r[0]:.2f} vs {r[2]:.2f} at N = 128)", "stationary: lead on R-MAT and banded")

G = "h200-x4/stationary-spgemm-gpu.db"
all_sound(G, "the hand-written statements about h200-x4/stationary-spgemm-gpu.db")
sg = {(k.split(".")[-1], m): (ms, pid) for k, m, ms, pid in q(
    G, "SELECT kernel, matrix, time_median_s * 1e3, id FROM points WHERE status = 'ok'")}
for label, m in [("R-MAT 15 (Fig. 1 parameters)", "rmat-15-fig1"), ("banded 128k", "banded-128k")]:
    fastest = min(sg[(v, m)][0] for v in ("stationary_c", "stationary_a", "summa"))
    cells = []
    for v in ("stationary_c", "stationary_a", "summa"):
        ms, pid = sg[(v, m)]
        br = " / ".join(f"{point_metric(G, pid, n) * 1e3:.1f}" for n in (
            "compute_s_avg", "comm_s_avg", "accum_s_avg", "imbalance_s_avg", "staging_s_avg"))
        cells.append((f"**{ms:.1f}**" if ms == fastest else f"{ms:.1f}") + f" ({br})")
    need(f"| {label} | " + " | ".join(cells) + " |", f"SpGEMM table: {m}")
ms_r = {v: sg[(v, "rmat-15-fig1")][0] for v in ("stationary_c", "stationary_a", "summa")}
ms_b = {v: sg[(v, "banded-128k")][0] for v in ("stationary_c", "stationary_a", "summa")}
acc = point_metric(G, sg[("stationary_c", "rmat-15-fig1")][1], "accum_s_avg") * 1e3
need(f"({acc:.0f} ms of {ms_r['stationary_c']:.0f} on R-MAT)", "SpGEMM: accumulation share")
spread = max(ms_r.values()) / min(ms_r.values()) - 1
assert spread <= 0.05, f"SpGEMM: the page says within 5% on R-MAT, the stores give {spread:.1%}"
nxt = lambda d: sorted(d.values())[1] / d["stationary_c"] - 1
slow = lambda d: max(d.values()) / d["stationary_c"] - 1
need(f"by {nxt(ms_r) * 100:.1f}% (R-MAT, over stationary A) and {nxt(ms_b) * 100:.1f}% (banded, over "
     f"SUMMA) on the next best variant, and by {slow(ms_r) * 100:.1f}% and {slow(ms_b) * 100:.0f}% on "
     "the slowest", "SpGEMM: stationary C's lead")
assert sorted(ms_r, key=ms_r.get)[1] == "stationary_a" and sorted(ms_b, key=ms_b.get)[1] == "summa"

# --- Real nodes: the network-namespace cluster --------------------------------------------------
probe = open(f"{BASE}/netns/netns-2x2.yaml", encoding="utf-8").read()
tier = lambda name, key: float(probe.split(f"\n  {name}:")[1].split(key + ":")[1].split()[0])
link_gbs, link_us = tier("global", "bandwidth_gbs"), tier("global", "latency_us")
need(f"(global tier: {link_gbs:.3f} GB/s, {link_gbs / 0.25 * 100:.0f}% of the shaping, {link_us:.0f} us; "
     f"socket tier {tier('socket', 'bandwidth_gbs'):.1f} GB/s)", "netns: the probed link (2 Gbit/s)")
N = "netns/hierarchical-comm.db"
all_sound(N, "the hand-written statements about netns/hierarchical-comm.db")
hc = q(N, """SELECT matrix, json_extract(problem, '$.precision'), json_extract(params, '$.comm'),
    json_extract(params, '$.minibatch'), status, time_median_s * 1e3, bound_s * 1e3, efficiency,
    (SELECT value FROM metrics m WHERE m.point_id = p.id AND m.name = 'comm_bytes_global_max'),
    (SELECT value FROM metrics m WHERE m.point_id = p.id AND m.name = 'comm_msgs_global_max'),
    (SELECT value FROM metrics m WHERE m.point_id = p.id AND m.name = 'time_global_s') * 1e3
    FROM points p""")
inter = {0: [], 16: []}
for m, prec, comm, mb, status, ms, bound, eff, busiest, msgs, phase in hc:
    link = busiest / (link_gbs * 1e9) * 1e3 + msgs * link_us * 1e-3
    inter[mb].append(link / phase)
    need(f"| sender | {m} | {prec} | comm={comm} minibatch={mb} | {status} | {ms:.1f} | {bound:.2f} | "
         f"{eff:.3f} | {busiest / 1e6:.2f} | {link:.2f} | {phase:.1f} | {link / phase:.2f} |",
         f"netns hierarchical-comm table: {prec} {comm} minibatch {mb}")
bytes_of = {comm: busiest for _, prec, comm, _, _, _, _, _, busiest, _, _ in hc if prec == "fp64"}
need(f"moves {(1 - bytes_of['node'] / bytes_of['direct']) * 100:.0f}% less across the link than the "
     f"direct scheme ({bytes_of['node'] / 1e6:.1f} against {bytes_of['direct'] / 1e6:.1f} MB",
     "netns: node reduction volume")
need(f"runs at {min(inter[0]):.2f}-{max(inter[0]):.2f} of the link bound without pipelining and "
     f"{min(inter[16]):.2f}-{max(inter[16]):.2f} with 16 minibatches", "netns: inter-node phase")
effs = [row[7] for row in hc]
need(f"The whole points run at {min(effs):.2f}-{max(effs):.2f} of their bounds", "netns: whole points")
def stationary_rows(store, row):
    """The best point per variant and matrix of a netns stationary store, each formatted by row
    and required in the page; returns (variant, matrix, inter-node efficiency, bound ms, link ms)."""
    rows = q(store, """SELECT kernel, matrix, params, time_median_s * 1e3, bound_s * 1e3, efficiency,
        (SELECT value FROM metrics m WHERE m.point_id = p.id AND m.name = 'net_bytes_global_max')
        FROM points p WHERE status = 'ok' ORDER BY time_median_s DESC""")
    best_of = {}
    for kernel, m, params, ms, bound, eff, busiest in rows:
        best_of[(kernel.split(".")[-1], m)] = (json.loads(params), ms, bound, eff, busiest)
    out = []
    for (v, m), (params, ms, bound, eff, busiest) in best_of.items():
        shown = " ".join(f"{k}={params[k]}" for k in ("pr", "refine", "prefetch") if k in params)
        link = busiest / (link_gbs * 1e9) * 1e3
        out.append((v, m, link / ms, bound, link))
        need(row(v, m, shown, ms, bound, eff, busiest, link), f"netns {store} table: {v} on {m}")
    return out


small = stationary_rows("netns/stationary-spmm-small.db", lambda v, m, shown, ms, bound, eff, busiest, link:
                        f"| {v} | {m} | {shown} | {ms:.2f} | {bound:.3f} | {eff:.3f} | "
                        f"{busiest / 1e3:.1f} | {link:.3f} | {link / ms:.3f} |")
sync = [r[2] for r in small if r[0] in ("summa", "stationary_c")]
onesided = [r[2] for r in small if r[0] not in ("summa", "stationary_c", "summa_a")]
need(f"SUMMA and stationary C reach {min(sync):.2f}-{max(sync):.2f} of the link bound",
     "netns: bulk-synchronous variants")
need(f"passive-target gets over osc/pt2pt progress only when the target enters MPI, "
     f"{min(onesided):.3f}-{max(onesided):.3f}.", "netns: one-sided variants")
ns = q("netns/stationary-spmm-small.db", "SELECT MIN(n_samples), MAX(n_samples) FROM pts WHERE status = 'ok'")[0]
assert ns[0] == ns[1] < store_rules.MIN_SAMPLES, "netns small: the page says every point has too few samples"
need(f"Every point of this store has {ns[0]} samples (the CI config's measure block), so these are medians of "
     f"two repetitions shown as measured: {NOT_ENOUGH} for a headline", "netns small: samples")

P = "netns/stationary-spmm.db"
paper = stationary_rows(P, lambda v, m, shown, ms, bound, eff, busiest, link:
                        f"| {v} | {m} | {shown} | {ms:.1f} | {bound:.1f} | {eff:.3f} | "
                        f"{busiest / 1e6:.2f} | {link:.1f} | {link / ms:.3f} |")
effs = [e for _, _, e, _, _ in paper]
lo_small, hi_small = min(r[2] for r in small), max(r[2] for r in small)
need(f"the variants reach {min(effs):.3f}-{max(effs):.3f} of the link bound (the CI-sized matrices: "
     f"{lo_small:.3f}-{hi_small:.2f})", "netns paper stationary: range")
fast = min(q(P, "SELECT time_median_s, kernel FROM points WHERE status = 'ok'"))
assert fast[1].endswith("stationary_c"), "the page says stationary C is the fastest variant"
c = next(r for r in paper if r[0] == "stationary_c")
need(f"stationary C, the fastest variant, moves its {c[4] * link_gbs * 1e6 / 1e6:.1f} MB in {c[2]:.3f}",
     "netns paper stationary: stationary C")
ws = next(r for r in paper if r[0] == "ws_random")
assert ws[4] > ws[3], "the page says random stealing's link bound exceeds its bound"
moved = one(P, "SELECT MAX(m.value) FROM metrics m JOIN points p ON p.id = m.point_id "
               "WHERE p.kernel LIKE '%ws_random' AND m.name = 'net_bytes_global_max'")
need(f"Random stealing moved {moved / 1e6:.1f} MB on its busiest rank, more than the model's bytes "
     f"behind its bound ({ws[3]:.1f} ms)", "netns paper stationary: random stealing")
ci = [r[0] for r in q(P, "SELECT ci_rel FROM points WHERE status = 'ok'")]
need(f"intervals {min(ci) * 100:.0f}-{max(ci) * 100:.0f}% of the median on the shared, oversubscribed VM), so "
     "the efficiencies above are shown as measured, not as headlines", "netns paper stationary: noise")
assert len(metric(P, "noisy", "AND m.value = 1")) == len(ci), "the page says every point is noisy"

# --- CUPTI counters on the H100 --------------------------------------------------------------------
K = "h100/gpu-counters.db"
all_sound(K, "the hand-written statements about h100/gpu-counters.db")
pid = one(K, """SELECT id FROM points WHERE kernel = 'spmm.cuda.tiled' AND matrix = 'xct-128-hilbert'
    AND json_extract(problem, '$.precision') = 'fp32'""")
cm = lambda name: point_metric(K, pid, name)
need(f"Tiled fp32 on xct-128-hilbert: {cm('dram_bytes_read') / 1e6:.1f} + "
     f"{cm('dram_bytes_write') / 1e6:.1f} MB DRAM, {cm('l2_bytes') / 1e6:.0f} MB L2, "
     f"{cm('shared_bank_conflicts') / 1e6:.1f} M bank conflicts, {cm('ffma_thread_inst') / 1e6:.0f} M "
     f"FFMA for {cm('model_flops') / 1e6:.0f} MFLOP of useful work, i.e. "
     f"{cm('padding_overhead') * 100:.0f}% padding in the ELL stages, "
     f"{cm('achieved_occupancy'):.0f}% occupancy", "counters: the Tiled fp32 point")
low = metric(K, "dram_bytes_ratio", "AND m.value < 1")
words = {3: "three", 4: "four", 5: "five"}
need(f"On {words.get(len(low), len(low))} points whose working set fits in the 50 MB L2 the counter "
     f"pass reads less than the compulsory DRAM bytes (`dram_bytes_ratio` "
     f"{min(low):.2f}-{max(low):.2f}, hot mode)", "counters: points below the compulsory bytes")
flagged = len(metric(K, "dram_bound_dropped_cache_resident", "AND m.value = 1"))
need(f"`dram_bound_dropped_cache_resident = 1`, on {flagged} points here", "counters: flagged points")

# --- Inputs and facts the prose quotes from the stores and machine files ------------------------
sizes = {m: (r, c, n) for m, r, c, n in q(S, "SELECT name, rows, cols, nnz FROM matrices GROUP BY name")}
fmt_size = lambda m: f"{sizes[m][0]:,} x {sizes[m][1]:,}, {sizes[m][2] / 1e6:.1f} M nonzeros"
need(f"| xct-256 ({fmt_size('xct-256')}, natural order) |", "Fig. 2(a) table: xct-256's size")
need(f"| xct-512-hilbert ({fmt_size('xct-512-hilbert')}, Hilbert order) |", "Fig. 2(a) table: xct-512-hilbert's size")
need(f"| banded-1m (bandwidth 16, {sizes['banded-1m'][2] / 1e6:.1f} M nonzeros) |", "Fig. 2(a) table: banded-1m")
need(f"| rmat-20 (scale 20, edge factor 16, {sizes['rmat-20'][2] / 1e6:.1f} M nonzeros) |", "Fig. 2(a) table: rmat-20")
r256 = sizes["xct-256"]
need(f"xct-256's {r256[0] / 1e3:.0f}k rows of about {r256[2] / r256[0]:.0f} nonzeros make only "
     f"{math.ceil(r256[0] / 1024)} blocks of 1024 rows", "Fig. 2(a): blocks of xct-256 (the page said 68)")
HC = "h200-x4/hierarchical-comm-gpu.db"
hr, hn = q(HC, "SELECT rows, nnz FROM matrices WHERE name = 'xct-256-hilbert' LIMIT 1")[0]
need(f"XCT 256 x 360 in Hilbert order, {hn / 1e6:.1f} M nonzeros, fp32", "Figs. 8-11: the matrix")
peer = re.search(r"src: 0, dst: 2, bandwidth_gbs: ([0-9.]+)", open(f"{ROOT}/roofline/machines/h200-x4.yaml").read())
eff = q(HC, "SELECT MIN(efficiency), MAX(efficiency) FROM pts WHERE status = 'ok'")[0]
need(f"(the NVLink link between the emulated nodes, {float(peer.group(1)):.0f} GB/s), so the points sit at "
     f"{rng(eff[0] * 100, eff[1] * 100, '{:.0f}')}% efficiency", "Figs. 8-11: the link and the efficiencies")
import csv as _csv
model = [r for r in _csv.DictReader(open(f"{ROOT}/results/hierarchical-comm-model.csv"))
         if r["ranks"] == "768" and r["precision"] == "fp32" and r["K"] == "64" and r["minibatch"] == "0"]
mb = {r["comm"]: float(r["bytes_global_total"]) for r in model}
need(f"{mb['direct'] / 1e6:.1f} to {mb['node'] / 1e6:.1f} MB for fp32 K = 64 ({(1 - mb['node'] / mb['direct']) * 100:.0f}%, "
     "`--model-only --ranks 768`)", "Figs. 8-11: the model at 768 GPUs")
W = "h200-x4/stationary-spmm-gpu.db"
comp = []
for kernel, m, n, pid in q(W, """SELECT kernel, matrix, json_extract(problem, '$.N'), id FROM (SELECT *, ROW_NUMBER()
        OVER (PARTITION BY kernel, matrix, problem ORDER BY time_median_s) rn FROM pts WHERE status = 'ok') WHERE rn = 1"""):
    if m in ("rmat-18-fig1", "banded-256k") and n in (128, 512):
        c_ = one(W, "SELECT value FROM metrics WHERE point_id = ? AND name = 'compute_s_avg'", pid)
        w_ = one(W, "SELECT value FROM metrics WHERE point_id = ? AND name = 'comm_s_avg'", pid)
        comp.append((c_, w_ / c_))
need(f"the local cuSPARSE products take at most {max(c for c, _ in comp) * 1e3:.1f} ms per execution on average over "
     f"the ranks (`compute_s_avg`) and the waits on communication at least {min(r for _, r in comp):.1f} times as long",
     "Table 2: communication dominates")
forbid("take under 1 ms", "Table 2: stationary C's products take 2.2 ms")
ns6 = q("netns/stationary-spmm.db", "SELECT MIN(n_samples), MAX(n_samples) FROM pts WHERE status = 'ok'")[0]
assert ns6[0] == ns6[1]
need(f"Every point is `noisy` ({ns6[0]} samples, intervals", "netns paper stationary: samples")
pad = {o: sorted({round(v, 2) for v in metric("h100/tiled-bank-order.db", "padding_overhead",
                 f"AND p.matrix LIKE 'xct%' AND json_extract(p.params, '$.nnz_order') = '{o}' AND p.kernel = 'spmm.cuda.tiled_pipe' "
                 "AND json_extract(p.problem, '$.layout') = 'col' AND json_extract(p.params, '$.register_tile') = 16")})
       for o in ("columns", "banks")}
assert len(pad["columns"]) == 1 and len(pad["banks"]) == 1, pad
need(f"for ELL padding of {pad['banks'][0]:.2f} instead of {pad['columns'][0]:.2f}", "bank order: padding")
nc = one("h100/gpu-counters.db", "SELECT COUNT(*) FROM points WHERE status = 'ok'")
need(f"on {nc} SpMM points", "gpu-counters: points")
lv = metric("h100/sptrsv-critical-path.db", "super_levels", "AND p.matrix = 'strip2d-2x20480'")
assert len(set(lv)) == 1
need(f"On the strip ({lv[0]:.0f} supernodal levels)", "sptrsv: the strip's levels")

# --- "How they compare with the papers": the new families' summaries ----------------------------
# GEMM (gemm-transfers, gemm-tile-size, gemm-scaling).
X = "h100/gemm-transfers.db"
tiles = metric(X, "tiles_gpu_avg")
model_tiles = metric(X, "model_tiles_gpu_avg")
assert tiles == model_tiles, "GEMM: the page says measured / model = 1 on every point"
assert all(abs(v - 1) < 5e-4 for v in metric(X, "ratio_tiles_gpu_eq1")), "GEMM: the page says exactly Eq. (1)"
X = "h100/gemm-tile-size.db"
peak = q(X, "SELECT gflops, id FROM pts WHERE status = 'ok' AND kernel = 'gemm.cuda.cublas' ORDER BY gflops DESC LIMIT 1")[0]
tb = {b: r for b, *r in q(X, """SELECT json_extract(params, '$.gpu_mem_budget'), gflops, id,
        json_extract(params, '$.t') FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY json_extract(params,
        '$.gpu_mem_budget') ORDER BY gflops DESC) rn FROM pts WHERE status = 'ok' AND kernel = 'gemm.cuda.tiled')
        WHERE rn = 1""")}
require_sound(X, [peak[1], tb[0][1], tb[4294967296][1]], "GEMM: share of cublasDgemm")
need(f"the best tiled point reaches {tb[4294967296][0] / peak[0] * 100:.0f}% of cublasDgemm with a 4 GiB budget "
     f"(the general case; the paper: 85-95%), but only {tb[0][0] / peak[0] * 100:.0f}% when everything fits the GPU "
     f"(budget 0)", "GEMM: tile-size sweep")
assert max(tb.values())[2] == 4096, "GEMM: the page says the best tile is t = 4096"
xt = q(X, "SELECT gflops, n_samples, noisy, json_extract(params, '$.xt_block') FROM pts WHERE status = 'ok' "
          "AND kernel = 'gemm.cuda.cublasxt'")
assert len(xt) == 1 and xt[0][3] == 0 and xt[0][2] == 1, "GEMM: the page says one noisy cublasXt point at block 0"
need(f"as one noisy {xt[0][1]}-sample point ({xt[0][0] / 1000:.1f} TFLOP/s), so the store gives no ratio against it",
     "GEMM: cublasXt")
forbid("faster than cublasXt", "GEMM: a comparison with a noisy cublasXt point")
X = "h100/gemm-scaling.db"
assert one(X, "SELECT COUNT(*) FROM pts WHERE status = 'ok' AND sound") == 0
lo, hi = q(X, "SELECT MIN(n_samples), MAX(n_samples) FROM pts WHERE status = 'ok'")[0]
need(f"every point is noisy ({lo}-{hi} samples), so that store supports no share of cublasDgemm",
     "GEMM: gemm-scaling")
forbid("33-76% of cublasDgemm", "GEMM: shares from noisy points")

# Triangular solve (sptrsv-speedup, sptrsv-critical-path).
X = "h100/sptrsv-speedup.db"
all_sound(X, "triangular solve: sptrsv-speedup")
sp = best(X, "", "matrix, kernel", "MIN(time_median_s)")
mats = sorted({m for m, _ in sp})
sup = [sp[(m, "sptrsv.cuda.cusparse")] / sp[(m, "sptrsv.cuda.supernodal")] for m in mats]
need(f"is {sup[0]:.2f}x, {sup[1]:.2f}x and {sup[2]:.2f}x faster than cusparseSpSV's solve", "sptrsv: supernodal")
slow = [sp[(m, k)] / sp[(m, "sptrsv.cuda.cusparse")] for m in mats for k in ("sptrsv.cuda.levelset", "sptrsv.cuda.syncfree")]
need(f"synchronisation-free kernels remain {rng(min(slow), max(slow), '{:.1f}')}x slower than cuSPARSE",
     "sptrsv: per-row kernels (issue 33: the page said 4.5-11x)")
X = "h100/sptrsv-critical-path.db"
mod = q(X, """SELECT p.kernel, p.sound, m.value FROM pts p JOIN metrics m ON m.point_id = p.id
    WHERE p.status = 'ok' AND m.name = 'model_over_measured'""")
ok = [(k, v) for k, snd, v in mod if snd]
within = collections.Counter(k for k, v in ok if 0.7 <= v <= 1.3)
assert len(within) == 2 and sum(within.values()) == len(ok), "sptrsv: the page says every sound modelled point is within 30%"
need(f"within 30% of the measured median on {sum(within.values())} of the {len(ok)} modelled points with enough "
     f"samples: {within['sptrsv.cuda.supernodal']} of the GPU supernodal kernel", "sptrsv: model")
need(f"and {within['sptrsv.cpu.distributed']} of the message-driven CPU solve; the other {len(mod) - len(ok)} "
     f"modelled points", "sptrsv: model, the rest")
forbid("9 of 16 modelled points", "sptrsv: the model's agreement counted on noisy points")
forbid("3.8-12.9x", "sptrsv: the CPU level-set overestimate from noisy points")
cp = best_ids(X, "matrix, json_extract(problem, '$.nrhs'), kernel")
tm = {k: one(X, "SELECT time_median_s FROM points WHERE id = ?", v) for k, v in cp.items()}
strip, cube = [(m, (tm[(m, 1, "sptrsv.cuda.cusparse")], tm[(m, 1, "sptrsv.cuda.supernodal")]))
               for m in ("strip2d-2x20480", "cube3d7-32-metis")]
require_sound(X, [cp[(m, 1, k)] for m in ("strip2d-2x20480", "cube3d7-32-metis")
                  for k in ("sptrsv.cuda.cusparse", "sptrsv.cuda.supernodal")], "sptrsv: nrhs 1 against cuSPARSE")
need(f"the supernodal kernel is {strip[1][0] / strip[1][1]:.1f}x cusparseSpSV at nrhs 1, on the cube (243 levels) "
     f"{cube[1][0] / cube[1][1]:.1f}x", "sptrsv: strip and cube")

# Eigensolvers (eigen-bytes-moved, eigen-cuda-graphs, eigen-gpu-bytes-cupti, eigen-out-of-core).
X = "h100/eigen-bytes-moved.db"
eb = {(k, json.loads(p)["gpu_mem_budget"], json.loads(p)["host_mem"], json.loads(p)["schedule"]): pid
      for k, p, pid in q(X, "SELECT kernel, params, id FROM points WHERE status = 'ok'")}
byts = lambda key: point_metric(X, eb[key], "h2d_bytes_per_iter")
fewer = [byts((k, b, "pinned", "kbk")) / byts((k, b, "pinned", "dag")) for k, b in
         (("eigen.cuda.lobpcg", 48000000), ("eigen.cuda.lobpcg", 96000000), ("eigen.cuda.lanczos", 40000000))]
need(f"the task DAG moves {fewer[0]:.2f}x (LOBPCG, 48 MB), {fewer[1]:.2f}x (LOBPCG, 96 MB) and {fewer[2]:.2f}x "
     f"(Lanczos, 40 MB) fewer host-to-device bytes", "eigen: bytes")
ns = q(X, "SELECT MIN(n_samples), MAX(n_samples) FROM pts WHERE status = 'ok'")[0]
assert ns == (1, 1), "eigen: the page says every point of eigen-bytes-moved has one sample"
need("Every point of eigen-bytes-moved.db has one sample, so the store gives no speedup of the DAG",
     "eigen: time ratios from single samples (issue 33)")
forbid("1.14x, 1.30x and 1.33x faster", "eigen: time ratios from single samples")
forbid("84-89%", "eigen: copy shares from single samples")
X = "h100/eigen-cuda-graphs.db"
gn = q(X, "SELECT MIN(n_samples), MAX(n_samples), MIN(noisy) FROM pts WHERE status = 'ok'")[0]
assert gn[2] == 1 and gn[1] < store_rules.MIN_SAMPLES
need(f"the CUDA-graph points have {gn[0]}-{gn[1]} samples each and all missed their confidence target, so the store "
     f"supports no ratio of graphs to stream launches", "eigen: CUDA graphs (issue 33)")
forbid("1.04-1.62x", "eigen: CUDA-graph speedups from the last repetition of noisy points")
host = metric(X, "host_task_s_per_iter", "AND json_extract(p.params, '$.schedule') = 'dag'")
need(f"waits {rng(min(host) * 1e3, max(host) * 1e3, '{:.0f}')} ms on its small dense solve on the host (the last "
     f"repetition of each in-core dag point)", "eigen: host solve")
need(f"LOBPCG's small dense solve on the host ({rng(min(host) * 1e3, max(host) * 1e3, '{:.0f}')} ms per iteration at "
     "block 48 there)", "eigen page: host solve", "eigen")
X = "h100/eigen-gpu-bytes-cupti.db"
rd = q(X, """SELECT (SELECT value FROM metrics WHERE point_id = p.id AND name = 'cupti:pcie__read_bytes.sum') /
    (SELECT value FROM metrics WHERE point_id = p.id AND name = 'h2d_bytes') FROM points p WHERE status = 'ok'""")
worst = max(abs(r[0] - 1) for r in rd) * 100
need(f"agree with CUPTI's PCIe read bytes within {worst:.1f}%", "eigen: CUPTI")
need(f"agree with CUPTI's read bytes within {worst:.1f}%", "eigen page: CUPTI", "eigen")
X = "h100/eigen-out-of-core.db"
ooc = {}
for op, m, hm, st, t_, pid, bw, ov in q(X, """SELECT json_extract(problem, '$.solver'), matrix,
        json_extract(params, '$.host_mem'), json_extract(params, '$.streams'), time_median_s, id,
        (SELECT value FROM metrics WHERE point_id = p.id AND name = 'h2d_bandwidth'),
        (SELECT value FROM metrics WHERE point_id = p.id AND name = 'overlap')
        FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY json_extract(problem, '$.solver'), matrix,
        json_extract(params, '$.host_mem'), json_extract(params, '$.streams') ORDER BY time_median_s) rn
        FROM pts WHERE status = 'ok' AND json_extract(params, '$.mode') = 'ooc') p WHERE rn = 1"""):
    ooc[(op, m, hm, st)] = (t_, pid, bw, ov)
inc = best_ids(X, "json_extract(problem, '$.solver'), matrix", "AND json_extract(params, '$.mode') = 'incore'")
require_sound(X, inc.values(), "eigen: in-core points")
one_bw = [v[2] / 1e9 for k, v in ooc.items() if k[2] == "pinned" and k[3] == 1]
need(f"reach {rng(min(one_bw), max(one_bw), '{:.0f}')} GB/s host-to-device on one stream", "eigen: pinned bandwidth")
ovl = [v[3] for k, v in ooc.items() if k[2] == "pinned" and k[3] == 2]
need(f"two streams overlap the copies with the compute ({rng(min(ovl), max(ovl))})", "eigen: overlap")
slower = [v[0] / one(X, "SELECT time_median_s FROM points WHERE id = ?", inc[k[:2]]) for k, v in ooc.items()
          if k[2] == "pinned" and sound(X, v[1])]
need(f"streamed operations are {rng(min(slower), max(slower), '{:.0f}')}x slower than in-core ones on the points with "
     f"enough samples", "eigen: streamed against in-core")
pg = [v[2] / 1e9 for k, v in ooc.items() if k[2] == "pageable"]
need(f"pageable memory reaches only {rng(min(pg), max(pg), '{:.1f}')} GB/s (last repetition)", "eigen: pageable")

# Minibatch pipelining (hierarchical-comm-gpu-pipeline).
X = "h100/hierarchical-comm-gpu-pipeline.db"
pp = {}
for comm, k, piped, t_, pid in q(X, """SELECT json_extract(params, '$.comm'), json_extract(problem, '$.K'),
        json_extract(params, '$.stages') > 1, time_median_s, id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY
        json_extract(params, '$.comm'), json_extract(problem, '$.K'), json_extract(params, '$.stages') > 1
        ORDER BY time_median_s) rn FROM pts WHERE status = 'ok') WHERE rn = 1"""):
    pp[(comm, k, piped)] = (t_, pid)
ov = [point_metric(X, pp[(c, k, 1)][1], "time_busy_overlap_s") * 1e3 for c in ("direct", "node") for k in (128, 256)]
mr = [point_metric(X, pp[(c, k, 1)][1], "pipeline_model_ratio") for c in ("direct", "node") for k in (128, 256)]
need(f"pipelined points overlap their phases ({rng(min(ov), max(ov), '{:.1f}')} ms of busy-time overlap) and their "
     f"wall time is within {rng((min(mr) - 1) * 100, (max(mr) - 1) * 100, '{:.0f}')}% of their pipeline model",
     "pipelining: overlap and model")
saved = {}
for c in ("direct", "node"):
    for k in (128, 256):
        (t1, i1), (tp, ip) = pp[(c, k, 0)], pp[(c, k, 1)]
        saved[(c, k)] = (1 - tp / t1) * 100 if sound(X, i1) and sound(X, ip) else None
assert saved[("direct", 128)] is None and saved[("direct", 256)] is None
need(f"pipelining saves {saved[('node', 256)]:.1f}% with the node reduction at K = 256 and is "
     f"{-saved[('node', 128)]:.1f}% slower at K = 128", "pipelining: saving against the best single stage (issue 33)")
forbid("saves at most 13.3%", "pipelining: the saving against the slowest single-stage algorithm")

# Budgeted tuning (tiled-spmm-h100).
X = "h100/tiled-spmm-h100.db"
all_sound(X, "budgeted tuning")
assert one(X, "SELECT COUNT(*) FROM points WHERE status = 'pruned'") == 0
bnd = [r[0] * 1e3 for r in q(X, "SELECT bound_s FROM points WHERE status = 'ok'")]
bt = sorted(r[0] * 1e3 for r in q(X, "SELECT MIN(time_median_s) FROM points WHERE status = 'ok' GROUP BY matrix"))
full = dict(q("h100/register-tiling.db", """SELECT matrix, MIN(time_median_s) FROM pts WHERE status = 'ok'
    AND kernel = 'spmm.cuda.tiled' GROUP BY matrix"""))
reach = [full[m] / t_ * 100 for m, t_ in q(X, "SELECT matrix, MIN(time_median_s) FROM points WHERE status = 'ok' "
                                              "GROUP BY matrix ORDER BY matrix")]
need(f"4 evaluations (Bayesian search, live roofline pruning on) reach {reach[0]:.1f}% and {reach[1]:.1f}% of the "
     "exhaustive optimum", "budgeted tuning: share of the optimum")
need(f"the bounds lie far below the best times ({rng(min(bnd), max(bnd))} ms against {bt[0]:.2f} and {bt[1]:.2f} ms)",
     "budgeted tuning: bounds")

# Issue 32's triangular-solve bar on 4 x H200 (sptrsv-scaling). The bar's times and ratios are
# also checked, with the baselines README and the sptrsv page, by sptrsv.bar_summary.
X = "h200-x4/sptrsv-scaling.db"
SP = ("sptrsv.cuda.persistent", "sptrsv.cuda.supernodal", "sptrsv.cuda.cusparse")
gf = {}
for mx in ("lap3d7-84", "lap3d27-70"):
    ids = best_ids(X, "kernel", f"AND matrix = '{mx}'")
    ids = {k[0]: i for k, i in ids.items()}
    require_sound(X, ids.values(), f"sptrsv-scaling: {mx}'s best points")
    gf[mx] = {k: one(X, "SELECT gflops FROM points WHERE id = ?", ids[k]) for k in SP}
    parts = one(X, "SELECT value FROM metrics WHERE point_id = ? AND name = 'parts'", ids[SP[0]])
    assert parts == 4, "sptrsv-scaling: the page calls the persistent solve's fastest point its 4-GPU point"
    # every point of a matrix records the whole solve's flops (a spread point is a one-rank job)
    fl = {r[0] for r in q(X, "SELECT DISTINCT flops FROM points WHERE status = 'ok' AND matrix = ?", mx)}
    assert len(fl) == 1, f"sptrsv-scaling: the page says every point of {mx} records the same flops: {fl}"
# speedup-over-supernodal: each kernel's best median time per matrix over the supernodal solve's
bt = {(r[0], r[1]): r[2] for r in q(X, "SELECT matrix, kernel, MIN(time_median_s) FROM points "
                                       "WHERE status = 'ok' GROUP BY 1, 2")}
sp = {(mx, k): bt[(mx, SP[1])] / bt[(mx, k)] for mx in ("lap3d7-84", "lap3d27-70") for k in SP}
need(f"the persistent solve's (its 4-GPU point) {sp[('lap3d7-84', SP[0])]:.2f}x and "
     f"{sp[('lap3d27-70', SP[0])]:.2f}x, cuSPARSE's best option set {sp[('lap3d7-84', SP[2])]:.2f}x and "
     f"{sp[('lap3d27-70', SP[2])]:.2f}x", "sptrsv-scaling: speedup-over-supernodal")
eff = q(X, "SELECT MIN(efficiency), MAX(efficiency) FROM points WHERE status = 'ok' AND kernel = ?", SP[0])[0]
need(f"the persistent points sit at {rng(100 * eff[0], 100 * eff[1], '{:.0f}')}% of their bound (the vendor's",
     "sptrsv-scaling: the persistent points on the roofline")
bar = {}
for mx in ("lap3d7-84", "lap3d27-70"):
    t = lambda where, *args: one(X, f"SELECT MIN(time_median_s) FROM pts p WHERE sound AND matrix = ? {where}",
                                 mx, *args)
    base = t("AND kernel IN (?, ?)", *SP[1:])
    best_k = one(X, "SELECT kernel FROM points WHERE status = 'ok' AND matrix = ? AND kernel IN (?, ?) "
                    "ORDER BY time_median_s LIMIT 1", mx, *SP[1:])
    assert best_k == SP[1], "sptrsv-scaling: the page names the supernodal solve the best single-GPU baseline"
    on = lambda g: t("AND kernel = ? AND (SELECT value FROM metrics WHERE point_id = p.id AND name = 'parts') = ?",
                     SP[0], g)
    p1, p2, p4 = on(1), on(2), on(4)
    assert base / p2 >= 1.5 and base / p4 >= 2.0 and not (p1 / p2 >= 1.5 and p1 / p4 >= 2.0), \
        f"sptrsv-scaling: {mx}: the page says the bar is met and the strict reading is not"
    strict = min(base, p1)
    bar[mx] = (f"{base / p2:.2f}x and {base / p4:.2f}x", f"{strict / p2:.2f}x and {strict / p4:.2f}x")
need(f"is {bar['lap3d7-84'][0]} the best single-GPU baseline (the supernodal solve) on lap3d7-84 and "
     f"{bar['lap3d27-70'][0]} on lap3d27-70, so the bar (1.5x and 2x) is met; over the persistent solve's own "
     f"one-GPU time it is {bar['lap3d7-84'][1]}, and {bar['lap3d27-70'][1]}, so a stricter reading is not met",
     "sptrsv-scaling: the bar")
mom = [r[0] for r in q(X, "SELECT m.value FROM metrics m JOIN points p ON p.id = m.point_id WHERE p.status = 'ok' "
                          "AND p.kernel = ? AND m.name = 'model_over_measured'", SP[0])]
inside = sum(1 for v in mom if 0.7 <= v <= 1.3)
assert inside / len(mom) >= 0.8, "sptrsv-scaling: the page says the model's share meets the bar"
need(f"within 30% of the measured median on {inside} of {len(mom)} persistent points (the bar asks 80%)",
     "sptrsv-scaling: the model's share")

# --- docs/guides/tuning.md: the Kernel Tuner comparison (results/tuning/, generated by compare.py) --
TR = TEXT["tuning-results"]
# The H100 spaces are the committed store's sweeps: their optimum (rooftune's replay) is the store's
# best time (issue 33: they came from an earlier register-tiling.db).
import csv as _csv2
opt = {r["space"]: float(r["optimum"]) for r in _csv2.DictReader(open(f"{ROOT}/results/tuning/rooftune_replay_h100.csv"))}
for sp, o in sorted(opt.items()):
    m = sp[len("h100-register-tiling-"):]
    b = one("h100/register-tiling.db", """SELECT MIN(time_median_s) FROM points WHERE status = 'ok' AND kernel =
        'spmm.cuda.tiled' AND matrix = ? AND problem = '{"K":64,"layout":"col","precision":"fp32","seed":1}'""", m)
    if abs(o - b) > 1e-9 * b:
        failures.append(f"tuning: the space {sp} has optimum {o!r}, the committed register-tiling.db {b!r}: the page "
                        "calls it the committed store's sweep")
need("The `h100-*` spaces are the full sweeps of the committed store results/baselines/h100/register-tiling.db",
     "tuning results: provenance of the H100 spaces", "tuning-results")
need("the two full sweeps (40 configurations each) of the committed store `results/baselines/h100/register-tiling.db`",
     "tuning.md: provenance of the H100 spaces", "tuning")
short, runs = re.search(r"Kernel Tuner: (\d+) of (\d+) runs short", TR).groups()
need(f"{short} of {runs} Kernel Tuner runs used fewer distinct evaluations than the budget", "tuning.md: early stops", "tuning")
met, pairs = re.search(r"scores at least Kernel Tuner's best in (\d+) of (\d+)", TR).groups()
need(f"it is below in {int(pairs) - int(met)} of the {pairs} (space, budget) pairs", "tuning.md: pairs below", "tuning")
early = re.search(r"in (\d+) of the \d+ Kernel Tuner's best strategy used fewer", TR).group(1)
need(f"and in {early} of the {pairs} Kernel Tuner's best strategy stopped short of the budget in some runs",
     "tuning.md: early stops of the best strategies", "tuning")
bar = {}
for r in re.finditer(r"\| (\d+) \| (\d+) \| (-?[0-9.]+) \| (-?[0-9.]+) \| (\S+|\*\*no\*\*) \| (\S+) (-?[0-9.]+) \| (\S+) "
                     r"(-?[0-9.]+) \| (\S+|\*\*no\*\*) \| ([0-9.]+) / ([0-9.]+) \|", TR):
    bar[int(r.group(1))] = r.groups()
BAR = [b_ for b_ in (20, 50, 100, 200) if b_ in bar]


def listing(items):
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


per_yes = [f"{b_} ({bar[b_][2]} vs {bar[b_][3]})" for b_ in BAR if bar[b_][4] == "yes"]
per_no = [f"{b_} ({bar[b_][2]} vs {bar[b_][3]})" for b_ in BAR if bar[b_][4] != "yes"]
need("Mean score of each tool's best strategy per space: rooftune >= Kernel Tuner at " + listing(per_yes) +
     ("" if not per_no else "; below at " + listing(per_no)), "tuning.md: per-space bar", "tuning")
one_yes = [f"{b_} ({bar[b_][5]} {bar[b_][6]} vs {bar[b_][7]} {bar[b_][8]})" for b_ in BAR if bar[b_][9] == "yes"]
one_no = [f"{b_} ({bar[b_][5]} {bar[b_][6]} vs {bar[b_][7]} {bar[b_][8]})" for b_ in BAR if bar[b_][9] != "yes"]
need("One strategy for every space (no choice per space): rooftune >= Kernel Tuner at " + listing(one_yes) +
     ("" if not one_no else ", below at " + listing(one_no)), "tuning.md: one-strategy bar", "tuning")
p100 = re.search(r"At budget 100, rooftune's best strategy reaches ([0-9.]+)% of the optimum", TR).group(1)
k100 = re.search(r"At budget 100, Kernel Tuner's best strategy reaches ([0-9.]+)% of the optimum", TR).group(1)
need(f"At budget 100 rooftune's best strategy per space reaches {p100}% of the optimum on average (the bar: 95%; "
     f"Kernel Tuner's best: {k100}%); the best single strategy ({bar[100][5]}) reaches {bar[100][11]}%",
     "tuning.md: budget 100", "tuning")

# --- The generated section: ci/new-families-tables.py prints it from the stores ----------------------
generated = subprocess.run([sys.executable, f"{ROOT}/ci/new-families-tables.py", f"{BASE}/h100"],
                           capture_output=True, text=True, check=True).stdout
need(generated, "the section printed by ci/new-families-tables.py")
# The Hopper summary quotes the paper store's bar table: the per-layout verdicts and the
# compulsory traffic (issue 33: it took a nominal byte count; the store's model and CUPTI say less).
bar_table = generated[generated.index("(tiled-spmm-vs-cusparse.db)"):]
bar_table = bar_table[:bar_table.index("\n### ")]
v = {lo: re.search(rf"Over the locality-rich matrices, {lo}: geometric mean ([0-9.]+) \(bar 2.0: ([a-z ]+)\); "
                   rf"lowest ([0-9.]+) \(bar 1.2: ([a-z ]+)\)", bar_table).groups() for lo in ("row-major", "column-major")}
assert v["row-major"][1] == "not met" and v["column-major"][1] == "met" and v["column-major"][3] == "met"
need(f"the bar is not met row-major against row-major (geometric mean {v['row-major'][0]}, lowest "
     f"{v['row-major'][2]}) and is met column-major against column-major (geometric mean "
     f"{v['column-major'][0]}, lowest {v['column-major'][2]})", "Hopper summary: the bar per layout")
model, cupti, pct = re.search(r"traffic model \((\d+) MB; CUPTI counted (\d+) MB read and written\) over its median "
                              r"time move \d+ GB/s, (\d+)% of the probed", bar_table).groups()
need(f"met on banded-1m at K = 32: the best Tiled point moves the {model} MB that its traffic model puts through "
     f"DRAM (CUPTI counted {cupti} MB) at {pct}% of the probed DRAM bandwidth", "Hopper summary: compulsory traffic")
forbid("74% of the probed DRAM bandwidth", "Hopper summary: the nominal byte count (issue 33)")
nruns, nbuild = q(S, "SELECT COUNT(*), COUNT(DISTINCT build_id || config_hash) FROM runs")[0]
assert nbuild == 1, "the page says the paper store's runs are of one build and config"
need(f"in the paper config's store ({store_rules.number_word(nruns)} runs of one build and config;",
     "Hopper summary: the store's runs (issue 33: not 'the same run')")
# "Measured in the same run" is said only where a store holds one run (issue 33).
for path in sorted(glob.glob(f"{BASE}/h100/*.db")):
    rel = path[len(BASE) + 1:]
    if one(rel, "SELECT COUNT(*) FROM runs") > 1:
        forbid(f"measured in the same run ({rel.split('/')[1]})", f"{rel}: several runs, not one")
forbid("in the same run (run complete", "the generated tables' old wording (issue 33)")

print(f"figures README: {checked} statements checked against the stores, {len(failures)} wrong")
for f in failures:
    print("FAIL " + f)
sys.exit(1 if failures else 0)
