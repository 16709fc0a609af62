#!/usr/bin/env python3
"""Where a tuning run's wall time went, from its store's `phases` table (issue 35 item 3): what
ci/gpu-tune-parallel.sh prints under each run, so that one measurement on the GPU host says
where a parallel run loses against the serial one.

    python3 ci/tune-phases.py STORE [--wall SECONDS] [--name NAME]

All times are seconds since the run's main process started (its main function); --wall is the
run's wall time as measured outside (the script's clock), so `outside` is what no phase covers:
the program's loading before main, and after the record ends the store's close, the tuning
harvest, the CUDA and MPI teardown and the exit. Lines:

  NAME: wall W s; record E s, outside W - E s; first point at F s, last point ends at L s;
        measuring L - F s against the ideal B / P s (the points' busy time over the P measuring
        processes)
  main: mpi (or "mpi skipped": no launcher started it), config, gpu count, spawn, backend,
        check, store; each matrix (and its build ahead, --parallel gpus); workers end
  one line per process that measured: start, ready, first point, last point, exit; points, busy
        (and its steps: inputs, setup, verify, repetitions, finish; of the setup, the NVRTC
        compiles on the points' path: their compile_s metric, 0 for a cache hit; beside them the
        compiles done ahead on the compile-ahead pool's threads, off the path (measure.compile_ahead:
        how many points, compile_ahead_s summed) and how long points waited for one still
        running, compile_wait_s, which is part of their setup), waiting (between its first
        point's start and its last point's end, the time it measured nothing); the sweeps' inputs
        and references built in place (as a sweep began) and ahead (in a thread before it)
  one line per sweep: its points, first start and last end, the tail (the longest a process of
        the sweep sat idle after its last point of the sweep, until the sweep's last point ended
        or its own next point began: with --parallel gpus the next sweep's points start during a
        sweep's tail, which the tail then does not count), and, when the next sweep's first
        point began before this one's last point ended, "overlapped" by how much

A store without a phases table (written before it existed) is said to be, exit status 2."""
import argparse
import sqlite3
import sys

STEPS = ("inputs", "setup", "verify", "repetitions", "finish")
MAIN_PHASES = ("mpi", "config", "gpu count", "spawn", "backend", "check", "store")


def fmt(x):
    return "-" if x is None else "%.2f" % x


