#!/usr/bin/env python3
"""results.tune_parallel: the parallel-tuning table of results/tuning/parallel/<host>/README.md and
the sentence of docs/guides/tuning.md are the runs' own: wall times from NAME.time, speedups over the
serial run rounded to two places, the bar's verdicts, and every store one clean complete run of 64
points.

usage: check_tune_parallel.py ROOT [--readme=PATH] [--readme2=PATH]"""
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import tempfile

root = sys.argv[1]


def readme_of(folder, option):
    """The folder's README.md, or the copy --OPTION=PATH names (a test's changed page)."""
    for a in sys.argv[2:]:
        if a.startswith(f"--{option}="):
            return a[len(option) + 3:]
    return os.path.join(folder, "README.md")


folder = os.path.join(root, "results/tuning/parallel/h200-x4")
text = open(readme_of(folder, "readme")).read()
guide = " ".join(open(os.path.join(root, "docs/guides/tuning.md")).read().split())
failures = []


def walls_of_clean_runs(folder, label, names):
    """Each run's wall time (NAME.time), after checking its store holds one clean, complete run of
    the 64 points."""
    walls = {}
    for name in names:
        walls[name] = float(open(os.path.join(folder, name + ".time")).read())
        rows = sqlite3.connect(os.path.join(folder, name + ".db")).execute(
            "SELECT git_dirty, status, (SELECT COUNT(*) FROM points) FROM runs").fetchall()
        if rows != [(0, "complete", 64)]:
            failures.append(f"{label}/{name}.db: want one clean complete run of 64 points, got {rows}")
    return walls


def phases_of(folder, names, walls=None):
    """What ci/tune-phases.py prints for each NAME.db of the folder (with --wall from walls, if given)."""
    out = {}
    for n in names:
        cmd = [sys.executable, os.path.join(root, "ci/tune-phases.py"), os.path.join(folder, n + ".db")]
        if walls:
            cmd += ["--wall", str(walls[n])]
        out[n] = subprocess.run(cmd, capture_output=True, text=True).stdout
    return out


def compile_sum(folder, name):
    """NVRTC seconds summed over the points of the folder's NAME.db (metric compile_s)."""
    return sqlite3.connect(os.path.join(folder, name + ".db")).execute(
        "SELECT SUM(value) FROM metrics WHERE name = 'compile_s'").fetchone()[0]


wall = walls_of_clean_runs(folder, "h200-x4", ("serial", "gpus2", "gpus4", "ranks2", "ranks4"))
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

# The 2-GPU host (results/tuning/parallel/h200-x2): its table's rows, its stores clean and complete,
# the phase figures its prose quotes as ci/tune-phases.py prints them from the stores, and the
# energy points it counts.
folder2 = os.path.join(root, "results/tuning/parallel/h200-x2")
text2 = open(readme_of(folder2, "readme2")).read()


wall2 = walls_of_clean_runs(folder2, "h200-x2", ("serial", "gpus2", "ranks2", "noabort", "abort", "energy"))
if f"| serial (one GPU) | {wall2['serial']:.2f} |" not in text2:
    failures.append("h200-x2 README: the serial row's wall time")
for name in ("gpus2", "ranks2"):
    speedup = wall2["serial"] / wall2[name]
    verdict = "met" if speedup >= 1.7 else "not met"
    row = f" | {wall2[name]:.2f} | {speedup:.2f} | yes | >= 1.7x: {verdict} |"
    if row not in text2:
        failures.append(f"h200-x2 README: a row ending '{row}'")
for name in ("noabort", "abort", "energy"):
    if f"{wall2[name]:.2f} s" not in text2:
        failures.append(f"h200-x2 README should give {name}'s wall time {wall2[name]:.2f} s")
phases = phases_of(folder2, ("serial", "gpus2", "ranks2"))
prose = " ".join(text2.split())
quoted = {"serial": ("busy 44.49", "repetitions 9.34", "setup 23.34", "NVRTC compiles 0.52",
                     "verify 8.75", "finish 2.47"),
          "gpus2": ("measuring 24.76 s against the ideal 23.53 s",),
          "ranks2": ("measuring 24.60 s against the ideal 21.47 s", "waiting 4.35", "35 point(s)",
                     "29 point(s)")}
