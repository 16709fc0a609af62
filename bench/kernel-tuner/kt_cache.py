"""Kernel Tuner cache files as the evaluation scripts name and open them: one copy of the helpers
that evaluate.py, run_kernel_tuner.py and tables.py share (they import it from their own folder,
which Python puts first on sys.path when a script is run by its path).
Only the standard library.
"""
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


def plain_copy(path, folder):
    """tune_cache wants an uncompressed .json it may reopen; give it a private copy."""
    out = os.path.join(folder, label_of(path) + ".json")
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as src, open(out, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return out
