#!/usr/bin/env python3
"""One table and one figure from rooftune replay and Kernel Tuner runs on the same spaces.

Inputs (results/tuning/): rooftune_replay*.csv (rows of `rooftune replay --csv`: per space,
strategy and budget the mean best, random search's exact expectation and the optimum) and
kernel_tuner_runs.csv (run_kernel_tuner.py: one row per run). Kernel Tuner's runs are scored
with the same S_random(b) and S_opt as rooftune's (taken from rooftune's rows for that space and
budget), so both sides use one definition of P = (S_random - F) / (S_random - S_opt).

Both tools are given the same budget of distinct evaluations, but a strategy may stop before it
has used it (Kernel Tuner's annealing and basin hopping end on their own schedules, or at the
runner's time limit): the table counts each run's distinct evaluations (run_kernel_tuner.py's
`distinct_evaluations`, rooftune's `mean_evals`) and says where a tool's strategy used fewer than
the budget, so a score reached with fewer evaluations is read as such.

The `h100-*` spaces are sweeps of results/baselines/h100/register-tiling.db: the page says which
version of that store they were made from, by comparing each space's optimum (rooftune's rows)
with the store's best time.

Writes results/tuning/README.md (the table, generated: do not edit) and
results/tuning/score-vs-budget.{dat,gp,png,svg} (best strategy of each tool per space).
usage: compare.py [DIR] [--no-figure]   (DIR instead of results/tuning, for inputs and outputs;
--no-figure skips gnuplot and the figure files)
A malformed input row is an error naming its file and line (exit status 2).
Only the standard library and gnuplot are needed.
"""
import collections
import csv
import glob
import os
import sqlite3
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# The folder of the CSV inputs and of the outputs (results/tuning, or the one folder given).
ARGS = [a for a in sys.argv[1:] if a != "--no-figure"]
OUT = ARGS[0] if ARGS else os.path.join(HERE, "..", "..", "results", "tuning")
FIGURE = "--no-figure" not in sys.argv[1:]
STORE = os.path.join(HERE, "..", "..", "results", "baselines", "h100", "register-tiling.db")
STORE_PROBLEM = '{"K":64,"layout":"col","precision":"fp32","seed":1}'  # run_all.sh's sweeps


class InputError(Exception):
    pass


def number(row, key, kind, path, line):
    """row[key] as kind, or an InputError naming the file, the line and the column."""
    try:
        return kind(row[key])
    except (KeyError, TypeError, ValueError):
        raise InputError("%s:%d: column %s: %r is not %s" % (
            path, line, key, row.get(key), "an integer" if kind is int else "a number"))


def read_rooftune(paths):
    rows = {}
    for path in paths:
        with open(path) as f:
            for line, r in enumerate(csv.DictReader(f), 2):
                key = (r["space"], r["strategy"], number(r, "budget", int, path, line))
                rows[key] = {k: number(r, k, float, path, line)
                             for k in ("mean_best", "random_best", "optimum", "score", "frac_optimum",
                                       "mean_evals")}
                rows[key]["repeats"] = number(r, "repeats", int, path, line)
    return rows


def read_kernel_tuner(paths, reference):
    runs = collections.defaultdict(list)
    missing = collections.Counter()
    evals = collections.defaultdict(list)
    for path in paths:
        with open(path) as f:
            for line, r in enumerate(csv.DictReader(f), 2):
                key = (r["space"], r["strategy"], number(r, "budget", int, path, line))
                evals[key].append(number(r, "distinct_evaluations", int, path, line))
                if r["best"] == "":
                    missing[key] += 1
                    continue
                runs[key].append(number(r, "best", float, path, line))
    scored = {}
    for (space, strategy, budget), bests in runs.items():
        ref = reference.get((space, budget))
        if ref is None:
            continue
        s_random, s_opt = ref
        mean = sum(bests) / len(bests)
        scored[(space, strategy, budget)] = {
            "mean_best": mean,
            "score": (s_random - mean) / (s_random - s_opt) if s_random > s_opt else 1.0,
            "frac_optimum": sum(s_opt / b for b in bests) / len(bests),
            "repeats": len(bests),
            "failed_runs": missing[(space, strategy, budget)],
            "evals": evals[(space, strategy, budget)],
        }
    return scored, evals


BAR_BUDGETS = (20, 50, 100, 200)  # issue 14's bar
KT_STRATEGIES = 9  # run_kernel_tuner.py's default list, random_sample included
KT_REPEATS = 10


