#!/usr/bin/env python3
"""results.user_side_by_side: what docs/families/user.md says of the committed Kernel Tuner side by
side (results/baselines/<host>/user-side-by-side/) is the data's own: the table's provenance line
names the store's revision, device and Kernel Tuner's backend, and 'Both tools found the same best
configuration' holds only when the two rows' best configurations are equal.

usage: check_side_by_side.py ROOT [--page=PATH] (a copy in place of the page, so a test can prove
a wrong statement fails)."""
import csv
import os
import sqlite3
import sys

root = sys.argv[1]
page = os.path.join(root, "docs/families/user.md")
for a in sys.argv[2:]:
    if a.startswith("--page="):
        page = a[len("--page="):]
text = " ".join(open(page).read().split())
failures = []


def check_folder(host, numbers):
    """The folder's table against the page: same best configuration, provenance; numbers: whether
    the page states this run's evaluation counts, wall times and rates."""
    folder = os.path.join(root, "results/baselines", host, "user-side-by-side")
    rows = {r["tool"]: r for r in csv.DictReader(open(os.path.join(folder, "user_side_by_side.csv")))}
    same = rows["rooftune"]["best configuration"] == rows["Kernel Tuner"]["best configuration"]
    claims_same = "Both tools found the same best configuration on both GPUs" in text
    if same != claims_same:
        failures.append(f"{host}: the page {'says' if claims_same else 'does not say'} both tools "
                        f"found the same best configuration; the table says {same}")
    run = sqlite3.connect(os.path.join(folder, "rooftune.db")).execute(
        "SELECT git_revision, git_dirty, status, device FROM runs").fetchall()
    if len(run) != 1 or run[0][1] != 0 or run[0][2] != "complete":
        failures.append(f"{host}: the side by side's store should hold one clean complete run: {run}")
        return
    rev, device = run[0][0][:7], run[0][3]
    table = open(os.path.join(folder, "user_side_by_side.md")).read()
    if f"device {device}, rooftune {rev}" not in table:
        failures.append(f"{host}: the table's provenance line does not name the store's device and revision")
    backend = "CuPy" if "(CuPy backend)" in table else "CUDA Python"
    if f"clean tree {rev}, Kernel Tuner 1.5.0 with {backend}" not in text:
        failures.append(f"{host}: the page should say 'clean tree {rev}, Kernel Tuner 1.5.0 with {backend}'")
    if numbers:
        r, k = rows["rooftune"], rows["Kernel Tuner"]
        want = (f"rooftune evaluated {r['configurations evaluated']} configurations in "
                f"{r['wall time (s)']} s ({r['evaluations per second']} a second), Kernel Tuner "
                f"{k['configurations evaluated']} in {k['wall time (s)']} s "
                f"({k['evaluations per second']} a second)")
        if want not in text:
            failures.append(f"{host}: the page should say '{want}'")
        faster = "Kernel Tuner" if float(k["wall time (s)"]) < float(r["wall time (s)"]) else "rooftune"
        if f"so {faster} is the faster of the two at sweeping this space" not in text:
            failures.append(f"{host}: the page should name {faster} the faster at sweeping")


check_folder("h100", True)
check_folder("h200-x4", False)
for f in failures:
    print("FAIL", f)
print(f"side by side notes: {len(failures)} wrong")
sys.exit(1 if failures else 0)
