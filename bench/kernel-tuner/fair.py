#!/usr/bin/env python3
"""The hub comparison without selection bias: strategies chosen on seeds 1-10, scored on 11-30.

A cell of results/tuning/hub (one space, one budget) shows each tool's best strategy over seeds
1-10: the best of many noisy means, above what that strategy scores on other seeds by selection
alone, and more so for the tool with more strategies (Kernel Tuner's 18 against rooftune's 10;
at budget 20 several of Kernel Tuner's measure nothing but random first points). Here the choice
is made once, on seeds 1-10 (the strategy with the best mean score in the tables' scores.csv,
random search excluded, the pick tables.py makes), and only that strategy of each tool is run
again, on seeds 11-30, and scored as tables.py scores: the same optimum and exact random-search
expectation from the space file, a failed configuration costing an evaluation on both sides, a
run that found nothing valid counting the slowest valid time, and Kernel Tuner's runs that stop
before their budget kept and counted.

Two steps:
  fair.py run OUT SPACE... --scores HUB/scores.csv [--rooftune build-rel/rooftune] [--seed 11]
              [--repeats 20] [--jobs N] [--margin 0.05] [--hub-revision TEXT] [--choice cell]
      Kernel Tuner from the interpreter's path (a venv, or PYTHONPATH). For every cell where both
      tools have rows in scores.csv, the chosen rooftune strategy (`rooftune replay`) and the
      chosen Kernel Tuner strategy (evaluate.py's runner) on seeds 1-10, which checks that this
      environment reproduces the rows the choice was made on, and on SEED..SEED+REPEATS-1; the
      cells where either tool was behind or within MARGIN on seeds 1-10 first. Rows go to
      OUT/runs.csv (evaluate.py's columns; rows already there are kept, so a stopped run
      resumes); OUT/spaces.csv gets each space's size, optimum, slowest valid time and random
      search's expectation per budget, OUT/provenance.txt what made the rows.
  fair.py table OUT --scores HUB/scores.csv [--heldout 11-30] [--choice cell]
      Only the standard library: OUT/README.md from OUT/spaces.csv, OUT/runs.csv,
      OUT/provenance.txt and scores.csv. Per cell both chosen strategies, their scores on seeds
      1-10 and on the held-out seeds with a 95% t-interval over the seeds, and who is ahead ("tie"
      when the intervals overlap); the counts; per budget the means; the runs that stopped early
      or failed; and whether seeds 1-10 reproduced the committed rows.
  fair.py choice OUT.csv SPACE... --scores HUB/scores.csv --runs RUNS.csv
      When rooftune's strategies change after the tables were made: OUT.csv is a scores file
      with Kernel Tuner's rows of HUB/scores.csv as they are (its runs are not re-run: its
      strategies did not change) and rooftune's rows scored from RUNS.csv (evaluate.py's runs of
      every rooftune strategy on seeds 1-10, made by the code under test) as tables.py scores
      them. `run` and `table` then take it as --scores, so the choice is still made on seeds 1-10
      only, with the strategies that are evaluated.
--choice is the rule that picks each tool's strategy from scores.csv, the same for both tools:
"cell" (per cell, the best mean there: the tables' pick) or "budget" (per budget, one strategy,
the best mean over the budget's cells); run and table must be given the same one.
Bad input (a file without its columns, a value that is not a number, a space or cell that the
files disagree on) exits with status 2, naming the file, line and column.
"""
import argparse
import csv
import math
import os
import subprocess
import sys
import tempfile
import time

from kt_shared import label_of, plain_copy, read_rows

TOOLS = ("rooftune", "kernel_tuner")
NAMES = {"rooftune": "rooftune", "kernel_tuner": "Kernel Tuner"}
RANDOM = {"rooftune": "random", "kernel_tuner": "random_sample"}
SELECTION = (1, 10)  # the tables' seeds, where the strategies are chosen
SCORE_COLS = ("tool", "space", "strategy", "budget", "repeats", "score", "mean_best",
              "random_best", "optimum")
