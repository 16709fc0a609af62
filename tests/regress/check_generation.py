#!/usr/bin/env python3
"""results.generation: results/tuning/generations/<gpu>/README.md against its data. The store
(gen-<gpu>.db.xz) holds three clean complete runs with the point counts the page states; the
table of best configurations is the tuning database's own (regenerated here and compared); the
noisy counts are the summary's.

usage: check_generation.py ROOT [--readme=PATH] [--write]   (--write: print the table)"""
import json
import lzma
import os
import re
import sqlite3
import sys
import tempfile

root = sys.argv[1]
folder = os.path.join(root, "results/tuning/generations/h200")
readme = next((a.split("=", 1)[1] for a in sys.argv[2:] if a.startswith("--readme=")),
              os.path.join(folder, "README.md"))
DROP = {"allow_spills", "fail_rank", "ipc_deny", "seed"}


def problem(kernel, p):
    p = json.loads(p)
    if kernel.startswith("gemm"):
        return f"N {p['N']}, {p['precision']}"
    if kernel.startswith("spdnn"):
        return f"{p['layers']} layers, {p['features']} features"
    return f"K {p['K']}, {p['precision']}, {p['layout']}"


def table(db):
    lines = ["| kernel | input | problem | best configuration | time (ms) |", "|---|---|---|---|---|"]
    for k, m, pr, pa, t in db.execute(
            "SELECT kernel, matrix, problem, params, time_s FROM tuning ORDER BY kernel, matrix, problem"):
        conf = ", ".join(f"{n} {v}" for n, v in json.loads(pa).items() if n not in DROP)
        lines.append(f"| `{k}` | {m} | {problem(k, pr)} | {conf} | {t * 1e3:.4f} |")
    return "\n".join(lines)


tuned = sqlite3.connect(os.path.join(folder, "tuned-h200.db"))
if "--write" in sys.argv:
    print(table(tuned))
    sys.exit(0)
text = open(readme).read()
failures = []
if table(tuned) not in text:
    failures.append("the table of best configurations is not tuned-h200.db's")
n = tuned.execute("SELECT COUNT(*) FROM tuning").fetchone()[0]
if f"the tuning database: {n} entries" not in text:
    failures.append(f"the page should count {n} tuning entries")
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "gen.db")
    with open(path, "wb") as f:
        f.write(lzma.open(os.path.join(folder, "gen-h200.db.xz")).read())
    db = sqlite3.connect(path)
    runs = db.execute("SELECT git_dirty, status, (SELECT COUNT(*) FROM points p WHERE p.run_id = runs.id), "
                      "(SELECT COUNT(*) FROM points p WHERE p.run_id = runs.id AND status = 'infeasible') "
                      "FROM runs ORDER BY id").fetchall()
    revs = {r[0][:7] for r in db.execute("SELECT git_revision FROM runs")}
    db.close()
want = [(0, "complete", 820, 700), (0, "complete", 48, 16), (0, "complete", 34, 0)]
if runs != want:
    failures.append(f"gen-h200.db: want clean complete runs {want}, got {runs}")
if revs != {"d48ff42"} or "clean tree d48ff42" not in text:
    failures.append(f"gen-h200.db: revision {revs}, the page says d48ff42")
summary = open(os.path.join(folder, "gen-h200.txt")).read()
for cfg, phrase in (("spdnn", "of the 32 measured sparse-DNN points"), ("gemm", "of the 34 GEMM points")):
    m = re.search(rf"tune generation-{cfg}:.*\n.*, (\d+) noisy", summary)
    if not m or f"{m.group(1)} {phrase}" not in " ".join(text.split()):
        failures.append(f"the page should count {m.group(1) if m else '?'} noisy {cfg} points")
guide = " ".join(open(os.path.join(root, "docs/guides/tuning.md")).read().split())
walls = dict(re.findall(r"tune generation-(\w+): exit 0, ([\d.]+) s wall", summary))
want = (f"{walls.get('tiled')} s for the Tiled configs", f"{walls.get('spdnn')} s for the sparse-DNN layer",
        f"{walls.get('gemm')} s for GEMM; {n} tuning entries")
for w in want:
    if w not in guide:
        failures.append(f"docs/guides/tuning.md should say '{w}'")
for f in failures:
    print("FAIL", f)
print(f"generation notes: {len(failures)} wrong")
sys.exit(1 if failures else 0)