for name, items in quoted.items():
    for q in items:
        if q not in phases[name]:
            failures.append(f"h200-x2/{name}.db: tune-phases.py does not print '{q}'")
        words = q.split()
        number = words[1] if q.startswith("measuring") else words[0] if "point(s)" in q else words[-1]
        if q.startswith("measuring"):
            number = words[-2]  # the ideal; the measuring span is checked below as well
            if words[1] not in prose:
                failures.append(f"h200-x2 README does not quote {words[1]} ({name}: '{q}')")
        if number.rstrip("s") and number not in prose:
            failures.append(f"h200-x2 README does not quote {number} ({name}: '{q}')")
g2, r2_ = wall2["serial"] / wall2["gpus2"], wall2["serial"] / wall2["ranks2"]
for w in (f"tuned {g2:.2f}x faster with 2 worker processes and {r2_:.2f}x with 2 MPI ranks",
          "measured for 24.76 s against an ideal 23.53 s"):
    if w not in guide:
        failures.append(f"docs/guides/tuning.md should say '{w}'")
db = sqlite3.connect(os.path.join(folder2, "energy.db"))
have = db.execute("SELECT COUNT(*) FROM metrics WHERE name = 'energy_j' AND value IS NOT NULL").fetchone()[0]
if f"{have} of the 64" not in prose or f"on {have} of the 64 points" not in guide:
    failures.append(f"h200-x2 README: {have} of the 64 points have energy_j")
aborted = sqlite3.connect(os.path.join(folder2, "abort.db")).execute(
    "SELECT COUNT(*) FROM metrics WHERE name = 'abort_best_s'").fetchone()[0]
if aborted != 0 or "no point aborted" not in prose:
    failures.append(f"h200-x2: {aborted} aborted points against the README's 'no point aborted'")
# After the prefetch (prefetch-e5a616a): its two stores clean and complete, its table's rows from
# the .time files, and the phase figures its prose quotes.
folder3 = os.path.join(folder2, "prefetch-e5a616a")
wall3 = walls_of_clean_runs(folder3, "prefetch-e5a616a", ("serial", "gpus2"))
if f"| serial (one GPU) | {wall3['serial']:.2f} |" not in text2:
    failures.append("h200-x2 README: the prefetch table's serial row")
s3 = wall3["serial"] / wall3["gpus2"]
row3 = f"| `--parallel gpus --workers 2` | {wall3['gpus2']:.2f} | {s3:.2f} | yes | >= 1.7x: {'met' if s3 >= 1.7 else 'not met'} |"
if row3 not in text2:
    failures.append(f"h200-x2 README: the prefetch row '{row3}'")
ph3 = phases_of(folder3, ("serial", "gpus2"))
for name, q, number in (("gpus2", "first point 2.16", "2.16"), ("serial", "first point at 2.23", "2.23"),
                        ("gpus2", "to 9.67 s", "9.67"), ("gpus2", "from 10.25 to", "10.25"),
                        ("gpus2", "matrix banded-1m at 9.67 for 0.00", "9.67 for 0.00"),
                        ("serial", "NVRTC compiles 0.66", "0.66"), ("gpus2", "NVRTC compiles 0.31", "0.31")):
    if q not in ph3[name]:
        failures.append(f"prefetch-e5a616a/{name}.db: tune-phases.py does not print '{q}'")
    if number not in prose:
        failures.append(f"h200-x2 README does not quote {number} ({name}: '{q}')")
if f"tuned it {s3:.2f}x faster than one GPU in the same call ({wall3['gpus2']:.2f} s against {wall3['serial']:.2f} s)" not in guide:
    failures.append("docs/guides/tuning.md: the prefetch run's speedup and wall times")
fresh = open(os.path.join(folder3, "fresh-machine-tune-parallel.txt")).read()
for q in ("58.88 s wall", "NVRTC compiles 5.75", "speedup 2.31x", "speedup 1.89x"):
    if q not in fresh:
        failures.append(f"fresh-machine-tune-parallel.txt does not say '{q}'")
