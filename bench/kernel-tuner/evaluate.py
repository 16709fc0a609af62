#!/usr/bin/env python3
"""rooftune's and Kernel Tuner's search strategies replayed on recorded spaces under one protocol.

The protocol (docs/guides/tuning.md, "One protocol for both tools"):
- a space is one Kernel Tuner cache file (a rooftune store sweep is converted first with
  store_to_cache.py), read by both tools: rooftune replays it (`rooftune replay --runs`), Kernel
  Tuner runs `tune_cache` on it (simulation mode: the space is the cached configurations);
- every run of every strategy is one row: the best time among its first `budget` distinct
  configurations, and how many distinct configurations it evaluated. A failed configuration (a
  string instead of a time in the cache) costs an evaluation on both sides; a run that found no
  valid time counts the slowest valid time;
- Kernel Tuner: every strategy of its strategy_map (the installed version's), each run with
  max_fevals = budget (strategies that refuse the option run without it and are cut at `budget`
  distinct configurations), seeds S..S+repeats-1 (S = --seed, 1 for the tables) through Python's
  and NumPy's generators; a run that
  evaluates fewer distinct configurations than the budget is kept and marked (the tables report
  it); an exception is recorded as the run's note;
- rooftune: every strategy of its table, the same seeds (a --seed other than 1 is the held-out
  check: seeds the tables were not made with);
- scores (tables.py) use one S_opt and one exact S_random(b) computed from the cache file.

Rows are appended to OUT/runs.csv (tool, space, strategy, budget, seed, best, evaluations,
seconds, note); rows already there are skipped, so an interrupted evaluation resumes.

usage: evaluate.py OUT SPACE.json[.gz]... [--tools rooftune,kernel_tuner] [--budgets 20,50,100,200]
       [--repeats 10] [--seed 1] [--kt-strategies all|a,b] [--rooftune build/rooftune]
       [--jobs N] [--time-limit S]
Kernel Tuner comes from PYTHONPATH (bench/kernel-tuner/spaces.sh installs it into .cache/kt).
"""
import argparse
import csv
import json
import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
import time

from kt_shared import best_time, label_of, plain_copy

FIELDS = ["tool", "space", "strategy", "budget", "seed", "best", "evaluations", "seconds", "note"]


def kt_task(task):
    """All budgets and seeds of one Kernel Tuner strategy on one space: a list of rows."""
    label, cache_path, strategy, budgets, seeds, time_limit = task
    import numpy as np
    import kernel_tuner
    with open(cache_path) as c:
        keys = json.load(c)["tune_params_keys"]
    rows = []
    for budget in budgets:
        for seed in seeds:
            random.seed(seed)
            np.random.seed(seed)
            note, best, distinct = "", None, 0
            t0 = time.time()
            limited = {"max_fevals": budget}
            if time_limit:
                limited["time_limit"] = time_limit
            for options in (limited, {}):
                try:
                    results, _ = kernel_tuner.tune_cache(cache_path, strategy=strategy,
                                                         strategy_options=options, verbose=False,
                                                         quiet=True)
                    best, distinct = best_time(results, keys, budget)
                    note = "" if "max_fevals" in options else "no max_fevals option"
                    break
                except ValueError as e:
                    if "max_fevals" in str(e) and "max_fevals" in options:
                        continue  # a strategy without a budget option: run it whole, cut it
                    note = "error: " + str(e).splitlines()[0][:200]
                    break
                except Exception as e:  # noqa: BLE001 - any failure is the run's result
                    note = "error: %s: %s" % (type(e).__name__, str(e).splitlines()[0][:200]
                                               if str(e) else "")
                    break
            if not note and distinct < budget:
                note = "stopped early"
            rows.append(["kernel_tuner", label, strategy, budget, seed,
                         "" if best is None else repr(best), distinct,
                         "%.2f" % (time.time() - t0), note])
    return rows


def kt_strategies(requested):
    from kernel_tuner import interface
    names = sorted(interface.strategy_map)
    return names if requested == "all" else requested.split(",")


def rooftune_rows(rooftune, space, label, budgets, repeats, first_seed, strategy="all"):
    with tempfile.TemporaryDirectory() as tmp:
        runs = os.path.join(tmp, "runs.csv")
        t0 = time.time()
        subprocess.run([rooftune, "replay", space, "--strategy", strategy, "--label", label,
                        "--budget", ",".join(map(str, budgets)), "--repeats", str(repeats),
                        "--seed", str(first_seed), "--runs", runs], check=True,
                       stdout=subprocess.DEVNULL)
        seconds = time.time() - t0
        with open(runs) as f:
            rows = list(csv.DictReader(f))
    per = seconds / max(len(rows), 1)
    out = []
    for r in rows:
        best = float(r["best"])
        out.append(["rooftune", label, r["strategy"], int(r["budget"]), int(r["seed"]),
                    repr(best) if best != float("inf") else "", int(r["evaluations"]),
                    "%.3f" % per, "" if int(r["evaluations"]) >= int(r["budget"]) else
                    "stopped early"])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("spaces", nargs="+")
    ap.add_argument("--tools", default="rooftune,kernel_tuner")
    ap.add_argument("--budgets", default="20,50,100,200")
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1, help="the first seed (1 for the tables)")
    ap.add_argument("--kt-strategies", default="all")
    ap.add_argument("--rooftune", default="build/rooftune")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=0,
                    help="Kernel Tuner's time_limit per run in seconds (0: none)")
    args = ap.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    seeds = list(range(args.seed, args.seed + args.repeats))
    tools = args.tools.split(",")
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "runs.csv")
    done = set()
    if os.path.exists(path):
        with open(path) as f:
            for r in csv.DictReader(f):
                done.add((r["tool"], r["space"], r["strategy"], int(r["budget"]), int(r["seed"])))
    fresh = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "a", newline="") as f, tempfile.TemporaryDirectory() as tmp:
        w = csv.writer(f)
        if fresh:
            w.writerow(FIELDS)
        if "rooftune" in tools:
            for space in args.spaces:
                label = label_of(space)
                if any(k[:2] == ("rooftune", label) for k in done):
                    continue
                for row in rooftune_rows(args.rooftune, space, label, budgets, args.repeats,
                                         args.seed):
                    w.writerow(row)
                f.flush()
                print("rooftune", label, file=sys.stderr)
        if "kernel_tuner" in tools:
            tasks = []
            for space in args.spaces:
                label = label_of(space)
                cache = plain_copy(space, tmp)
                for strategy in kt_strategies(args.kt_strategies):
                    if all(("kernel_tuner", label, strategy, b, s) in done
                           for b in budgets for s in seeds):
                        continue
                    tasks.append((label, cache, strategy, budgets, seeds, args.time_limit))
            with multiprocessing.Pool(args.jobs, maxtasksperchild=1) as pool:
                for rows in pool.imap_unordered(kt_task, tasks):
                    for row in rows:
                        if tuple(row[:5]) not in done:
                            w.writerow(row)
                    f.flush()
                    print("kernel_tuner", rows[0][1], rows[0][2], file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
