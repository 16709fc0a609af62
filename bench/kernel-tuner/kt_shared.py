"""What the evaluation scripts share: how a Kernel Tuner cache file is named and opened, and how a
run's results are scored at a budget; one copy of the helpers that evaluate.py, run_kernel_tuner.py
and tables.py share (they import it from their own folder, which Python puts first on sys.path
when a script is run by its path).
Only the standard library.
"""
import csv
import gzip
import os
import shutil


def label_of(path):
    """The space's label: the file name without .gz and .json."""
    name = os.path.basename(path)
    for suffix in (".gz", ".json"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def read_rows(path, columns, fail, what=""):
    """[(line, row)] of a CSV file that has `columns`; fail(message) (the script's own exit) when
    it cannot be opened or lacks one of them, `what` saying whose file it should be."""
    try:
        f = open(path, newline="")
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    with f:
        reader = csv.DictReader(f)
        missing = [c for c in columns if c not in (reader.fieldnames or [])]
        if missing:
            fail("%s lacks the column(s) %s%s" % (path, ", ".join(missing), what))
        return list(enumerate(reader, 2))


def plain_copy(path, folder):
    """tune_cache wants an uncompressed .json it may reopen; give it a private copy."""
    out = os.path.join(folder, label_of(path) + ".json")
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as src, open(out, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return out


def best_time(results, keys, budget=None):
    """Best time among the first `budget` distinct configurations evaluated (all when None), and
    how many distinct ones there were.

    Some strategies return more results than max_fevals (basinhopping, for one, counts its
    evaluations differently), so the budget is applied here, the same way for every strategy.
    Failed configurations count as evaluations, as in rooftune's replay. A configuration is told
    apart by the text of its values (a list is a value too)."""
    seen, best = set(), None
    for r in results:
        key = tuple(str(r[k]) for k in keys)
        if key in seen:
            continue
        if budget is not None and len(seen) >= budget:
            break
        seen.add(key)
        t = r.get("time")
        if isinstance(t, (int, float)) and (best is None or t < best):
            best = t
    return best, len(seen)