# The 4 x H200 README's compile-time bias: the serial and 2-worker stores' compile_s sums.
folder4 = os.path.join(root, "results/tuning/parallel/h200-x4")
text4 = " ".join(open(readme_of(folder4, "readme")).read().split())
for name in ("serial", "gpus2"):
    total = compile_sum(folder4, name)
    if f"{total:.2f} s" not in text4:
        failures.append(f"h200-x4 README should give {name}'s compile time {total:.2f} s")
# The tuning guide's per-point cost on the H200: its numbers are the committed bench output's.
cost = open(os.path.join(folder2, "point-cost-8a4d8b0.txt")).read()
start = guide.find("On an H200 (32 cores,")
para = guide[start:start + 600] if start >= 0 else ""  # the guide is whitespace-joined
if not para:
    failures.append("docs/guides/tuning.md lost its per-point cost on the H200")
for q in ("292.8 ms", "157.3 ms", "51.30 s", "setup 28.06", "verify 8.21"):
    if q not in cost:
        failures.append(f"point-cost-8a4d8b0.txt does not print '{q}'")
    number = q.split()[1] if q.startswith(("setup", "verify")) else q.split()[0]
    if number not in para:
        failures.append(f"docs/guides/tuning.md's H200 point cost does not quote {number}")
# The 4 x H200 run after the prefetch (prefetch-b15bef8): its stores clean and complete, its table's
# rows from the .time files, the NVRTC compile sums behind the bias paragraph and the estimate made
# from them, and the phase figures the prose quotes.
folder5 = os.path.join(folder4, "prefetch-b15bef8")
wall5 = walls_of_clean_runs(folder5, "prefetch-b15bef8", ("serial", "gpus2", "gpus4", "ranks2", "ranks4"))
if f"| serial (one GPU) | {wall5['serial']:.2f} | 1.00 |" not in text4:
    failures.append("h200-x4 README: the b15bef8 serial row")
for name, label in labels.items():
    sp = wall5["serial"] / wall5[name]
    need = 1.7 if name.endswith("2") else 3.4
    row = f"| {label} | {wall5[name]:.2f} | {sp:.2f} | yes |"
    if row not in text4 or f">= {need}x: {'met' if sp >= need else 'not met'}" not in text4:
        failures.append(f"h200-x4 README: the b15bef8 row '{row}' and its verdict")
compiles = {n: compile_sum(folder5, n) for n in wall5}
for n, c in compiles.items():
    if f"{c:.2f} s" not in text4:
        failures.append(f"h200-x4 README: {n}'s NVRTC time {c:.2f} s (b15bef8)")
cheap = sum(compiles[n] for n in ("gpus2", "gpus4", "ranks2", "ranks4")) / 4
adjusted = wall5["serial"] - (compiles["serial"] - cheap)
for w in (f"about {adjusted:.1f} s", f"{compiles['serial'] - cheap:.1f} s difference",
          f"4 workers would be about {adjusted / wall5['gpus4']:.1f}x",
          f"2 workers about {adjusted / wall5['gpus2']:.1f}x", f"4 ranks about {adjusted / wall5['ranks4']:.1f}x",
          f"({adjusted / wall5['ranks2']:.2f}x, under the bar)"):
    if w not in text4:
        failures.append(f"h200-x4 README should say '{w}' (the b15bef8 compile-time estimate)")
ph5 = phases_of(folder5, ("serial", "gpus4", "ranks4"))
for name, q, number in (("gpus4", "first point at 2.91", "2.91 s"), ("gpus4", "mpi 1.94", "mpi 1.94"),
                        ("gpus4", "backend 0.64", "backend 0.64"), ("gpus4", "45.52 s busy", "45.52 s"),
                        ("gpus4", "the ideal 11.38 s", "11.38 s"), ("gpus4", "measuring 12.25 s", "12.25 s"),
                        ("gpus4", "tail 0.65 s", "0.65 s"), ("gpus4", "workers end 0.38", "0.38 s"),
                        ("serial", "first point at 2.67", "2.67 s"), ("serial", "mpi 1.49", "mpi 1.49"),
                        ("serial", "busy 47.19", "47.19 s"), ("ranks4", "mpi 0.49", "0.49 s"),
                        ("ranks4", "waiting 2.12", "2.12 s")):
    if q not in ph5[name]:
        failures.append(f"prefetch-b15bef8/{name}.db: tune-phases.py does not print '{q}'")
    if number not in text4:
        failures.append(f"h200-x4 README does not quote {number} ({name}: '{q}')")
