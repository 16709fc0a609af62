#!/usr/bin/env python3
"""rooftune and Kernel Tuner side by side on a kernel-spec example (issue 36, item 6).

Both tune the 2D convolution of examples/user/conv2d (conv2d.cu as it is in the repository, the
parameters as #defines in both tools) over the same space on the same GPU, one after the other,
exhaustively:

- rooftune: `rooftune run` of an experiment config written here (the spec examples/user/conv2d/
  spec.yaml, this space, search exhaustive); from its store: the best verified point, the points
  evaluated (recorded, not infeasible), and the wall time of the command (process start, inputs,
  the reference, NVRTC compiles into a fresh variant cache, verification and adaptive timing).
- Kernel Tuner: kernel_tuner.tune_kernel(lang="cupy", or "nvcuda" where the GPU host's Python
  has CUDA Python but not CuPy; strategy="brute_force") with the same
  tune_params, restrictions, grid divisors and dynamic shared memory, its default 7 iterations per
  configuration, the answer from NumPy and a normwise check with rooftune's tolerance; the wall
  time of the call (compiles, verification, benchmarking).

The space restricts the staged tile to 48 KiB (Kernel Tuner's CuPy backend does not raise a
kernel's dynamic shared-memory limit), and both tools skip the same configurations. Each tool's
time for its best configuration is its own statistic (rooftune: the median of its adaptive
repetitions; Kernel Tuner: the mean of its 7 iterations); since both swept the same space, each
tool's time for the other's best configuration is in its results too, and the table shows both.

Writes OUT/user_side_by_side.md (the table), .csv, .json (every configuration of both tools),
OUT/rooftune.db (the store, its config text inside) and OUT/rooftune.log.

usage: user_side_by_side.py --rooftune build-gpu/rooftune --out DIR [--w 2048 --h 2048]
"""
import argparse
import csv
import json
import os
import platform
import sqlite3
import subprocess
import sys
import time

import numpy as np

SPACE = {
    "block_size_x": [32, 64, 128],
    "block_size_y": [2, 4, 8],
    "tile_x": [1, 2],
    "tile_y": [1, 2, 4],
    "use_shared": [0, 1],
}
KEYS = list(SPACE)
FW = FH = 15
NORMWISE = 1e-5  # the spec's tolerance.normwise


def shared_bytes(p):
    return p["use_shared"] * 4 * (p["block_size_x"] * p["tile_x"] + FW - 1) * (
        p["block_size_y"] * p["tile_y"] + FH - 1)


# The spec's constraints, and the 48 KiB staging limit, in rooftune's and in Python's syntax.
SHARED = "4 * (block_size_x * tile_x + %d) * (block_size_y * tile_y + %d)" % (FW - 1, FH - 1)
RT_CONSTRAINTS = ["block_size_x * block_size_y >= 32", "block_size_x * block_size_y <= 1024",
                  "use_shared == 0 || %s <= 49152" % SHARED]
KT_RESTRICTIONS = ["block_size_x * block_size_y >= 32", "block_size_x * block_size_y <= 1024",
                   "use_shared == 0 or %s <= 49152" % SHARED]


def key_of(p):
    return tuple(int(p[k]) for k in KEYS)


