#!/usr/bin/env python3
"""One fully measured sweep of a rooftune store as a Kernel Tuner cache file, so Kernel Tuner's
strategies run in simulation mode on the same space rooftune's replay reads from the store.

The sweep is one (kernel, matrix, problem); its points' parameters become tune_params (each
parameter's distinct values, sorted) and every recorded configuration a cache entry: status ok
with its median time in seconds (the unit rooftune's replay of the store reports, so both tools'
best times are scored against the same S_random and S_opt; Kernel Tuner only compares times, so
the unit does not change its search), any other status but infeasible as
"RuntimeFailedConfig" (it costs an evaluation, as in rooftune's replay); infeasible points are
outside the space, as in rooftune's replay. A sweep with pruned points is refused (not fully
measured).

usage: store_to_cache.py STORE.db --kernel K --matrix M --problem JSON OUT.json
"""
import argparse
import json
import sqlite3
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("store")
    ap.add_argument("out")
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--matrix", required=True)
    ap.add_argument("--problem", required=True, help="the problem as the store writes it (JSON)")
    args = ap.parse_args()
    db = sqlite3.connect("file:%s?mode=ro" % args.store, uri=True)
    rows = db.execute("SELECT params, status, time_median_s, device FROM points"
                      " WHERE kernel = ? AND matrix = ? AND problem = ? ORDER BY id",
                      (args.kernel, args.matrix, args.problem)).fetchall()
    if not rows:
        sys.exit("%s: no points for kernel %s, matrix %s, problem %s"
                 % (args.store, args.kernel, args.matrix, args.problem))
    if any(status == "pruned" for _, status, _, _ in rows):
        sys.exit("%s: the sweep holds pruned points: not a fully measured space" % args.store)
    configs = [(json.loads(p), status, t) for p, status, t, _ in rows if status != "infeasible"]
    keys = sorted(configs[0][0])
    values = {k: sorted({c[k] for c, _, _ in configs}) for k in keys}
    cache = {}
    for params, status, t in configs:
        if sorted(params) != keys:
            sys.exit("%s: points with different parameter names (%s, %s)"
                     % (args.store, keys, sorted(params)))
        entry = {k: params[k] for k in keys}
        ok = status == "ok" and t is not None
        entry["time"] = t if ok else "RuntimeFailedConfig"
        entry["times"] = [t] if ok else []
        for f in ("compile_time", "verification_time", "benchmark_time", "strategy_time",
                  "framework_time"):
            entry[f] = 0
        entry["timestamp"] = "1970-01-01 00:00:00+00:00"
        cache[",".join(str(params[k]) for k in keys)] = entry
    out = {"device_name": rows[0][3], "kernel_name": args.kernel, "problem_size": 0,
           "tune_params_keys": keys, "tune_params": values, "objective": "time",
           "cache": cache}
    with open(args.out, "w") as f:
        json.dump(out, f)
    print("%s: %d configurations, %d parameters" % (args.out, len(cache), len(keys)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
