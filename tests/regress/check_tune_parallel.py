#!/usr/bin/env python3
"""results.tune_parallel: the parallel-tuning table of results/tuning/parallel/<host>/README.md and
the sentence of docs/guides/tuning.md are the runs' own: wall times from NAME.time, speedups over the
serial run rounded to two places, the bar's verdicts, and every store one clean complete run of 64
points.

usage: check_tune_parallel.py ROOT [--readme=PATH]"""
import os
import sqlite3
import sys

root = sys.argv[1]
folder = os.path.join(root, "results/tuning/parallel/h200-x4")
readme = os.path.join(folder, "README.md")
for a in sys.argv[2:]:
    if a.startswith("--readme="):
        readme = a[len("--readme="):]
text = open(readme).read()
guide = " ".join(open(os.path.join(root, "docs/guides/tuning.md")).read().split())
failures = []
wall = {n: float(open(os.path.join(folder, n + ".time")).read()) for n in
        ("serial", "gpus2", "gpus4", "ranks2", "ranks4")}
for name, t in wall.items():
    rows = sqlite3.connect(os.path.join(folder, name + ".db")).execute(
        "SELECT git_dirty, status, (SELECT COUNT(*) FROM points) FROM runs").fetchall()
    if rows != [(0, "complete", 64)]:
        failures.append(f"{name}.db: want one clean complete run of 64 points, got {rows}")
labels = {"gpus2": "`--parallel gpus --workers 2`", "gpus4": "`--parallel gpus --workers 4`",
          "ranks2": "`mpirun -np 2 ... --parallel ranks`", "ranks4": "`mpirun -np 4 ... --parallel ranks`"}
for name, label in labels.items():
    speedup = wall["serial"] / wall[name]
    need = 1.7 if name.endswith("2") else 3.4
    verdict = "met" if speedup >= need else "not met"
    row = f"| {label} | {wall[name]:.2f} | {speedup:.2f} | yes | >= {need}x: {verdict}"
    if row not in text:
        failures.append(f"README row should start '{row}'")
if f"| serial (one GPU) | {wall['serial']:.2f} |" not in text:
    failures.append("README: the serial row's wall time")
s2, s4 = wall["serial"] / wall["gpus2"], wall["serial"] / wall["gpus4"]
r2, r4 = wall["serial"] / wall["ranks2"], wall["serial"] / wall["ranks4"]
want = f"{s2:.2f}x faster on 2 GPUs and {s4:.2f}x on 4 than one GPU did, and MPI ranks"
for w in (want, f"--parallel ranks`) {r2:.2f}x and {r4:.2f}x"):
    if w not in guide:
        failures.append(f"docs/guides/tuning.md should say '{w}'")
spans = {}
for name in ("serial", "gpus4"):
    db = sqlite3.connect(os.path.join(folder, name + ".db"))
    span, setup = db.execute("SELECT (julianday(MAX(measured_at)) - julianday(MIN(measured_at))) * 86400, "
                             "SUM(setup_s) FROM points").fetchone()
    for w in (f"in {span:.0f} s of its {wall[name]:.2f} s", f"{setup:.1f} s"):
        if w not in text:
            failures.append(f"README should say '{w}' ({name}: measuring span, set-up sum)")
    spans[name] = span
# what the 4 workers would reach with the serial run's overhead, and the ideal measuring span
est = wall["serial"] / (spans["gpus4"] + wall["serial"] - spans["serial"])
for w in (f"would reach about {est:.1f}x", f"the ideal {spans['serial'] / 4:.1f} s ({spans['serial']:.0f} s over 4)"):
    if w not in text:
        failures.append(f"README should say '{w}'")
for f in failures:
    print("FAIL", f)
print(f"tune parallel notes: {len(failures)} wrong")
sys.exit(1 if failures else 0)