def run_rooftune(args, out):
    # The config and the variant cache stay out of OUT, which comes back from the GPU host.
    cfg = "/tmp/rooftune-user-side-by-side-%d.yaml" % os.getpid()
    spec = os.path.abspath("examples/user/conv2d/spec.yaml")
    with open(cfg, "w") as f:
        f.write("experiment: {name: user-side-by-side}\n")
        f.write("user_kernels: [%s]\n" % spec)
        f.write("matrices: [{name: user, generator: banded, rows: 1, bandwidth: 1}]\n")
        f.write("problem: {w: [%d], h: [%d], fw: [%d], fh: [%d]}\n" % (args.w, args.h, FW, FH))
        f.write("kernels:\n  - name: conv2d.cuda.tiled\n    params:\n")
        for k in KEYS:
            f.write("      %s: [%s]\n" % (k, ", ".join(str(v) for v in SPACE[k])))
        f.write("    constraints:\n")
        for c in RT_CONSTRAINTS:
            f.write('      - "%s"\n' % c)
        f.write("search: {strategy: exhaustive}\n")
        f.write("measure: {warmup: 1, min_reps: 7, max_reps: 50, max_time_s: 0.25}\n")
    db = os.path.join(out, "rooftune.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    env = dict(os.environ, ROOFTUNE_CACHE_DIR="/tmp/rooftune-sbs-cache-%d" % os.getpid())
    t0 = time.perf_counter()
    with open(os.path.join(out, "rooftune.log"), "w") as log:
        rc = subprocess.call([args.rooftune, "run", cfg, "--db", db], stdout=log,
                             stderr=subprocess.STDOUT, env=env)
    wall = time.perf_counter() - t0
    if rc not in (0, 1):
        sys.exit("rooftune run failed (exit %d); see %s/rooftune.log" % (rc, out))
    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT params, status, time_median_s FROM points WHERE kernel='conv2d.cuda.tiled'")
    times, statuses = {}, {}
    for params, status, t in rows:
        p = json.loads(params)
        statuses[key_of(p)] = status
        if status == "ok":
            times[key_of(p)] = t * 1e3
    device = con.execute("SELECT device FROM runs ORDER BY id DESC LIMIT 1").fetchone()[0]
    evaluated = sum(1 for s in statuses.values() if s not in ("infeasible", "pruned"))
    return {"times_ms": times, "statuses": statuses, "evaluated": evaluated, "wall_s": wall,
            "device": device}


def reference(image, filt, w, h):
    """The convolution in float64, one filter tap at a time."""
    out = np.zeros((h, w))
    for j in range(FH):
        for i in range(FW):
            out += image[j:j + h, i:i + w].astype(np.float64) * float(filt[j, i])
    return out.astype(np.float32).ravel()


def run_kernel_tuner(args, out):
    import kernel_tuner
    rng = np.random.default_rng(7)
    w, h = args.w, args.h
    image = rng.uniform(-1, 1, (h + FH - 1, w + FW - 1)).astype(np.float32)
    filt = rng.uniform(0, 1, (FH, FW)).astype(np.float32)
    answer = reference(image, filt, w, h)
    arguments = [np.zeros(w * h, dtype=np.float32), image.ravel(), filt.ravel(), np.int32(w),
                 np.int32(h), np.int32(FW), np.int32(FH)]

    def verify(ans, result, atol=None):
        got, want = np.asarray(result[0], dtype=np.float64), ans[0].astype(np.float64)
        return bool(np.linalg.norm(got - want) <= NORMWISE * np.linalg.norm(want))

    with open("examples/user/conv2d/conv2d.cu") as f:
        source = f.read()
    t0 = time.perf_counter()
    results, env = kernel_tuner.tune_kernel(
        "conv2d", source, (w, h), arguments, dict(SPACE), grid_div_x=["block_size_x", "tile_x"],
        grid_div_y=["block_size_y", "tile_y"], restrictions=KT_RESTRICTIONS,
        answer=[answer] + [None] * 6, verify=verify, lang=args.lang, strategy="brute_force",
        smem_args={"size": shared_bytes}, iterations=7, quiet=True)
    wall = time.perf_counter() - t0
    times = {}
    for r in results:
        t = r.get("time")
        if isinstance(t, (int, float)):
            times[key_of(r)] = float(t)
    return {"times_ms": times, "evaluated": len(results), "wall_s": wall,
            "version": kernel_tuner.__version__, "device": env.get("device_name", ""),
            "backend": BACKEND_NAMES[args.lang]}


# Kernel Tuner's backends that compile with NVRTC as rooftune does: CuPy's, else CUDA Python's
# (cuda.bindings), whichever the GPU host's Python holds.
BACKEND_NAMES = {"cupy": "CuPy", "nvcuda": "CUDA Python (cuda.bindings)"}


def pick_backend():
    for lang, module in (("cupy", "cupy"), ("nvcuda", "cuda.bindings.driver")):
        try:
            __import__(module)
            return lang
        except ImportError:
            continue
    sys.exit("neither CuPy nor CUDA Python (cuda.bindings) imports: Kernel Tuner has no backend")


def fmt(p):
    return " ".join("%s=%d" % (k, v) for k, v in zip(KEYS, p))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rooftune", default="build-gpu/rooftune")
    ap.add_argument("--out", default="results/user-side-by-side")
    ap.add_argument("--w", type=int, default=2048)
    ap.add_argument("--h", type=int, default=2048)
    ap.add_argument("--lang", choices=["auto", "cupy", "nvcuda"], default="auto")
    args = ap.parse_args()
    if args.lang == "auto":
        args.lang = pick_backend()
    os.makedirs(args.out, exist_ok=True)
    rt = run_rooftune(args, args.out)
    kt = run_kernel_tuner(args, args.out)
    rt_best = min(rt["times_ms"], key=rt["times_ms"].get)
    kt_best = min(kt["times_ms"], key=kt["times_ms"].get)
    space = sum(1 for _ in np.ndindex(*[len(v) for v in SPACE.values()]))
    rows = []
    for tool, res, best, other in (("rooftune", rt, rt_best, kt), ("Kernel Tuner", kt, kt_best, rt)):
        rows.append({
            "tool": tool,
            "best configuration": fmt(best),
            "its time, own measure (ms)": "%.4f" % res["times_ms"][best],
            "its time, other tool's measure (ms)":
                "%.4f" % other["times_ms"][best] if best in other["times_ms"] else "n/a",
            "configurations evaluated": res["evaluated"],
            "wall time (s)": "%.1f" % res["wall_s"],
            "evaluations per second": "%.2f" % (res["evaluated"] / res["wall_s"]),
        })
    stamp = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    git = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True,
                         text=True).stdout.strip()
    with open(os.path.join(args.out, "user_side_by_side.md"), "w") as f:
        f.write("# rooftune and Kernel Tuner on the 2D convolution kernel spec\n\n")
        f.write("%s, device %s, rooftune %s, Kernel Tuner %s (%s backend), Python %s; problem "
                "%d x %d, filter %d x %d; space of %d configurations, %d after the restrictions "
                "(both tools), swept exhaustively by each. Made by "
                "bench/kernel-tuner/user_side_by_side.sh.\n\n" %
                (stamp, rt["device"], git, kt["version"], kt["backend"], platform.python_version(), args.w,
                 args.h, FW, FH, space, kt["evaluated"]))
        f.write("rooftune's time is the median of its adaptive repetitions (at least 7); Kernel "
                "Tuner's the mean of its 7 iterations. rooftune's wall time includes its process, "
                "the inputs, the host reference and the store; Kernel Tuner's the tune_kernel "
                "call.\n\n")
        head = list(rows[0])
        f.write("| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n")
        for r in rows:
            f.write("| " + " | ".join(str(r[k]) for k in head) + " |\n")
    with open(os.path.join(args.out, "user_side_by_side.csv"), "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    with open(os.path.join(args.out, "user_side_by_side.json"), "w") as f:
        json.dump({"space": SPACE, "problem": {"w": args.w, "h": args.h, "fw": FW, "fh": FH},
                   "rooftune_ms": {fmt(k): v for k, v in rt["times_ms"].items()},
                   "rooftune_status": {fmt(k): v for k, v in rt["statuses"].items()},
                   "kernel_tuner_ms": {fmt(k): v for k, v in kt["times_ms"].items()},
                   "rows": rows}, f, indent=1)
    print(open(os.path.join(args.out, "user_side_by_side.md")).read())


if __name__ == "__main__":
    main()
