#!/usr/bin/env python3
"""How much of a hub-table cell luck can explain: random search's spread over the cell's seeds.

A cell of results/tuning/hub compares each tool's best strategy, each a mean over a few seeds (10
for the tables). At a small budget most strategies of both tools measure little besides their
random first points, and each tool's column is the best of many strategies, so a column can lead
by the luck of its draws. For every (space, budget) cell where both tools have rows, this script
gives the distribution of random search's mean score over as many seeds as Kernel Tuner's best
strategy ran (its median, 95th and 99th percentiles), and the share of such means that reach
Kernel Tuner's best score: a cell where that share is not small is one a random sample can lead.

The best of b uniform draws without replacement from a space of n configurations (a failed one
counting the slowest valid time, as tables.py does) is the i-th fastest with probability
C(n-i, b-1) / C(n, b); a mean over R seeds is drawn from that exactly, R at a time, `--trials`
times per cell with a generator seeded by the cell, so the output is the same on every run.

Writes OUT (markdown). Inputs: the scores.csv tables.py wrote (both tools' rows), optionally the
held-out table's scores.csv (rooftune on other seeds), and the space files both read.
usage: luck.py OUT.md --scores SCORES.csv [--heldout SCORES.csv] --spaces SPACE...
       [--trials 20000] [--provenance TEXT]
Bad input (a scores file without tables.py's columns or with a value that is not a number, a
space that is not a cache) exits with status 2, naming the file and line.
Only the standard library.
"""
import argparse
import bisect
import os
import random
import sys
import zlib

from kt_shared import label_of, read_rows

RANDOM = {"rooftune": "random", "kernel_tuner": "random_sample"}
COLUMNS = ("tool", "space", "strategy", "budget", "repeats", "score")


def die(msg):
    print("luck.py: " + msg, file=sys.stderr)
    sys.exit(2)


def read_scores(path):
    """{(tool, space, budget): [(score, strategy, repeats)]}, random search left out."""
    cells = {}
    for line, r in read_rows(path, COLUMNS, die, " of tables.py's scores.csv"):
        try:
            budget, repeats, score = int(r["budget"]), int(r["repeats"]), float(r["score"])
        except (TypeError, ValueError):
            die("%s:%d: budget, repeats and score must be numbers (got '%s', '%s', '%s')"
                % (path, line, r["budget"], r["repeats"], r["score"]))
        if r["tool"] not in RANDOM or repeats < 1:
            die("%s:%d: tool '%s' with %d repeats (want rooftune or kernel_tuner, >= 1)"
                % (path, line, r["tool"], repeats))
        if r["strategy"] != RANDOM[r["tool"]]:
            cells.setdefault((r["tool"], r["space"], budget), []).append(
                (score, r["strategy"], repeats))
    return cells


def best_draw_cdf(space, b):
    """Cumulative probabilities of the best of b draws being the i-th fastest (space.sorted)."""
    n = len(space.sorted)
    b = min(b, n)
    p, acc, cdf = b / n, 0.0, []
    for i in range(1, n - b + 2):
        acc += p
        cdf.append(acc)
        if n - i > 0:
            p *= (n - i - b + 1) / (n - i)
    return cdf


def random_means(space, b, repeats, trials, seed):
    """Sorted scores of `trials` means of `repeats` random searches of budget b."""
    cdf = best_draw_cdf(space, b)
    top = cdf[-1]
    rng = random.Random(seed)
    s_random = space.random_best(b)
    span = s_random - space.opt
    out = []
    for _ in range(trials):
        total = 0.0
        for _ in range(repeats):
            i = min(bisect.bisect_right(cdf, rng.random() * top), len(cdf) - 1)
            total += space.sorted[i]
        out.append((s_random - total / repeats) / span if span > 0 else 1.0)
    out.sort()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--scores", required=True)
    ap.add_argument("--heldout")
    ap.add_argument("--spaces", nargs="+", required=True)
    ap.add_argument("--trials", type=int, default=20000)
    ap.add_argument("--provenance", default="")
    args = ap.parse_args()
    if args.trials < 100:
        die("--trials %d: want at least 100" % args.trials)
    from tables import Space  # its errors name the space file

    try:
        spaces = {label_of(p): Space(p) for p in args.spaces}
    except SystemExit as e:
        die(str(e.code).replace("tables.py: ", ""))
    cells = read_scores(args.scores)
    held = read_scores(args.heldout) if args.heldout else {}
    lines = ["# How far luck reaches: random search's spread in each cell (generated)", ""]
    if args.provenance:
        lines += [args.provenance, ""]
    lines += ["Per cell where both tools ran: each tool's best strategy (random search excluded) "
              "and its score on the tables' seeds%s; then random search's mean score over as many "
              "seeds as Kernel Tuner's best strategy ran, from %d draws of that many exact "
              "random searches: its median, 95th and 99th percentiles, and the share of those "
              "means at or above Kernel Tuner's best score." % (
                  ", rooftune's on the held-out seeds" if held else "", args.trials), "",
              "| space | budget | Kernel Tuner best | P | rooftune best | P |%s seeds | random: "
              "median | 95%% | 99%% | share >= KT |" % (" held-out P |" if held else ""),
              "|---|---|---|---|---|---|%s---|---|---|---|---|" % ("---|" if held else "")]
    behind = []
    for sp, b in sorted({(k[1], k[2]) for k in cells}):
        kt = max(cells.get(("kernel_tuner", sp, b), []), default=None)
        rt = max(cells.get(("rooftune", sp, b), []), default=None)
        if not kt or not rt:
            continue
        if sp not in spaces:
            die("%s has rows of space '%s', which --spaces does not give" % (args.scores, sp))
        ho = max(held.get(("rooftune", sp, b), []), default=None)
        means = random_means(spaces[sp], b, kt[2], args.trials, zlib.crc32(b"%s,%d" % (
            sp.encode(), b)))
        share = (len(means) - bisect.bisect_left(means, kt[0])) / len(means)
        q = [means[min(int(f * len(means)), len(means) - 1)] for f in (0.5, 0.95, 0.99)]
        lines.append("| %s | %d | %s | %.3f | %s | %.3f |%s %d | %.3f | %.3f | %.3f | %.4f |" % (
            sp, b, kt[1], kt[0], rt[1], rt[0],
            (" %.3f |" % ho[0] if ho else " - |") if held else "", kt[2], q[0], q[1], q[2],
            share))
        for name, r in (("tables' seeds", rt), ("held-out seeds", ho)):
            if r and r[0] < kt[0]:
                behind.append("- %s at %d (%s): rooftune %s %.3f, Kernel Tuner %s %.3f; random "
                              "search's %d-seed mean reaches %.3f in %.2f%% of draws" % (
                                  sp, b, name, r[1], r[0], kt[1], kt[0], kt[2], kt[0],
                                  100 * share))
    lines += ["", "Cells where rooftune is behind, with the share of random search's means that "
              "reach Kernel Tuner's score:", ""] + (behind or ["- none"])
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(behind) if behind else "rooftune behind in no cell")
    return 0


if __name__ == "__main__":
    sys.exit(main())