sp5 = {n: wall5["serial"] / wall5[n] for n in labels}
want5 = (f"2 workers tuned it {sp5['gpus2']:.2f}x faster and 4 workers {sp5['gpus4']:.2f}x, 2 ranks "
         f"{sp5['ranks2']:.2f}x and 4 ranks {sp5['ranks4']:.2f}x")
for w in (want5, f"the serial run compiled for {compiles['serial']:.2f} s",
          f"the 4 workers are about {adjusted / wall5['gpus4']:.1f}x"):
    if w not in guide:
        failures.append(f"docs/guides/tuning.md should say '{w}' (4 x H200, b15bef8)")
# The tuning guide's critical-path section reads the same b15bef8 stores: the workers' MPI start,
# CUDA start, readiness and first inputs as ranges over the four workers, the ranks' CUDA start.
def phase_range(db, like, phase, col, folder=folder5):
    """min-max over the processes matching LIKE of PHASE's duration (col 'd') or end ('e')."""
    expr = "end_s - begin_s" if col == "d" else "end_s"
    lo, hi = sqlite3.connect(os.path.join(folder, db)).execute(
        f"SELECT MIN(v), MAX(v) FROM (SELECT MIN({expr}) AS v FROM phases WHERE process LIKE ? AND phase = ? "
        "GROUP BY process)", (like, phase)).fetchone()
    return f"{lo:.2f}-{hi:.2f}"


crit = guide[guide.find("Start-up and the critical path"):]
for what, rng in (("workers' MPI_Init", phase_range("gpus4.db", "worker %", "mpi", "d")),
                  ("workers' CUDA start", phase_range("gpus4.db", "worker %", "backend", "d")),
                  ("workers' CUDA done", phase_range("gpus4.db", "worker %", "backend", "e")),
                  ("workers ready", "%.2f-%.2f" % (lambda r: (min(r), max(r)))(
                      [float(x) for x in re.findall(r"worker \d \(GPU \d\): start [-\d.]+, ready ([\d.]+)", ph5["gpus4"])])),
                  ("first inputs", phase_range("gpus4.db", "worker %", "inputs and reference", "d")),
                  ("ranks' CUDA start", phase_range("ranks4.db", "%", "backend", "d"))):
    if f"{rng} s" not in crit and f"({rng} s)" not in crit and f"{rng}" not in crit:
        failures.append(f"docs/guides/tuning.md's critical path should give the {what} as {rng} s")

# The cold-cache run (cold-6187187): its stores clean and complete, its table's rows from the .time
# files, the NVRTC sums and the phase figures its prose quotes as ci/tune-phases.py prints them.
folder6 = os.path.join(folder4, "cold-6187187")
wall6 = walls_of_clean_runs(folder6, "cold-6187187", ("serial", "gpus2", "gpus4", "ranks2", "ranks4"))
if f"| serial (one GPU) | {wall6['serial']:.2f} | 1.00 |" not in text4:
    failures.append("h200-x4 README: the 6187187 serial row")
for name, label in labels.items():
    sp = wall6["serial"] / wall6[name]
    need = 1.7 if name.endswith("2") else 3.4
    row = f"| {label} | {wall6[name]:.2f} | {sp:.2f} | yes | yes | >= {need}x: {'met' if sp >= need else 'not met'} |"
    if row not in text4:
        failures.append(f"h200-x4 README: the 6187187 row '{row}'")
for n in wall6:
    c = compile_sum(folder6, n)
    if f"{c:.2f} s" not in text4:
        failures.append(f"h200-x4 README: {n}'s NVRTC time {c:.2f} s (6187187)")