SPACE_COLS = ("space", "budget", "configs", "valid", "optimum", "worst", "random_best")
REPEAT_COLS = ("tool", "space", "strategy", "budget", "seed", "best", "best_again")
RUN_COLS = ("tool", "space", "strategy", "budget", "seed", "best", "evaluations", "seconds", "note")


def die(msg):
    print("fair.py: " + msg, file=sys.stderr)
    sys.exit(2)


def read_csv(path, columns, types):
    """Rows of a CSV as dicts with `types` ({column: int or float}) converted; bad input exits 2
    naming the file, line and column."""
    rows = []
    for line, r in read_rows(path, columns, die):
        for col, kind in types.items():
            try:
                v = kind(r[col])
            except (TypeError, ValueError):
                die("%s:%d: column %s: '%s' is not %s" % (
                    path, line, col, r[col], "an integer" if kind is int else "a number"))
            if kind is float and not math.isfinite(v):
                die("%s:%d: column %s: '%s' is not a finite number" % (path, line, col, r[col]))
            r[col] = v
        r["_line"] = line
        rows.append(r)
    return rows


def close(a, b, rel=1e-7):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


CHOICES = ("cell", "budget")


def chosen(scores_path, rule="cell"):
    """{(space, budget): {tool: score row}}: each tool's strategy chosen on the tables' seeds
    (random search excluded), for the cells where both tools have rows. rule "cell": per cell,
    the strategy with the best mean score there; "budget": per budget, one strategy for all the
    budget's cells, the one with the best mean score over them (a strategy lacking a row in one
    of them is not a candidate). A tie goes to the later name, as in tables.py."""
    rows = {}
    for r in read_csv(scores_path, SCORE_COLS, {"budget": int, "repeats": int, "score": float,
                                                "mean_best": float, "random_best": float,
                                                "optimum": float}):
        if r["tool"] not in TOOLS:
            die("%s:%d: column tool: '%s' is neither rooftune nor kernel_tuner"
                % (scores_path, r["_line"], r["tool"]))
        if r["strategy"] != RANDOM[r["tool"]]:
            rows.setdefault((r["space"], r["budget"]), {}).setdefault(r["tool"], {})[
                r["strategy"]] = r
    rows = {k: v for k, v in rows.items() if len(v) == 2}
    if rule == "cell":
        return {k: {t: max(v[t].values(), key=lambda r: (r["score"], r["strategy"]))
                    for t in TOOLS} for k, v in rows.items()}
    if rule != "budget":
        die("--choice '%s': want %s" % (rule, " or ".join(CHOICES)))
    # Per budget: ten seeds of ten spaces weigh each strategy, where one cell's ten seeds let a
    # strategy with a lucky mean win (the per-cell pick's fall on held-out seeds).
    out = {}
    for b in sorted({b for _, b in rows}):
        cells = [k for k in rows if k[1] == b]
        for tool in TOOLS:
            names = set.intersection(*(set(rows[k][tool]) for k in cells))
            if not names:
                die("%s: no %s strategy has rows in every cell of budget %d"
                    % (scores_path, tool, b))
            best = max(names, key=lambda n: (sum(rows[k][tool][n]["score"] for k in cells), n))
            for k in cells:
                out.setdefault(k, {})[tool] = rows[k][tool][best]
    return out


# ---- choice: a scores file with rooftune's rows made again ----------------------------------