def complete_only(kt):
    """Keeps a (space, budget) of Kernel Tuner only when all its strategies ran every repeat."""
    done = collections.defaultdict(set)
    for (sp, s, b), v in kt.items():
        if v["repeats"] + v["failed_runs"] >= KT_REPEATS:
            done[(sp, b)].add(s)
    partial = sorted((sp, b, len(ss), KT_STRATEGIES) for (sp, b), ss in done.items()
                     if len(ss) < KT_STRATEGIES)
    partial += sorted((sp, b, 0, KT_STRATEGIES) for (sp, _, b) in kt if (sp, b) not in done)
    keep = {k: v for k, v in kt.items() if len(done.get((k[0], k[2]), ())) >= KT_STRATEGIES}
    return keep, sorted(set(partial))


def best_per(rows, space, budget, min_repeats=1):
    cands = [(v["score"], s, v) for (sp, s, b), v in rows.items()
             if sp == space and b == budget and s not in ("random", "random_sample")
             and v["repeats"] >= min_repeats]
    return max(cands, key=lambda c: c[0]) if cands else None


def main():
    rt = read_rooftune(sorted(glob.glob(os.path.join(OUT, "rooftune_replay*.csv"))))
    reference = {(sp, b): (v["random_best"], v["optimum"]) for (sp, s, b), v in rt.items()}
    kt, kt_evals = read_kernel_tuner(sorted(glob.glob(os.path.join(OUT, "kernel_tuner_runs*.csv"))),
                                     reference)
    kt, partial = complete_only(kt)
    spaces = sorted({sp for sp, _, _ in rt})
    budgets = sorted({b for _, _, b in rt})
    lines = [
        "# Autotuning: rooftune replay against Kernel Tuner (generated)",
        "",
        "Generated by `bench/kernel-tuner/compare.py` from `rooftune_replay*.csv` (`rooftune replay",
        "--csv`) and `kernel_tuner_runs*.csv` (`bench/kernel-tuner/run_kernel_tuner.py`: %s," % kt_version(),
        "simulation mode, the best among the first b distinct configurations of each run), both",
        "measured on one machine with the commands of `bench/kernel-tuner/run_all.sh` (Kernel Tuner",
        "as parallel, time-limited processes on a shared two-core host); %s" % sessions(),
        "%s (40 configurations each, so only budgets below 40 mean anything; Kernel Tuner reads" % store_provenance(rt),
        "them through `bench/kernel-tuner/store_to_cache.py`). Do not edit by hand.",
        "",
        "Score P = (S_random(b) - F(b)) / (S_random(b) - S_opt): 0 is random search, 1 the",
        "optimum every time; F(b) is the mean over repeats of the best time found with b",
        "evaluations; S_random(b) is random search's exact expectation. `% opt` is the mean of",
        "optimum / best found. Per space and budget the best strategy of each tool (random",
        "search excluded) is shown with its repeats; `-` means Kernel Tuner was not run there",
        "(the T4 file is the A100 convolution in the other format, which Kernel Tuner does not read).",
        "`evals` is the mean number of distinct configurations a run of that strategy evaluated, and",
        "how many of its runs stopped before the budget; a strategy that stops early was scored on",
        "fewer evaluations than the budget (below: where and how often).",
        "",
        "| space | budget | rooftune best | P | % opt | evals | Kernel Tuner best | P | % opt | evals | rooftune >= KT |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    met = total = early_best = 0
    at100, kt_at100 = [], []
    for sp in spaces:
        for b in budgets:
            r = best_per(rt, sp, b)
            k = best_per(kt, sp, b)
            if not r:
                continue
            rcell = "%s (%d)" % (r[1], r[2]["repeats"])
            revals = "%.1f" % r[2]["mean_evals"]
            kcell, kp, kf, kevals, verdict = "-", "-", "-", "-", "-"
            if k:
                kcell = "%s (%d)" % (k[1], k[2]["repeats"])
                kp, kf = "%.3f" % k[0], "%.1f" % (100 * k[2]["frac_optimum"])
                kevals = evals_cell(k[2]["evals"], b)
                early_best += any(e < b for e in k[2]["evals"])
                verdict = "yes" if r[0] >= k[0] else "no"
                total += 1
                met += r[0] >= k[0]
            if b == 100 and not sp.endswith("_T4"):  # the T4 file repeats a space
                at100.append(r[2]["frac_optimum"])
                if k:
                    kt_at100.append((k[2]["frac_optimum"], k[0]))
            lines.append("| %s | %d | %s | %.3f | %.1f | %s | %s | %s | %s | %s | %s |"
                         % (sp, b, rcell, r[0], 100 * r[2]["frac_optimum"], revals, kcell, kp, kf,
                            kevals, verdict))
    if partial:
        lines += ["", "Kernel Tuner runs left out because not every strategy finished its repeats "
                  "(the run was time-limited; a best over a subset of its strategies would flatter "
                  "rooftune): " + ", ".join("%s at %d (%d of %d strategies)" % p for p in partial)
                  + "."]
    lines += ["", "rooftune's best strategy scores at least Kernel Tuner's best in %d of %d "
              "(space, budget) pairs where both ran; in %d of the %d Kernel Tuner's best strategy "
              "used fewer distinct evaluations than the budget in some of its runs."
              % (met, total, early_best, total)]
    if at100:
        lines.append("At budget 100, rooftune's best strategy reaches %.2f%% of the optimum on "
                     "average over %d spaces." % (100 * sum(at100) / len(at100), len(at100)))
    if kt_at100:
        lines.append("At budget 100, Kernel Tuner's best strategy reaches %.1f%% of the optimum on "
                     "average over the %d spaces it ran (best score %.3f)."
                     % (100 * sum(f for f, _ in kt_at100) / len(kt_at100), len(kt_at100),
                        max(p for _, p in kt_at100)))
    lines += early_stop_section(rt, kt_evals)
    lines += bar_section(rt, kt, spaces, budgets)
    # One strategy for every space (no choice after the fact): the mean score over the spaces
    # where both tools have every strategy at that budget.
    lines += ["", "One strategy for all spaces: the strategy with the best mean P over the spaces",
              "where both tools ran every strategy at that budget (no choice per space):", "",
              "| budget | spaces | rooftune strategy | mean P | Kernel Tuner strategy | mean P |",
              "|---|---|---|---|---|---|"]
    for b in budgets:
        def names(rows):
            return {s for (_, s, bb) in rows if bb == b and s not in ("random", "random_sample")}
        common = [sp for sp in spaces if not sp.endswith("_T4")
                  and all((sp, n, b) in rt for n in names(rt)) and names(kt)
                  and all((sp, n, b) in kt for n in names(kt))]
        if not common:
            continue
        cells = []
        for rows in (rt, kt):
            cells.append(max((sum(rows[(sp, n, b)]["score"] for sp in common) / len(common), n)
                             for n in names(rows)))
        lines.append("| %d | %s | %s | %.3f | %s | %.3f |"
                     % (b, ", ".join(common), cells[0][1], cells[0][0], cells[1][1], cells[1][0]))
    lines += ["", "All strategies, every budget:", "",
              "| space | tool | strategy | " + " | ".join("P@%d" % b for b in budgets) + " |",
              "|---|---|---|" + "---|" * len(budgets)]
    for sp in spaces:
        for tool, rows in (("rooftune", rt), ("kernel_tuner", kt)):
            for s in sorted({s for (p, s, _) in rows if p == sp}):
                cells = ["%.3f" % rows[(sp, s, b)]["score"] if (sp, s, b) in rows else "-"
                         for b in budgets]
                lines.append("| %s | %s | %s | %s |" % (sp, tool, s, " | ".join(cells)))
    lines += ["", "![score against budget](score-vs-budget.svg)", ""]
    with open(os.path.join(OUT, "README.md"), "w") as f:
        f.write("\n".join(lines))
    if FIGURE:
        write_figure(rt, kt, spaces, budgets)
    print("wrote %s" % os.path.join(OUT, "README.md"))
    return 0


def bar_section(rt, kt, spaces, budgets):
    """Issue 14's bar, per budget, over the spaces where both tools ran (the T4 file repeats a
    space and is left out): the mean over spaces of each tool's best strategy per space, and of
    the one strategy with the best mean (chosen per budget, the same on every space)."""
    out = ["", "The bar, per budget, over the spaces where both tools ran: mean P of each tool's",
           "best strategy per space (`per space`), and of the single strategy with the best mean",
           "(`one strategy`); `% opt` is rooftune's mean fraction of the optimum.", "",
           "| budget | spaces | rooftune per space | KT per space | met | rooftune one strategy "
           "| KT one strategy | met | rooftune % opt (per space / one) |",
           "|---|---|---|---|---|---|---|---|---|"]
    verdicts = []
    for b in budgets:
        common = [sp for sp in spaces if not sp.endswith("_T4") and best_per(rt, sp, b)
                  and best_per(kt, sp, b)]
        if not common:
            continue
        r_per = sum(best_per(rt, sp, b)[0] for sp in common) / len(common)
        k_per = sum(best_per(kt, sp, b)[0] for sp in common) / len(common)
        r_frac = sum(best_per(rt, sp, b)[2]["frac_optimum"] for sp in common) / len(common)

        def one(rows):
            names = {s for (sp, s, bb) in rows if bb == b and sp in common
                     and s not in ("random", "random_sample")}
            names = [n for n in names if all((sp, n, b) in rows for sp in common)]
            return max((sum(rows[(sp, n, b)]["score"] for sp in common) / len(common), n)
                       for n in names)
        r_one, k_one = one(rt), one(kt)
        r_one_frac = sum(rt[(sp, r_one[1], b)]["frac_optimum"] for sp in common) / len(common)
        verdicts.append((b, r_per >= k_per, r_one[0] >= k_one[0], r_frac, r_one_frac))
        out.append("| %d | %d | %.3f | %.3f | %s | %s %.3f | %s %.3f | %s | %.1f / %.1f |"
                   % (b, len(common), r_per, k_per, "yes" if r_per >= k_per else "**no**",
                      r_one[1], r_one[0], k_one[1], k_one[0],
                      "yes" if r_one[0] >= k_one[0] else "**no**", 100 * r_frac,
                      100 * r_one_frac))
    verdicts = [v for v in verdicts if v[0] in BAR_BUDGETS]
    if verdicts:
        per_ok = all(v[1] for v in verdicts)
        one_ok = all(v[2] for v in verdicts)
        at100 = [v for v in verdicts if v[0] == 100]
        measured = [v[0] for v in verdicts]
        missing = [b for b in BAR_BUDGETS if b not in measured]
        out += ["", "Bar (mean score >= Kernel Tuner's best at budgets 20, 50, 100 and 200; 4 and 8 "
                "are shown above for the 40-point H100 sweeps only): %s per space, %s "
                "with one strategy, at the bar's budgets where both ran (%s)%s."
                % ("met" if per_ok else "NOT met", "met" if one_ok else "NOT met",
                   ", ".join(map(str, measured)),
                   "; not assessed at %s (no complete Kernel Tuner run)"
                   % ", ".join(map(str, missing)) if missing else "")]
        if at100:
            out.append("Bar (>= 95%% of the optimum on average at budget 100): %s per space "
                       "(%.2f%%), %s with one strategy (%.2f%%)."
                       % ("met" if at100[0][3] >= 0.95 else "NOT met", 100 * at100[0][3],
                          "met" if at100[0][4] >= 0.95 else "NOT met", 100 * at100[0][4]))
    return out


def evals_cell(evals, budget):
    """Mean distinct evaluations of a strategy's runs, and how many stopped before the budget."""
    short = sum(e < budget for e in evals)
    mean = sum(evals) / len(evals)
    return "%.1f" % mean if not short else "%.1f (%d of %d short)" % (mean, short, len(evals))


def early_stop_section(rt, kt_evals):
    """Where a tool used fewer distinct evaluations than the budget, counted over every run."""
    runs = sum(len(v) for v in kt_evals.values())
    short = {k: sum(e < k[2] for e in v) for k, v in kt_evals.items()}
    total_short = sum(short.values())
    by_strategy = collections.Counter()
    for (sp, st, b), n in short.items():
        by_strategy[st] += n
    out = ["", "Distinct evaluations. Every run is given the budget b; a run that stops before it "
           "has evaluated b distinct configurations is short. Kernel Tuner: %d of %d runs short"
           % (total_short, runs)]
    if total_short:
        out[-1] += " (" + ", ".join("%s %d" % (st, n) for st, n in by_strategy.most_common() if n) + ")"
    rt_short = sorted((sp, st, b, v["mean_evals"]) for (sp, st, b), v in rt.items()
                      if v["mean_evals"] < b)
    out[-1] += ("; rooftune's replay: none (every strategy's mean is the budget)." if not rt_short else
                "; rooftune's replay: " + ", ".join("%s %s at %d (mean %.1f)" % r for r in rt_short) + ".")
    if total_short:
        out += ["", "| Kernel Tuner strategy | budget | runs | short | mean distinct evaluations | fewest |",
                "|---|---|---|---|---|---|"]
        per = collections.defaultdict(list)
        for (sp, st, b), v in kt_evals.items():
            per[(st, b)].extend(v)
        for (st, b) in sorted(per):
            v = per[(st, b)]
            n = sum(e < b for e in v)
            if n:
                out.append("| %s | %d | %d | %d | %.1f | %d |" % (st, b, len(v), n, sum(v) / len(v), min(v)))
    return out


def sessions():
    """Which session measured which part (run_all.sh appends a line per part to sessions.txt)."""
    path = os.path.join(OUT, "sessions.txt")
    if not os.path.exists(path):
        return "in one session (no sessions.txt)."
    parts = [line.strip() for line in open(path) if line.strip()]
    words = {2: "two", 3: "three"}
    return ("in %s sessions: " % words.get(len(parts), len(parts)) if len(parts) > 1 else "in one session: ") \
        + "; ".join(parts) + "."


def store_provenance(rt):
    """Which version of the store the h100-* spaces come from: the committed one when each space's
    optimum is the store's best time, an earlier one otherwise (saying how they differ)."""
    spaces = sorted({sp for sp, _, _ in rt if sp.startswith("h100-register-tiling-")})
    if not spaces:
        return "There are no `h100-*` spaces"
    db = sqlite3.connect("file:%s?mode=ro&immutable=1" % STORE, uri=True)
    run = db.execute("SELECT group_concat(substr(git_revision, 1, 7) || ' ' || status, '; ') FROM runs").fetchone()[0]
    differ = []
    for sp in spaces:
        matrix = sp[len("h100-register-tiling-"):]
        best = db.execute("SELECT MIN(time_median_s) FROM points WHERE status = 'ok' AND kernel = "
                          "'spmm.cuda.tiled' AND matrix = ? AND problem = ?", (matrix, STORE_PROBLEM)).fetchone()[0]
        optimum = {v["optimum"] for (s, _, _), v in rt.items() if s == sp}
        if best is None or any(abs(o - best) > 1e-9 * best for o in optimum):
            differ.append("%s: optimum %s s, the committed store's best %s s" % (
                matrix, "/".join("%.9g" % o for o in sorted(optimum)), "none" if best is None else "%.9g" % best))
    if not differ:
        return ("The `h100-*` spaces are the full sweeps of the committed store "
                "results/baselines/h100/register-tiling.db (its runs: %s; each space's optimum is that "
                "store's best time)" % run)
    return ("The `h100-*` spaces are NOT the sweeps of the committed store "
            "results/baselines/h100/register-tiling.db (its runs: %s) but of an earlier version of it "
            "(%s)" % (run, "; ".join(differ)))


def kt_version():
    path = os.path.join(OUT, "kernel_tuner_version.txt")
    return open(path).read().strip() if os.path.exists(path) else "(version not recorded)"


def write_figure(rt, kt, spaces, budgets):
    blocks, titles, colours = [], [], []
    for n, sp in enumerate(spaces):
        for tool, rows in (("rooftune", rt), ("Kernel Tuner", kt)):
            pts = []
            for b in budgets:
                best = best_per(rows, sp, b)
                if best:
                    pts.append("%d %.6f" % (b, best[0]))
            if pts:
                blocks.append("\n".join(pts))
                titles.append("%s %s" % (sp, tool))
                colours.append(n + 1)
    with open(os.path.join(OUT, "score-vs-budget.dat"), "w") as f:
        f.write("\n\n\n".join(blocks) + "\n")
    plot = ", ".join("'score-vs-budget.dat' index %d using 1:2 with linespoints dt %d lc %d "
                     "title '%s'" % (i, 1 if "rooftune" in t else 2, colours[i],
                                     t.replace("'", "''"))
                     for i, t in enumerate(titles))
    gp = """reset
set title 'Best strategy per tool: methodology score by budget (0 = random, 1 = optimum)'
set xlabel 'budget (evaluations)'
set ylabel 'score P'
set logscale x
set grid
set key outside right
set yrange [*:1.05]
set terminal pngcairo noenhanced size 1200,640
set output 'score-vs-budget.png'
plot %s
set terminal svg noenhanced size 1200,640
set output 'score-vs-budget.svg'
replot
""" % plot
    with open(os.path.join(OUT, "score-vs-budget.gp"), "w") as f:
        f.write(gp)
    subprocess.run(["gnuplot", "score-vs-budget.gp"], cwd=OUT, check=True)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except InputError as e:
        print("compare.py: %s" % e, file=sys.stderr)
        sys.exit(2)