ph6 = phases_of(folder6, ("serial", "gpus4", "ranks4"), wall6)
for name, q, number in (("gpus4", "first point at 2.19", "2.19 s"), ("serial", "first point at 1.30", "1.30 s"),
                        ("gpus4", "backend 1.77", "1.77 s"), ("serial", "backend 1.08", "1.08 s"),
                        ("gpus4", "50.21 s busy", "50.21 s"), ("serial", "44.34 s busy", "44.34 s"),
                        ("gpus4", "the ideal 12.55 s", "12.55 s"), ("gpus4", "measuring 13.21 s", "13.21 s"),
                        ("gpus4", "tail 0.23 s", "0.23 s"), ("gpus4", "tail 0.96 s", "0.96 s"),
                        ("gpus4", "workers end 0.32", "workers end 0.32"), ("gpus4", "outside 0.22 s", "0.22 s"),
                        ("gpus4", "ready 1.84", "(1.84 s)"), ("ranks4", "waiting 4.89", "waiting 4.89")):
    if q not in ph6[name]:
        failures.append(f"cold-6187187/{name}.db: tune-phases.py does not print '{q}'")
    if number not in text4:
        failures.append(f"h200-x4 README does not quote {number} ({name}: '{q}', 6187187)")
for what, rng in (("workers' CUDA done", phase_range("gpus4.db", "worker %", "backend", "e", folder6)),
                  ("ranks' waiting", "%.2f-%.2f" % (lambda r: (min(r), max(r)))(
                      [float(x) for x in re.findall(r"rank \d \(GPU \d\): .* waiting ([\d.]+)", ph6["ranks4"])]))):
    if rng not in text4:
        failures.append(f"h200-x4 README should give the {what} as {rng} (6187187)")

# The second machine (summary only) and the CUDA-start experiment: the figures the page quotes
# are the files' own.
second = os.path.join(folder6, "second-machine-2f5763f")
summ = open(os.path.join(second, "tune-parallel.txt")).read()
for name in ("serial", "gpus2", "gpus4", "gpus4-omp"):
    m = re.search(rf"^{re.escape(name)}: exit 0, ([\d.]+) s wall", summ, re.M)
    if not m or f"{m.group(1)} s" not in text4:
        failures.append(f"h200-x4 README should quote the second machine's {name} wall time")
for m in re.finditer(r"^  (gpus\S+) vs serial: speedup ([\d.]+)x", summ, re.M):
    if f"({m.group(2)}x" not in text4:
        failures.append(f"h200-x4 README should quote {m.group(1)}'s {m.group(2)}x (second machine)")
scen, totals = None, {}
for line in open(os.path.join(second, "cuda-start.txt")):
    if re.match(r"^[A-E]: ", line):
        scen = line[0]
    m = re.search(r"vis=(\S+)\s.* total ([\d.]+)", line)
    if m:
        totals.setdefault((scen, m.group(1) == "all"), []).append(float(m.group(2)))
for key in (("A", True), ("B", False), ("C", False)):
    rng = f"{min(totals[key]):.2f}-{max(totals[key]):.2f} s"
    if rng not in text4:
        failures.append(f"h200-x4 README should give scenario {key[0]}'s CUDA start as {rng}")
d = totals[("D", True)] + totals[("D", False)]
if f"({min(d):.2f}-{max(d):.2f} s)" not in text4:
    failures.append(f"h200-x4 README should give scenario D as {min(d):.2f}-{max(d):.2f} s")