def make_choice(args):
    from tables import Space, score

    keep = [r for _, r in read_rows(args.scores, SCORE_COLS, die) if r["tool"] == "kernel_tuner"]
    if not keep:
        die("%s has no Kernel Tuner row" % args.scores)
    spaces = {label_of(p): Space(p) for p in args.spaces}
    runs = {}
    for r in read_csv(args.runs, RUN_COLS, {"budget": int, "seed": int, "evaluations": int}):
        if r["tool"] != "rooftune":
            die("%s:%d: column tool: '%s', want rooftune" % (args.runs, r["_line"], r["tool"]))
        if not SELECTION[0] <= r["seed"] <= SELECTION[1]:
            die("%s:%d: column seed: %d is not one of the tables' seeds %d-%d"
                % (args.runs, r["_line"], r["seed"], *SELECTION))
        if r["space"] not in spaces:
            die("%s:%d: column space: no space file given for '%s'"
                % (args.runs, r["_line"], r["space"]))
        runs.setdefault((r["space"], r["strategy"], r["budget"]), []).append(r)
    cells = {(r["space"], int(r["budget"])) for r in keep}
    header = list(SCORE_COLS[:5]) + ["score", "frac_optimum", "mean_best", "random_best",
                                     "optimum", "mean_evaluations", "early_runs"]
    rows = [[r.get(c, "") for c in header] for r in keep]
    for (sp, strategy, b), rs in sorted(runs.items()):
        if (sp, b) not in cells:
            continue
        sc = score(spaces[sp], b, rs)
        if sc is None:
            die("%s: every run of %s on %s at %d failed" % (args.runs, strategy, sp, b))
        rows.append(["rooftune", sp, strategy, b, sc["repeats"], "%.6f" % sc["score"],
                     "%.6f" % sc["frac_optimum"], "%.9g" % sc["mean_best"],
                     "%.9g" % sc["random_best"], "%.9g" % spaces[sp].opt,
                     "%.2f" % sc["evaluations"], sc["early"]])
    with open(args.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(sorted(rows, key=lambda r: (r[0], r[1], r[2], int(r[3]))))
    return 0


# ---- run: the chosen strategies on the selection seeds and the held-out seeds ----------------

def write_spaces(out, paths, cells):
    from tables import Space  # its errors name the space file

    spaces = {label_of(p): (p, Space(p)) for p in paths}
    missing = sorted({sp for sp, _ in cells} - set(spaces))
    if missing:
        die("no space file given for %s (cells of the scores)" % ", ".join(missing))
    with open(os.path.join(out, "spaces.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(SPACE_COLS)
        for sp, b in sorted(cells):
            s = spaces[sp][1]
            w.writerow([sp, b, s.n, s.valid, "%.9g" % s.opt, "%.9g" % s.worst,
                        "%.9g" % s.random_best(b)])
    return {sp: v[0] for sp, v in spaces.items()}


def provenance(args):
    import kernel_tuner
    import numpy
    import scipy

    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                         text=True).stdout.strip() or "unknown"
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return ("Generated by bench/kernel-tuner/fair.py: rooftune %s (%s, %s) and Kernel Tuner %s "
            "(Python %s, NumPy %s, SciPy %s), the strategies chosen on seeds %d-%d in %s and run "
            "on seeds %d-%d (and again on %d-%d), spaces of %s, measured %s on %d cores. Do not "
            "edit by hand." % (
                rev, "clean tree" if not dirty else "UNCOMMITTED CHANGES", args.rooftune,
                kernel_tuner.__version__, sys.version.split()[0], numpy.__version__,
                scipy.__version__, SELECTION[0], SELECTION[1], args.scores, args.seed,
                args.seed + args.repeats - 1, SELECTION[0], SELECTION[1], args.hub_revision,
                time.strftime("%Y-%m-%d", time.gmtime()), os.cpu_count()))


def run(args):
    import multiprocessing

    import evaluate

    if args.seed <= SELECTION[1] or args.repeats < 2:
        die("--seed %d --repeats %d: the held-out seeds must come after the tables' %d-%d, "
            "at least two of them" % (args.seed, args.repeats, *SELECTION))
    cells = chosen(args.scores, args.choice)
    if not cells:
        die("%s has no cell with rows of both tools" % args.scores)
    os.makedirs(args.out, exist_ok=True)
    paths = write_spaces(args.out, args.spaces, cells)
    seeds = list(range(SELECTION[0], SELECTION[1] + 1)) + \
        list(range(args.seed, args.seed + args.repeats))
    path = os.path.join(args.out, "runs.csv")
    done = set()
    if os.path.exists(path) and os.path.getsize(path) > 0:
        for r in read_csv(path, RUN_COLS, {"budget": int, "seed": int}):
            done.add((r["tool"], r["space"], r["strategy"], r["budget"], r["seed"]))
    else:
        with open(path, "w", newline="") as f:
            csv.writer(f).writerow(RUN_COLS)
    with open(os.path.join(args.out, "provenance.txt"), "w") as f:
        f.write(provenance(args) + "\n")

    def todo(tool, sp, b):
        strategy = cells[(sp, b)][tool]["strategy"]
        return [s for s in seeds if (tool, sp, strategy, b, s) not in done]

    # The close cells first: they are the ones the comparison turns on.
    def key(cell):
        rt, kt = cells[cell]["rooftune"]["score"], cells[cell]["kernel_tuner"]["score"]
        return (rt >= kt + args.margin, cell)

    order = sorted(cells, key=key)
    with open(path, "a", newline="") as f, tempfile.TemporaryDirectory() as tmp:
        w = csv.writer(f)
        for sp, b in order:
            left = todo("rooftune", sp, b)
            if not left:
                continue
            strategy = cells[(sp, b)]["rooftune"]["strategy"]
            for first, last in (SELECTION, (args.seed, args.seed + args.repeats - 1)):
                if any(first <= s <= last for s in left):
                    for row in evaluate.rooftune_rows(args.rooftune, paths[sp], sp, [b],
                                                      last - first + 1, first, strategy):
                        if row[4] in left:
                            w.writerow(row)
            f.flush()
        copies = {}
        tasks = []
        for sp, b in order:
            left = todo("kernel_tuner", sp, b)
            if left:
                if sp not in copies:
                    copies[sp] = plain_copy(paths[sp], tmp)
                tasks.append((sp, copies[sp], cells[(sp, b)]["kernel_tuner"]["strategy"], [b],
                              left, 0))
        with multiprocessing.Pool(args.jobs, maxtasksperchild=1) as pool:
            for rows in pool.imap(evaluate.kt_task, tasks):
                w.writerows(rows)
                f.flush()
                print("kernel_tuner", rows[0][1], rows[0][3], rows[0][2], file=sys.stderr)
        repeat(args, cells, paths, path, copies, tmp)
    return 0


def repeat(args, cells, paths, runs_path, copies, tmp):
    """Seeds 1-3 of each chosen strategy once more, in the first cell it is chosen in, into
    OUT/repeat.csv: a strategy whose runs the seed does not fix cannot reproduce the rows it was
    chosen on, and this tells that apart from a changed environment."""
    import evaluate

    out = os.path.join(args.out, "repeat.csv")
    if os.path.exists(out):
        return
    first = {}
    for cell in sorted(cells):
        for tool in TOOLS:
            first.setdefault((tool, cells[cell][tool]["strategy"]), cell)
    before = {(r["tool"], r["space"], r["strategy"], r["budget"], r["seed"]): r["best"]
              for r in read_csv(runs_path, RUN_COLS, {"budget": int, "seed": int})}
    rows = []
    for (tool, strategy), (sp, b) in sorted(first.items()):
        if tool == "rooftune":
            again = evaluate.rooftune_rows(args.rooftune, paths[sp], sp, [b], 3, 1, strategy)
        else:
            if sp not in copies:
                copies[sp] = plain_copy(paths[sp], tmp)
            again = evaluate.kt_task((sp, copies[sp], strategy, [b], [1, 2, 3], 0))
        rows += [[tool, sp, strategy, b, r[4], before[(tool, sp, strategy, b, r[4])], r[5]]
                 for r in again]
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(REPEAT_COLS)
        w.writerows(rows)


# ---- table: the README from the committed CSVs ----------------------------------------------

def t975(df):
    """The 0.975 quantile of Student's t with df degrees of freedom (integer df >= 1): bisection
    on P(|T| < t), the finite series of Abramowitz and Stegun 26.7.3 and 26.7.4."""
    def inside(t):
        th = math.atan(t / math.sqrt(df))
        c2, s = math.cos(th) ** 2, math.sin(th)
        if df % 2:
            term, acc = math.cos(th), 0.0
            for k in range(3, df + 1, 2):  # cos, (2/3) cos^3, (2*4)/(3*5) cos^5, ...
                acc += term
                term *= c2 * (k - 1) / k
            return 2 / math.pi * (th + s * acc)
        term, acc = 1.0, 0.0
        for k in range(2, df + 1, 2):  # 1, (1/2) cos^2, (1*3)/(2*4) cos^4, ...
            acc += term
            term *= c2 * (k - 1) / k
        return s * acc

    lo, hi = 0.0, 1000.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if inside(mid) < 0.95 else (lo, mid)
    return (lo + hi) / 2


def summarize(values):
    """Mean and the half-width of its 95% t-interval (None with fewer than two values)."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, None
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return mean, t975(n - 1) * sd / math.sqrt(n)


def parse_range(text, what):
    try:
        a, b = (int(x) for x in text.split("-"))
    except ValueError:
        die("%s '%s': want FIRST-LAST, e.g. 11-30" % (what, text))
    if not 1 <= a <= b:
        die("%s '%s': want 1 <= FIRST <= LAST" % (what, text))
    return a, b


def repeat_lines(path):
    """What repeat.csv says: the strategies whose second run of a seed found another best time."""
    if not os.path.exists(path):
        return []
    differ, strategies = {}, set()
    for r in read_csv(path, REPEAT_COLS, {"budget": int, "seed": int}):
        key = (r["tool"], r["strategy"])
        strategies.add(key)
        a, b = r["best"], r["best_again"]
        for col, v in (("best", a), ("best_again", b)):
            try:
                float(v or "0")
            except ValueError:
                die("%s:%d: column %s: '%s' is not a number" % (path, r["_line"], col, v))
        if (a == "") != (b == "") or (a and not close(float(a), float(b))):
            differ[key] = differ.get(key, 0) + 1
    if not differ:
        return ["", "Seeds 1-3 of each of the %d chosen strategies run twice (`repeat.csv`): the "
                "same best times both times." % len(strategies)]
    which = ", ".join("%s %s (%d of 3 seeds)" % (NAMES[t], st, n)
                      for (t, st), n in sorted(differ.items()))
    return ["", "Seeds 1-3 of each of the %d chosen strategies run twice (`repeat.csv`): the best "
            "times differ for %s; the seed does not fix their runs, so their rows of seeds 1-10 "
            "cannot be reproduced." % (len(strategies), which)]


def table(args):
    cells = chosen(args.scores, args.choice)
    held = parse_range(args.heldout, "--heldout")
    if held[0] <= SELECTION[1]:
        die("--heldout %s overlaps the tables' seeds %d-%d" % (args.heldout, *SELECTION))
    spaces_path = os.path.join(args.out, "spaces.csv")
    runs_path = os.path.join(args.out, "runs.csv")
    spaces = {}
    for r in read_csv(spaces_path, SPACE_COLS, {"budget": int, "configs": int, "valid": int,
                                                "optimum": float, "worst": float,
                                                "random_best": float}):
        key = (r["space"], r["budget"])
        if key in spaces:
            die("%s:%d: space %s, budget %d given twice" % (spaces_path, r["_line"], *key))
        c = cells.get(key)
        if c and not all(close(r[k], c[t][k], 1e-6) for t in TOOLS
                         for k in ("optimum", "random_best")):
            die("%s:%d: column optimum or random_best: %s at %d is not the space of %s"
                % (spaces_path, r["_line"], r["space"], r["budget"], args.scores))
        if not r["optimum"] <= r["random_best"] <= r["worst"]:
            die("%s:%d: column random_best: want optimum <= random_best <= worst"
                % (spaces_path, r["_line"]))
        spaces[key] = r
    runs = {}
    for r in read_csv(runs_path, RUN_COLS, {"budget": int, "seed": int, "evaluations": int}):
        if r["best"]:
            try:
                r["best"] = float(r["best"])
            except ValueError:
                die("%s:%d: column best: '%s' is not a number" % (runs_path, r["_line"], r["best"]))
        sp = spaces.get((r["space"], r["budget"]))
        # spaces.csv has 9 significant digits
        if sp and r["best"] != "" and not (sp["optimum"] * (1 - 1e-7) <= r["best"]
                                           <= sp["worst"] * (1 + 1e-7)):
            die("%s:%d: column best: %.9g is outside the times of %s (%.9g to %.9g)"
                % (runs_path, r["_line"], r["best"], r["space"], sp["optimum"], sp["worst"]))
        key = (r["tool"], r["space"], r["strategy"], r["budget"])
        seeds = runs.setdefault(key, {})
        if r["seed"] in seeds:
            die("%s:%d: %s %s on %s at %d, seed %d given twice"
                % (runs_path, r["_line"], r["tool"], r["strategy"], r["space"], r["budget"],
                   r["seed"]))
        seeds[r["seed"]] = r
    cells = {k: v for k, v in cells.items() if k in spaces and k[1] < spaces[k]["configs"]}
    if not cells:
        die("%s describes no cell of %s" % (spaces_path, args.scores))

    def scores(tool, cell, first, last):
        """Per-seed scores of the chosen strategy (runs that failed left out), the seeds missing,
        and the rows."""
        sp = spaces[cell]
        span = sp["random_best"] - sp["optimum"]
        per = runs.get((tool, cell[0], cells[cell][tool]["strategy"], cell[1]), {})
        rows = [per[s] for s in range(first, last + 1) if s in per]
        ok = [r for r in rows if not r["note"].startswith("error")]
        bests = [r["best"] if r["best"] != "" else sp["worst"] for r in ok]
        vals = [(sp["random_best"] - x) / span if span > 0 else 1.0 for x in bests]
        return vals, bests, (last - first + 1) - len(rows), rows

    lines = ["# Kernel Tuner and rooftune without selection bias: each tool's strategy chosen on "
             "seeds %d-%d, scored on seeds %d-%d (generated)" % (*SELECTION, *held), ""]
    prov = os.path.join(args.out, "provenance.txt")
    if os.path.exists(prov):
        lines += [open(prov).read().strip(), ""]
    n_held = held[1] - held[0] + 1
    lines += [
        "Per (space, budget) cell where both tools have rows in `%s`: each tool's strategy %s "
        "on seeds %d-%d (random search excluded), then that one strategy run on seeds %d-%d and "
        "scored the same way "
        "(the same optimum and exact random-search expectation, failed configurations costing an "
        "evaluation on both sides). The interval is the mean's 95%% t-interval over the %d seeds; "
        "a cell is a tie when the two intervals overlap. The choice and the held-out score come "
        "from different seeds, so the held-out score carries no best-of-many bonus: it is what "
        "the chosen strategy scores on seeds it was not chosen on." % (
            # the path's last two parts: the same text wherever the checkout is
            "/".join(os.path.abspath(args.scores).split(os.sep)[-2:]),
            "with the best mean score P in the cell (the pick of results/tuning/hub)"
            if args.choice == "cell" else "chosen per budget: the one with the best mean score P "
            "over the budget's cells, used in each of them", *SELECTION, *held,
            n_held), "",
        "| space | budget | rooftune strategy | P, seeds %d-%d | P, seeds %d-%d (95%% interval) "
        "| Kernel Tuner strategy | P, seeds %d-%d | P, seeds %d-%d (95%% interval) | ahead |"
        % (*SELECTION, *held, *SELECTION, *held),
        "|---|---|---|---|---|---|---|---|---|"]
    verdicts = {}
    per_budget = {}
    notes = {}
    repro = []
    lower = []  # the cells where rooftune's held-out mean is below Kernel Tuner's
    for cell in sorted(cells):
        got = {}
        for tool in TOOLS:
            vals, _, missing, rows = scores(tool, cell, *held)
            for r in rows:
                if r["note"]:
                    k = (tool, cell, cells[cell][tool]["strategy"],
                         "error" if r["note"].startswith("error") else r["note"])
                    notes.setdefault(k, []).append(r["evaluations"])
            got[tool] = summarize(vals) + (len(vals),) if vals and not missing else None
            # seeds 1-10 again: the committed mean best time, reproduced here?
            _, bests, miss_sel, _ = scores(tool, cell, *SELECTION)
            if not miss_sel and bests:
                mean = sum(bests) / len(bests)
                repro.append((cell, tool, None if close(mean, cells[cell][tool]["mean_best"])
                              else mean))
        rt, kt = got["rooftune"], got["kernel_tuner"]
        if rt is None or kt is None or rt[1] is None or kt[1] is None:
            verdict = "not run"
        elif rt[0] - rt[1] > kt[0] + kt[1]:
            verdict = "rooftune"
        elif kt[0] - kt[1] > rt[0] + rt[1]:
            verdict = "Kernel Tuner"
        else:
            verdict = "tie"
        verdicts[cell] = verdict
        if verdict != "not run":
            if kt[0] > rt[0]:
                lower.append("%s at %d (%.3f against %.3f)" % (cell[0], cell[1], rt[0], kt[0]))
            d = per_budget.setdefault(cell[1], [])
            d.append((cells[cell]["rooftune"]["score"], rt[0], cells[cell]["kernel_tuner"]["score"],
                      kt[0], verdict))

        def show(g):
            if g is None:
                return "not run"
            return "%.3f [%.3f, %.3f]" % (g[0], g[0] - g[1], g[0] + g[1]) if g[1] is not None \
                else "%.3f" % g[0]

        lines.append("| %s | %d | %s | %.3f | %s | %s | %.3f | %s | %s |" % (
            cell[0], cell[1], cells[cell]["rooftune"]["strategy"],
            cells[cell]["rooftune"]["score"], show(rt), cells[cell]["kernel_tuner"]["strategy"],
            cells[cell]["kernel_tuner"]["score"], show(kt),
            "**Kernel Tuner**" if verdict == "Kernel Tuner" else verdict))
    count = {v: sum(1 for x in verdicts.values() if x == v)
             for v in ("rooftune", "tie", "Kernel Tuner", "not run")}
    ran = len(cells) - count["not run"]
    lines += ["", "Of the %d cells with both tools' held-out runs, rooftune is ahead in **%d**, "
              "tied in **%d** and behind in **%d**%s." % (
                  ran, count["rooftune"], count["tie"], count["Kernel Tuner"],
                  "; %d cells are not run yet" % count["not run"] if count["not run"] else ""), ""]
    lines += ["Whatever the intervals, rooftune's held-out mean is the higher in %d of the %d "
              "cells%s" % (ran - len(lower), ran, "; Kernel Tuner's in %s." % ", ".join(lower)
                           if lower else "."), ""]
    lines += ["Per budget, the mean over the cells of each tool's chosen strategy: its score on "
              "the seeds it was chosen on and on the held-out seeds.", "",
              "| budget | cells | rooftune P, seeds %d-%d | rooftune P, seeds %d-%d | Kernel Tuner "
              "P, seeds %d-%d | Kernel Tuner P, seeds %d-%d | ahead / tie / behind |"
              % (*SELECTION, *held, *SELECTION, *held), "|---|---|---|---|---|---|---|"]
    every = []
    for b in sorted(per_budget):
        d = per_budget[b]
        every += d
        lines.append("| %d | %d | %.3f | %.3f | %.3f | %.3f | %d / %d / %d |" % (
            b, len(d), *(sum(x[i] for x in d) / len(d) for i in range(4)),
            *(sum(1 for x in d if x[4] == v) for v in ("rooftune", "tie", "Kernel Tuner"))))
    if every:
        lines.append("| all | %d | %.3f | %.3f | %.3f | %.3f | %d / %d / %d |" % (
            len(every), *(sum(x[i] for x in every) / len(every) for i in range(4)),
            *(count[v] for v in ("rooftune", "tie", "Kernel Tuner"))))
        lines += ["", "From the seeds the strategy was chosen on to the held-out seeds the mean "
                  "score of the chosen strategies falls by %.3f for rooftune and by %.3f for "
                  "Kernel Tuner: an estimate of what choosing the best of several noisy means "
                  "added to the tables' scores." % (
                      sum(x[0] - x[1] for x in every) / len(every),
                      sum(x[2] - x[3] for x in every) / len(every))]
    same = sum(1 for x in repro if x[2] is None)
    lines += ["", "Seeds %d-%d of each chosen strategy run again in this evaluation: the mean best "
              "time equals `scores.csv`'s (to 1e-7, relative) for %d of %d (cell, tool) pairs%s" % (
                  *SELECTION, same, len(repro), "." if same == len(repro) else
                  "; not for " + ", ".join("%s %s on %s at %d (%.6g here, %.6g there)" % (
                      NAMES[t], cells[c][t]["strategy"], c[0], c[1], x, cells[c][t]["mean_best"])
                      for c, t, x in repro if x is not None) + ".")]
    lines += repeat_lines(os.path.join(args.out, "repeat.csv"))
    if notes:
        lines += ["", "Held-out runs that stopped before their budget or failed (a failed run is "
                  "left out of its cell's score; a run that stopped early is scored on what it "
                  "evaluated):", "",
                  "| tool | space | budget | strategy | note | runs | mean evaluations |",
                  "|---|---|---|---|---|---|---|"]
        for (tool, cell, strategy, note), ev in sorted(notes.items()):
            lines.append("| %s | %s | %d | %s | %s | %d | %.1f |" % (
                NAMES[tool], cell[0], cell[1], strategy, note, len(ev), sum(ev) / len(ev)))
    else:
        lines += ["", "Every held-out run of both tools evaluated its full budget of distinct "
                  "configurations."]
    lines += ["", "Inputs: `runs.csv` (every run: tool, space, strategy, budget, seed, best time, "
              "distinct evaluations, seconds, note), `spaces.csv` (per space and budget: "
              "configurations, valid ones, optimum, slowest valid time, random search's "
              "expectation), `repeat.csv` (seeds 1-3 run twice), `provenance.txt`."]
    with open(os.path.join(args.out, "README.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("rooftune ahead %d, tie %d, behind %d of %d cells (%d not run)" % (
        count["rooftune"], count["tie"], count["Kernel Tuner"], ran, count["not run"]))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="step", required=True)
    r = sub.add_parser("run")
    r.add_argument("out")
    r.add_argument("spaces", nargs="+")
    r.add_argument("--scores", required=True)
    r.add_argument("--choice", default="cell", choices=CHOICES)
    r.add_argument("--rooftune", default="build-rel/rooftune")
    r.add_argument("--seed", type=int, default=11)
    r.add_argument("--repeats", type=int, default=20)
    r.add_argument("--jobs", type=int, default=1)
    r.add_argument("--margin", type=float, default=0.05)
    r.add_argument("--hub-revision", default="benchmark_hub")
    t = sub.add_parser("table")
    t.add_argument("out")
    t.add_argument("--scores", required=True)
    t.add_argument("--choice", default="cell", choices=CHOICES)
    t.add_argument("--heldout", default="11-30")
    c = sub.add_parser("choice")
    c.add_argument("out")
    c.add_argument("spaces", nargs="+")
    c.add_argument("--scores", required=True)
    c.add_argument("--runs", required=True)
    args = ap.parse_args()
    if args.step == "choice":
        return make_choice(args)
    return run(args) if args.step == "run" else table(args)


if __name__ == "__main__":
    sys.exit(main())
