#!/usr/bin/env python3
"""Kernel Tuner's strategies in simulation mode on recorded spaces, for the side-by-side table.

For every space (a Kernel Tuner cache file, optionally gzip-compressed), strategy and budget it
runs kernel_tuner.tune_cache (simulation mode, the space restricted to the cached configurations,
as tune_cache itself does) `repeats` times with seeds 1..repeats and appends one CSV row per run:
space, strategy, budget, seed, best time among the first `budget` distinct configurations it
evaluated (empty when none ran), distinct evaluations counted, best over everything it returned,
results returned, seconds.
Rows already in the output are skipped, so an interrupted run resumes.

usage: run_kernel_tuner.py OUT.csv SPACE.json[.gz] ... [--strategies a,b] [--budgets 20,50]
       [--repeats 10] [--max-seconds S] [--time-limit S]
"""
import argparse
import csv
import json
import os
import random
import sys
import tempfile
import time

import numpy as np
import kernel_tuner

from kt_shared import best_time, label_of, plain_copy

DEFAULT_STRATEGIES = ["random_sample", "genetic_algorithm", "diff_evo", "greedy_ils",
                      "basinhopping", "dual_annealing", "pso", "simulated_annealing",
                      "bayes_opt"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("spaces", nargs="+")
    ap.add_argument("--strategies", default=",".join(DEFAULT_STRATEGIES))
    ap.add_argument("--budgets", default="20,50,100,200")
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--max-seconds", type=float, default=0,
                    help="stop starting new runs after this long (0: no limit)")
    ap.add_argument("--time-limit", type=float, default=0,
                    help="Kernel Tuner's own time_limit per run, in seconds (0: none); its "
                         "basinhopping revisits cached points for minutes on a 40-point space")
    args = ap.parse_args()
    strategies = args.strategies.split(",")
    budgets = [int(b) for b in args.budgets.split(",")]
    done = set()
    if os.path.exists(args.out):
        with open(args.out) as f:
            for row in csv.DictReader(f):
                done.add((row["space"], row["strategy"], int(row["budget"]), int(row["seed"])))
    fresh = not os.path.exists(args.out) or os.path.getsize(args.out) == 0
    start = time.time()
    with open(args.out, "a", newline="") as f, tempfile.TemporaryDirectory() as tmp:
        w = csv.writer(f)
        if fresh:
            w.writerow(["space", "strategy", "budget", "seed", "best", "distinct_evaluations",
                        "best_unlimited", "results", "seconds"])
        copies = [(label_of(space), plain_copy(space, tmp)) for space in args.spaces]
        keys = {}
        for label, cache_path in copies:
            with open(cache_path) as c:
                keys[label] = json.load(c)["tune_params_keys"]
        # Budget outermost (in the order given), so a time limit still leaves whole budgets
        # measured on every space.
        for budget in budgets:
            for label, cache_path in copies:
                for strategy in strategies:
                    for seed in range(1, args.repeats + 1):
                        if (label, strategy, budget, seed) in done:
                            continue
                        if args.max_seconds and time.time() - start > args.max_seconds:
                            print("time limit reached", file=sys.stderr)
                            return 0
                        random.seed(seed)
                        np.random.seed(seed)
                        t0 = time.time()
                        results, _ = kernel_tuner.tune_cache(
                            cache_path, strategy=strategy,
                            strategy_options=dict(
                                {"max_fevals": budget},
                                **({"time_limit": args.time_limit} if args.time_limit else {})),
                            verbose=False, quiet=True)
                        best, distinct = best_time(results, keys[label], budget)
                        unlimited, _ = best_time(results, keys[label])
                        w.writerow([label, strategy, budget, seed,
                                    "" if best is None else repr(best), distinct,
                                    "" if unlimited is None else repr(unlimited), len(results),
                                    "%.2f" % (time.time() - t0)])
                        f.flush()
                        print(label, strategy, budget, seed, best, distinct, len(results),
                              "%.1fs" % (time.time() - t0), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