# The rounds (rounds-b43bf99): the stores, from their archive, each one clean complete run; the
# table's wall times, medians and speedups from the .time files; the ranges the prose quotes as
# ci/tune-phases.py prints them from the stores.
folder7 = os.path.join(folder4, "rounds-b43bf99")
with tempfile.TemporaryDirectory() as tmp7:
    with tarfile.open(os.path.join(folder7, "stores.tar.xz")) as tar:
        tar.extractall(tmp7, filter="data") if hasattr(tarfile, "data_filter") else tar.extractall(tmp7)
    for f in os.listdir(folder7):
        if f.endswith(".time"):
            open(os.path.join(tmp7, f), "w").write(open(os.path.join(folder7, f)).read())
    runs7 = [f"{m}-r{r}" for m in ("serial", "gpus2", "gpus4") for r in range(1, 5)] + \
        ["serial-noahead", "gpus2-noahead", "gpus4-noahead", "ranks2", "ranks4"]
    wall7 = walls_of_clean_runs(tmp7, "rounds-b43bf99", runs7)
    if sorted(f for f in os.listdir(tmp7) if f.endswith(".db")) != sorted(r + ".db" for r in runs7):
        failures.append("rounds-b43bf99/stores.tar.xz: want exactly the 17 stores of the page")
    ph7 = phases_of(tmp7, runs7, wall7)
med7 = {m: statistics.median(wall7[f"{m}-r{r}"] for r in range(1, 5)) for m in ("serial", "gpus2", "gpus4")}
for m, label in (("serial", "serial (one GPU)"), ("gpus2", labels["gpus2"]), ("gpus4", labels["gpus4"])):
    walls = " ".join(f"{wall7[f'{m}-r{r}']:.2f}" for r in range(1, 5))
    row = f"| {label} | {walls} | {med7[m]:.2f} | {med7['serial'] / med7[m]:.2f} |"
    if row not in text4:
        failures.append(f"h200-x4 README: the rounds row '{row}'")
    if m != "serial":
        per = " ".join(f"{wall7[f'serial-r{r}'] / wall7[f'{m}-r{r}']:.2f}" for r in range(1, 5))
        need = 1.7 if m == "gpus2" else 3.4
        verdict = "met" if med7["serial"] / med7[m] >= need else "**not met**"
        if f"| {per} | yes | >= {need}x: {verdict} |" not in text4:
            failures.append(f"h200-x4 README: {m}'s per-round ratios '{per}' and verdict")
summ7 = open(os.path.join(folder7, "tune-parallel.txt")).read()
for r in range(1, 5):
    for m in ("gpus2", "gpus4"):
        if f"{m}-r{r} vs serial-r{r}: speedup" not in summ7 or \
                not re.search(rf"{m}-r{r} vs serial-r{r}: .* same verified points: yes, same best point in every sweep: yes", summ7):
            failures.append(f"rounds-b43bf99/tune-parallel.txt: {m}-r{r} not the serial run's points and best")


def range7(names, pattern, fn=float, agg=None):
    vals = []
    for n in names:
        found = [fn(x) for x in re.findall(pattern, ph7[n])]
        vals.extend([agg(found)] if agg else found)
    return vals


g4 = [f"gpus4-r{r}" for r in range(1, 5)]
se = [f"serial-r{r}" for r in range(1, 5)]


def quoted(what, vals, fmt="{:.2f}-{:.2f} s"):
    want = fmt.format(min(vals), max(vals))
    if want not in text4:
        failures.append(f"h200-x4 README should give {what} as '{want}' (rounds-b43bf99)")


quoted("the first sweep's tails", range7(g4, r"sweep 1 .*tail ([\d.]+) s"))
quoted("the overlaps", range7(g4, r"overlapped ([\d.]+) s"), "for {:.2f}-{:.2f} s")
quoted("the last sweep's tails", range7(g4, r"sweep 2 .*tail ([\d.]+) s"))
quoted("the serial NVRTC off the path", range7(se, r"\(([\d.]+) s NVRTC off"))
quoted("the serial NVRTC on the path", range7(se, r"NVRTC compiles ([\d.]+) of"), "{:.2f}-{:.2f} s left")
quoted("the serial busy times", range7(se, r"\(([\d.]+) s busy over"))
quoted("the 4 workers' busy times", range7(g4, r"\(([\d.]+) s busy over"))
quoted("the serial verification", range7(se, r"verify ([\d.]+)"), "verify {:.2f}-{:.2f} s")
quoted("the 4 workers' first points", range7(g4, r"first point at ([\d.]+)"), "at {:.2f}-{:.2f} s")
quoted("the serial first points", range7(se, r"first point at ([\d.]+)"), "against {:.2f}-{:.2f} s")
quoted("workers end", range7(g4 + ["gpus4-noahead"], r"workers end ([\d.]+)"), "({:.2f}-{:.2f} s)")
for n, pat, want in (("serial-noahead", r"NVRTC compiles ([\d.]+) of", "against {} s without the pool"),
                     ("serial-noahead", r"\(([\d.]+) s busy over", "against {} s without it"),
                     ("serial-noahead", r"verify ([\d.]+)", "against {} s)"),
                     ("ranks2", r"rank 1 .*waiting ([\d.]+)", "waited {} s")):
    v = re.findall(pat, ph7[n])
    if not v or want.format(v[0]) not in text4:
        failures.append(f"h200-x4 README should say '{want.format(v[0] if v else '?')}' ({n})")
