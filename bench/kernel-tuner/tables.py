#!/usr/bin/env python3
"""The evaluation tables of evaluate.py's runs: one score for both tools, per space and budget.

For every space (the Kernel Tuner cache file both tools read) it computes the optimum S_opt (the
best valid time) and random search's exact expectation S_random(b) (the expected minimum of b
uniform draws without replacement, a failed configuration counting the slowest valid time), and
scores every (tool, strategy, space, budget) from its runs: F(b) = mean best found (a run that
found nothing valid counts the slowest valid time), P = (S_random - F) / (S_random - S_opt),
% optimum = mean of S_opt / best. Per space and budget it compares each tool's best strategy
(random search excluded on both sides: it scores 0 by construction), lists the cells where
rooftune is behind, the runs that stopped before their budget or failed, and the one rooftune
strategy with the best mean score at each budget (the default of `rooftune tune`).

Writes OUT/README.md (generated: do not edit) and OUT/scores.csv, with the provenance given.
usage: tables.py OUT RUNS.csv... --spaces SPACE... [--budgets 20,50,100,200]
       [--provenance TEXT] [--title TEXT]
Only the standard library.
"""
import argparse
import collections
import csv
import gzip
import json
import math
import os
import sys

from kt_shared import label_of

RANDOM = {"rooftune": "random", "kernel_tuner": "random_sample"}


def space_times(path):
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt") as f:
            cache = json.load(f)["cache"]
        times = [e.get("time") for e in cache.values()]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        sys.exit("tables.py: %s is not a Kernel Tuner cache file (%s: %s)"
                 % (path, type(e).__name__, e))
    if not any(isinstance(t, (int, float)) for t in times):
        sys.exit("tables.py: %s has no configuration with a time" % path)
    return [t if isinstance(t, (int, float)) and math.isfinite(t) else None for t in times]


class Space:
    def __init__(self, path):
        times = space_times(path)
        valid = [t for t in times if t is not None]
        self.n = len(times)
        self.valid = len(valid)
        self.opt = min(valid)
        self.worst = max(valid)
        self.sorted = sorted(t if t is not None else self.worst for t in times)

    def random_best(self, b):
        """E[min of b draws without replacement]: P(min is the i-th smallest) = C(n-i, b-1)/C(n, b)."""
        n = self.n
        b = min(b, n)
        p, e = b / n, 0.0
        for i in range(1, n - b + 2):
            e += p * self.sorted[i - 1]
            if n - i > 0:
                p *= (n - i - b + 1) / (n - i)
        return e


def read_runs(paths):
    runs = collections.defaultdict(list)
    for path in paths:
        with open(path) as f:
            reader = csv.DictReader(f)
            missing = [c for c in ("tool", "space", "strategy", "budget", "seed", "best",
                                   "evaluations", "note") if c not in (reader.fieldnames or [])]
            if missing:
                sys.exit("tables.py: %s lacks the column(s) %s of evaluate.py's runs"
                         % (path, ", ".join(missing)))
            for line, r in enumerate(reader, 2):
                try:
                    runs[(r["tool"], r["space"], r["strategy"], int(r["budget"]))].append(r)
                except ValueError:
                    sys.exit("tables.py: %s:%d: budget '%s' is not an integer"
                             % (path, line, r["budget"]))
    return runs


def score(space, budget, rows):
    ok = [r for r in rows if not r["note"].startswith("error")]
    if not ok:
        return None
    bests = [float(r["best"]) if r["best"] else space.worst for r in ok]
    mean = sum(bests) / len(bests)
    s_random = space.random_best(budget)
    span = s_random - space.opt
    return {
        "score": (s_random - mean) / span if span > 0 else 1.0,
        "frac_optimum": sum(space.opt / b for b in bests) / len(bests),
        "mean_best": mean,
        "random_best": s_random,
        "repeats": len(ok),
        "evaluations": sum(int(r["evaluations"]) for r in ok) / len(ok),
        "early": sum(1 for r in ok if int(r["evaluations"]) < min(budget, space.n)),
        "errors": len(rows) - len(ok),
    }