def load(db):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    have = con.execute(
        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'phases'").fetchone()[0]
    if not have:
        return None, None, None
    run = con.execute("SELECT MAX(run_id) FROM phases").fetchone()[0]
    rows = con.execute(
        "SELECT h.process, h.gpu, h.phase, h.point_key, h.begin_s, h.end_s, p.kernel, p.matrix,"
        " p.problem FROM phases h LEFT JOIN points p ON p.point_key = h.point_key"
        " AND p.run_id = h.run_id WHERE h.run_id = ? ORDER BY h.begin_s", (run,)).fetchall()
    compile_s = {}
    for key, metric, value in con.execute(
            "SELECT p.point_key, m.name, m.value FROM points p JOIN metrics m ON m.point_id = p.id"
            " AND m.name IN ('compile_s', 'compiled_ahead', 'compile_ahead_s', 'compile_wait_s')"
            " AND m.available = 1 WHERE p.run_id = ?", (run,)).fetchall():
        compile_s.setdefault(key, {})[metric] = value
    return run, rows, compile_s


def order_key(name):
    kind, _, num = name.partition(" ")
    return (kind != "main", kind, int(num) if num.isdigit() else 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store")
    ap.add_argument("--wall", type=float, help="the run's wall time measured outside, seconds")
    ap.add_argument("--name", default=None, help="the run's name in the first line")
    a = ap.parse_args()
    try:
        run, rows, compile_s = load(a.store)
    except sqlite3.Error as e:
        print("tune-phases: %s: %s" % (a.store, e), file=sys.stderr)
        return 2
    if rows is None:
        print("tune-phases: %s has no phases table (a store written before runs recorded their "
              "phases)" % a.store, file=sys.stderr)
        return 2
    name = a.name or a.store
    procs = {}
    for proc, gpu, phase, key, b, e, kernel, matrix, problem in rows:
        p = procs.setdefault(proc, {"gpu": gpu, "phases": {}, "points": [], "steps": {}})
        if phase == "point":
            p["points"].append((b, e, (kernel, matrix, problem)))
            c = compile_s.get(key, {})
            if "compile_s" in c:
                p["compile"] = p.get("compile", 0.0) + c["compile_s"]
            if c.get("compiled_ahead", 0) > 0:
                p["ahead_n"] = p.get("ahead_n", 0) + 1
                p["ahead_s"] = p.get("ahead_s", 0.0) + c.get("compile_ahead_s", 0.0)
            p["ahead_wait"] = p.get("ahead_wait", 0.0) + c.get("compile_wait_s", 0.0)
        elif key:
            p["steps"][phase] = p["steps"].get(phase, 0.0) + (e - b)
        else:
            p["phases"].setdefault(phase, []).append((b, e))
    main_p = procs.get("main")
    if not main_p:
        print("tune-phases: %s: run %s has no phases of its main process" % (a.store, run),
              file=sys.stderr)
        return 2
    end = main_p["phases"].get("end", [(None, None)])[0][0]
    # A process "measures" when it measured a point that ran (the coordinator of worker processes
    # records the infeasible ones itself, in no time).
    measuring = {n: p for n, p in procs.items() if any(e - b > 1e-3 for b, e, _ in p["points"])}
    all_points = [pt for p in measuring.values() for pt in p["points"]]
    first = min((b for b, _, _ in all_points), default=None)
    last = max((e for _, e, _ in all_points), default=None)
    busy = sum(e - b for b, e, _ in all_points)
    line = "%s: wall %s s; record %s s" % (name, fmt(a.wall), fmt(end))
    if a.wall is not None and end is not None:
        line += ", outside %s s" % fmt(a.wall - end)
    if first is not None:
        line += "; first point at %s s, last point ends at %s s; measuring %s s against the ideal " \
                "%s s (%s s busy over %d process(es))" % (
                    fmt(first), fmt(last), fmt(last - first), fmt(busy / len(measuring)),
                    fmt(busy), len(measuring))
    print(line)

    def took(p, phase):
        spans = p["phases"].get(phase)
        return None if not spans else sum((e or b) - b for b, e in spans)

    parts = ["%s %s" % (ph, fmt(took(main_p, ph))) for ph in MAIN_PHASES if took(main_p, ph) is not None]
    # A process no launcher started starts no MPI ("mpi skipped"), unless a kernel asks for it
    # later (its "mpi" phase then says when)
    if "mpi skipped" in main_p["phases"]:
        late = main_p["phases"].get("mpi")
        parts = [p for p in parts if not p.startswith("mpi ")]
        parts.insert(0, "mpi skipped" + (" (started at %s for %s)" % (fmt(late[0][0]), fmt(
            took(main_p, "mpi"))) if late else ""))
    mats = sorted((b, ph[len("matrix "):], e - b) for ph, spans in main_p["phases"].items()
                  if ph.startswith("matrix ") for b, e in spans)
    parts += ["matrix %s at %s for %s" % (m, fmt(b), fmt(d)) for b, m, d in mats]
    # --parallel gpus: each matrix built ahead, in a thread of main (its workers map it)
    ahead = sorted((b, ph[len("prefetch matrix "):], e - b) for ph, spans in main_p["phases"].items()
                   if ph.startswith("prefetch matrix ") for b, e in spans)
    parts += ["prefetch %s at %s for %s" % (m, fmt(b), fmt(d)) for b, m, d in ahead]
    if took(main_p, "workers end") is not None:
        parts.append("workers end %s" % fmt(took(main_p, "workers end")))
    print("  main: " + ", ".join(parts))

    for proc in sorted(measuring, key=order_key):
        p = procs[proc]
        start = p["phases"].get("start", [(None, None)])[0][0]
        if start is None and proc != "main":
            start = None
        ready = max((e for ph in ("backend", "check", "go") for _, e in p["phases"].get(ph, [])),
                    default=None)
        exits = [b for ph in ("exit", "bye", "end") for b, _ in p["phases"].get(ph, [])]
        pts = p["points"]
        f = min(b for b, _, _ in pts)
        l = max(e for _, e, _ in pts)
        b_sum = sum(e - b for b, e, _ in pts)
        steps = ", ".join("%s %s" % (s, fmt(p["steps"][s])) for s in STEPS if s in p["steps"])
        if "compile" in p:
            steps += "; NVRTC compiles %s of the setup" % fmt(p["compile"])
        if p.get("ahead_n"):
            steps += ", %d compiled ahead (%s s NVRTC off the path, %s s waited for)" % (
                p["ahead_n"], fmt(p["ahead_s"]), fmt(p.get("ahead_wait", 0.0)))
        # the sweeps' inputs and references: built as a sweep began (in place) or in a thread
        # before it (ahead, --parallel gpus workers)
        inputs = ""
        if took(p, "inputs and reference") is not None or took(p, "inputs and reference ahead"):
            inputs = "; inputs and reference %s s in place, %s s ahead" % (
                fmt(took(p, "inputs and reference") or 0.0),
                fmt(took(p, "inputs and reference ahead") or 0.0))
        print("  %s%s: start %s, ready %s, first point %s, last point %s, exit %s; %d point(s), "
              "busy %s (%s), waiting %s%s" % (
                  proc, " (GPU %s)" % p["gpu"] if p["gpu"] else "", fmt(start), fmt(ready),
                  fmt(f), fmt(l), fmt(max(exits) if exits else None), len(pts), fmt(b_sum),
                  steps, fmt(l - f - b_sum), inputs))

    sweeps = {}
    for proc, p in measuring.items():
        for b, e, sweep in p["points"]:
            s = sweeps.setdefault(sweep, {"b": b, "e": e, "n": 0, "last": {}})
            s["b"], s["e"], s["n"] = min(s["b"], b), max(s["e"], e), s["n"] + 1
            s["last"][proc] = max(s["last"].get(proc, e), e)
    def idle_after(proc, t, until):
        # from t to the process's next point start, at most until
        nxt = min((b for b, _, _ in measuring[proc]["points"] if b >= t), default=until)
        return max(0.0, min(nxt, until) - t)

    ordered = sorted(sweeps.items(), key=lambda kv: kv[1]["b"])
    for i, (sweep, s) in enumerate(ordered, 1):
        kernel, matrix, problem = sweep
        tail = max(idle_after(proc, last, s["e"]) for proc, last in s["last"].items())
        line = "  sweep %d (%s, %s): %d point(s) from %s to %s s, tail %s s" % (
            i, kernel, matrix, s["n"], fmt(s["b"]), fmt(s["e"]), fmt(tail))
        if i < len(ordered) and ordered[i][1]["b"] < s["e"]:
            line += ", overlapped %s s by the next sweep" % fmt(s["e"] - ordered[i][1]["b"])
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