for n in ("serial", "gpus2", "gpus4"):
    if f"{wall7[n + '-noahead']:.2f} s" not in text4:
        failures.append(f"h200-x4 README: the noahead {n} wall time")
for g in ("2", "4"):
    if f"{wall7['serial-noahead'] / wall7['gpus' + g + '-noahead']:.2f}x" not in text4:
        failures.append(f"h200-x4 README: the noahead ratio of {g} workers")
    if f"{med7['serial'] / wall7['ranks' + g]:.2f}x" not in text4 or f"{wall7['ranks' + g]:.2f} s" not in text4:
        failures.append(f"h200-x4 README: ranks{g} against the rounds' serial median")
ahead = {n: sum(int(x) for x in re.findall(r"(\d+) compiled ahead \(", ph7[n])) for n in ("serial-r1", "gpus4-r1", "gpus2-r1")}
if f"compiled only {ahead['gpus4-r1']} of 64 points ahead" not in text4 or f"{ahead['gpus2-r1']} with 2 workers" not in text4 \
        or f"compiled {ahead['serial-r1']} of their 32 variants ahead" not in text4:
    failures.append(f"h200-x4 README: the points compiled ahead {ahead}")
chk7 = open(os.path.join(folder7, "check.log")).read()
m7 = re.search(r"(\d+)% tests passed.* out of (\d+)", chk7)
if not m7 or m7.group(1) != "100" or f"{m7.group(2)} of {m7.group(2)} passed" not in text4:
    failures.append("h200-x4 README: the GPU check's count (rounds-b43bf99/check.log)")
# The tuning guide quotes the same rounds and the second machine's omp stage.
g4r = [wall7[f"serial-r{r}"] / wall7[f"gpus4-r{r}"] for r in range(1, 5)]
om = re.search(r"^  gpus4-omp vs serial: speedup ([\d.]+)x", summ, re.M)
om4 = re.search(r"^  gpus4 vs serial: speedup ([\d.]+)x", summ, re.M)
tails1 = range7(g4, r"sweep 1 .*tail ([\d.]+) s")
overl = range7(g4, r"overlapped ([\d.]+) s")
busy_se = range7(se, r"[(]([\d.]+) s busy over")
for w in (f"{med7['serial'] / med7['gpus4']:.2f}x, the median of 4 rotated cold rounds",
          f"(per round {min(g4r):.2f}-{max(g4r):.2f}x)", f"{med7['serial'] / med7['gpus2']:.2f}x with 2",
          f"{wall6['serial'] / wall6['gpus4']:.2f}x with 4 workers in one run",
          f"tail is {min(tails1):.2f}-{max(tails1):.2f} s", f"by {min(overl):.2f}-{max(overl):.2f} s",
          f"compiled {ahead['serial-r1']} of their 32 variants ahead", f"compiled {ahead['gpus4-r1']} of 64 points ahead",
          f"({min(busy_se):.2f}-{max(busy_se):.2f} s"):
    if w not in guide:
        failures.append(f"docs/guides/tuning.md should say '{w}' (rounds-b43bf99)")
if not om or not om4 or f"({om.group(1)}x against {om4.group(1)}x" not in guide:
    failures.append("docs/guides/tuning.md: the omp stage's ratio against the share's (second machine)")
for f in failures:
    print("FAIL", f)
print(f"tune parallel notes: {len(failures)} wrong")
sys.exit(1 if failures else 0)
