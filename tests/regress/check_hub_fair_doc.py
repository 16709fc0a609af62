#!/usr/bin/env python3
"""results.hub_fair: the figures docs/guides/tuning.md states in its paragraph "Without selection
bias" are those of the generated tables results/tuning/hub-fair/README.md (seeds 11-60, one
strategy per budget), cell-11-60/README.md (seeds 11-60, the per-cell choice) and
seeds-61-80/README.md (the per-cell choice), seeds-61-110/README.md (seeds 61-110, one
strategy per budget) and seeds-111-160/README.md and seeds-111-160/cell/README.md (seeds 111-160,
both rules, the choice made from seeds-111-160/scores-1-10.csv): the counts of cells ahead, tied and behind, the cells
where rooftune's held-out mean is the higher, the fall of the chosen strategies' mean score from
seeds 1-10, the reproduced pairs, and every cell the paragraph cites in the form
"SPACE at BUDGET: `STRATEGY` P1 on seeds 1-10, P2 on seeds A-B".

usage: check_hub_fair_doc.py ROOT [--page=PATH]"""
import os
import re
import sys

root = sys.argv[1]
page = os.path.join(root, "docs/guides/tuning.md")
for a in sys.argv[2:]:
    if a.startswith("--page="):
        page = a[len("--page="):]
text = open(page).read()
start = text.find("**Without selection bias**")
if start < 0:
    sys.exit("FAIL %s: no paragraph '**Without selection bias**'" % page)
end = re.search(r"\n(\*\*|#)", text[start + 2:])
section = " ".join(text[start:start + 2 + end.start() if end else len(text)].split())
failures = []
cited = 0
tables = {}
for folder in ("", "cell-11-60", "seeds-61-80", "seeds-61-110", "seeds-111-160",
               "seeds-111-160/cell"):
    readme = open(os.path.join(root, "results/tuning/hub-fair", folder, "README.md")).read()
    flat = " ".join(readme.split())
    held = re.search(r"scored on seeds (\d+-\d+) \(generated\)", readme).group(1)
    m = re.search(r"Of the (\d+) cells with both tools' held-out runs, rooftune is ahead in "
                  r"\*\*(\d+)\*\*, tied in \*\*(\d+)\*\* and behind in \*\*(\d+)\*\*", flat)
    n, ahead, tie, behind = m.groups()
    higher = re.search(r"rooftune's held-out mean is the higher in (\d+) of", flat).group(1)
    fall = re.search(r"falls by (-?[\d.]+) for rooftune and by (-?[\d.]+) for Kernel Tuner", flat)
    allrow = re.search(r"\| all \| \d+ \| ([-\d.]+) \| ([-\d.]+) \| ([-\d.]+) \| ([-\d.]+) \|", flat)
    repro = re.search(r"for (\d+) of (\d+) \(cell, tool\) pairs", flat)
    want = [
        "on seeds %s rooftune is ahead in %s, tied in %s and behind in %s of the %s cells"
        % (held, ahead, tie, behind, n),
        "its held-out mean is the higher in %s of %s" % (higher, n),
        "falls by %s for rooftune and by %s for Kernel Tuner" % fall.groups(),
        "(rooftune %s to %s, Kernel Tuner %s to %s)" % allrow.groups(),
        "reproduced for %s of %s" % repro.groups(),
    ]
    for w in want:
        if w not in section:
            failures.append("the paragraph should say '%s' (%s)" % (
                w, os.path.join("results/tuning/hub-fair", folder, "README.md")))
    # A cell's rows, per held-out seed set: two tables (two choice rules) may share one.
    rows = tables.setdefault(held, {})
    for line in readme.splitlines():
        c = [x.strip() for x in line.split("|")[1:-1]]
        if len(c) == 9 and c[1].isdigit():
            got = rows.setdefault((c[0], int(c[1])), {})
            got.setdefault(c[2], set()).add((c[3], c[4].split()[0]))
            got.setdefault(c[5], set()).add((c[6], c[7].split()[0]))
for held, rows in tables.items():
    for m in re.finditer(r"(\w+) at (\d+): `(\w+)` (-?\d\.\d{3}) on seeds 1-10, (-?\d\.\d{3}) on "
                         r"seeds %s" % held, section):
        cited += 1
        sp, b, strategy, p1, p2 = m.groups()
        got = rows.get((sp, int(b)), {}).get(strategy, set())
        if (p1, p2) not in got:
            failures.append("'%s': the tables have %s" % (m.group(0), sorted(got) or None))
if not cited:
    failures.append("the paragraph cites no cell as 'SPACE at BUDGET: `STRATEGY` P1 on seeds "
                    "1-10, P2 on seeds A-B'")
for f in failures:
    print("FAIL", f)
print("hub-fair figures in the tuning guide: %d cited cells, %d wrong" % (cited, len(failures)))
sys.exit(1 if failures else 0)