def fmt(x, digits=3):
    return "-" if x is None else ("%.*f" % (digits, x))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--spaces", nargs="+", required=True)
    ap.add_argument("--budgets", default="20,50,100,200")
    ap.add_argument("--provenance", default="")
    ap.add_argument("--title", default="Search strategies on recorded spaces: rooftune and "
                                        "Kernel Tuner under one protocol (generated)")
    args = ap.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    spaces = {label_of(p): Space(p) for p in args.spaces}
    runs = read_runs(args.runs)
    scored = {}
    notes = collections.Counter()
    for (tool, sp, strategy, b), rows in runs.items():
        if sp not in spaces or b not in budgets:
            continue
        s = score(spaces[sp], b, rows)
        for r in rows:
            if r["note"]:
                notes[(tool, strategy, r["note"] if r["note"].startswith("error") else
                       r["note"])] += 1
        if s:
            scored[(tool, sp, strategy, b)] = s
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "scores.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["tool", "space", "strategy", "budget", "repeats", "score", "frac_optimum",
                    "mean_best", "random_best", "optimum", "mean_evaluations", "early_runs"])
        for (tool, sp, strategy, b), s in sorted(scored.items()):
            w.writerow([tool, sp, strategy, b, s["repeats"], "%.6f" % s["score"],
                        "%.6f" % s["frac_optimum"], "%.9g" % s["mean_best"],
                        "%.9g" % s["random_best"], "%.9g" % spaces[sp].opt,
                        "%.2f" % s["evaluations"], s["early"]])

    def best_of(tool, sp, b):
        cands = [(s["score"], strategy) for (t, p, strategy, bb), s in scored.items()
                 if t == tool and p == sp and bb == b and strategy != RANDOM[tool]]
        return max(cands) if cands else None

    lines = ["# " + args.title, ""]
    if args.provenance:
        lines += [args.provenance, ""]
    lines += ["Score P = (S_random(b) - F(b)) / (S_random(b) - S_opt): 0 is random search, 1 the "
              "optimum every time. Both tools' runs are scored with the same S_opt and exact "
              "S_random(b), computed from the space file both read. Per space and budget, each "
              "tool's best strategy (random search excluded) with its repeats; `% opt` is the mean "
              "of optimum / best found.", "",
              "| space | configs (valid) | budget | rooftune best | P | % opt | Kernel Tuner best "
              "| P | % opt | rooftune >= KT |", "|---|---|---|---|---|---|---|---|---|---|"]
    behind, both, ahead = [], 0, 0
    per_budget = collections.defaultdict(lambda: {"rt": [], "kt": [], "rt_opt": []})
    for sp in sorted(spaces):
        for b in budgets:
            if b >= spaces[sp].n:
                continue  # the whole space: every strategy finds the optimum
            rt, kt = best_of("rooftune", sp, b), best_of("kernel_tuner", sp, b)
            if not rt and not kt:
                continue
            rs = scored.get(("rooftune", sp, rt[1], b)) if rt else None
            ks = scored.get(("kernel_tuner", sp, kt[1], b)) if kt else None
            met = "-"
            if rt and kt:
                both += 1
                met = "yes" if rt[0] >= kt[0] else "**no**"
                ahead += rt[0] >= kt[0]
                if rt[0] < kt[0]:
                    behind.append((sp, b, rt, kt))
                per_budget[b]["rt"].append(rt[0])
                per_budget[b]["kt"].append(kt[0])
            if rs:
                per_budget[b]["rt_opt"].append(rs["frac_optimum"])
            lines.append("| %s | %d (%d) | %d | %s | %s | %s | %s | %s | %s | %s |" % (
                sp, spaces[sp].n, spaces[sp].valid, b,
                "%s (%d)" % (rt[1], rs["repeats"]) if rt else "-", fmt(rt and rt[0]),
                fmt(rs and 100 * rs["frac_optimum"], 1),
                "%s (%d)" % (kt[1], ks["repeats"]) if kt else "-", fmt(kt and kt[0]),
                fmt(ks and 100 * ks["frac_optimum"], 1), met))
    # Coverage: what each tool ran on each space (a cell compares only what ran).
    lines += ["", "Coverage: strategies with runs on each space and the fewest repeats of any of "
              "their (strategy, budget) cells, per tool.", "",
              "| space | rooftune strategies | min repeats | Kernel Tuner strategies | min repeats |",
              "|---|---|---|---|---|"]
    for sp in sorted(spaces):
        row = [sp]
        for tool in ("rooftune", "kernel_tuner"):
            cells = [(k[2], v["repeats"]) for k, v in scored.items() if k[0] == tool and k[1] == sp]
            row += [str(len({c[0] for c in cells})) if cells else "0",
                    str(min(c[1] for c in cells)) if cells else "-"]
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "rooftune's best strategy scores at least Kernel Tuner's best in **%d of %d** "
              "(space, budget) cells where both ran." % (ahead, both), ""]
    if behind:
        lines += ["Cells where rooftune is behind:", ""]
        for sp, b, rt, kt in behind:
            lines.append("- %s at %d: rooftune %s %.3f, Kernel Tuner %s %.3f" % (sp, b, rt[1],
                                                                              rt[0], kt[1], kt[0]))
        lines.append("")
    lines += ["Per budget, over the cells where both ran: the mean score of each tool's best "
              "strategy per space, and rooftune's mean fraction of the optimum.", "",
              "| budget | cells | rooftune mean P | Kernel Tuner mean P | rooftune % opt |",
              "|---|---|---|---|---|"]
    for b in budgets:
        d = per_budget[b]
        if d["rt"]:
            lines.append("| %d | %d | %.3f | %.3f | %.1f |" % (
                b, len(d["rt"]), sum(d["rt"]) / len(d["rt"]), sum(d["kt"]) / len(d["kt"]),
                100 * sum(d["rt_opt"]) / len(d["rt_opt"])))
    # One strategy for every space: the default of `rooftune tune`. Each tool's single strategy
    # with the best mean score over the spaces where both tools ran at that budget, and rooftune's
    # over every space it ran.
    def one_strategy(tool, sps, b):
        means = {}
        for strategy in sorted({k[2] for k in scored if k[0] == tool}):
            vals = [scored.get((tool, sp, strategy, b)) for sp in sps]
            if sps and all(vals):
                means[strategy] = (sum(v["score"] for v in vals) / len(vals),
                                   sum(v["frac_optimum"] for v in vals) / len(vals))
        if not means:
            return None
        strategy = max(means, key=lambda k: means[k][0])  # a tie: the first by name
        return strategy, means[strategy][0], means[strategy][1]

    lines += ["", "One strategy for every space (no choice per space): the single strategy with "
              "the best mean score over the spaces where both tools ran at that budget, and "
              "rooftune's over every space it ran.", "",
              "| budget | spaces (both) | rooftune strategy | mean P | Kernel Tuner strategy | "
              "mean P | spaces (rooftune) | rooftune strategy | mean P | % opt |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for b in budgets:
        ran = {tool: {k[1] for k in scored if k[0] == tool and k[3] == b}
               for tool in ("rooftune", "kernel_tuner")}
        common = sorted(ran["rooftune"] & ran["kernel_tuner"])
        rt_c, kt_c = one_strategy("rooftune", common, b), one_strategy("kernel_tuner", common, b)
        rt_all = one_strategy("rooftune", sorted(ran["rooftune"]), b)
        if not rt_all:
            continue
        lines.append("| %d | %d | %s | %s | %s | %s | %d | %s | %.3f | %.1f |" % (
            b, len(common), rt_c[0] if rt_c else "-", fmt(rt_c and rt_c[1]),
            kt_c[0] if kt_c else "-", fmt(kt_c and kt_c[1]), len(ran["rooftune"]), rt_all[0],
            rt_all[1], 100 * rt_all[2]))
    if notes:
        lines += ["", "Runs that stopped before their budget (distinct evaluations below it) or "
                  "failed, by tool and strategy:", "", "| tool | strategy | note | runs |",
                  "|---|---|---|---|"]
        for (tool, strategy, note), n in sorted(notes.items()):
            lines.append("| %s | %s | %s | %d |" % (tool, strategy, note.replace("|", "/"), n))
    lines += ["", "All strategies: scores.csv (tool, space, strategy, budget, repeats, score, "
              "frac_optimum, mean_best, random_best, optimum, mean_evaluations, early_runs)."]
    with open(os.path.join(args.out, "README.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("rooftune >= Kernel Tuner in %d of %d cells" % (ahead, both))
    for sp, b, rt, kt in behind:
        print("  behind: %s @%d rooftune %s %.3f < KT %s %.3f" % (sp, b, rt[1], rt[0], kt[1],
                                                               kt[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
