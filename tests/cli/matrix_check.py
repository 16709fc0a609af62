"""Independent checks of `rooftune matrix` (tests/cli/test_matrix.sh): reads Matrix Market files
with a reader of its own (coordinate real general, as rooftune writes them) or with
scipy.io.mmread, and compares them with each other and with the structure rooftune printed.

  matrix_check.py stats FILE.mtx STATS.txt BLOCK   the printed structure equals this file's
  matrix_check.py same A.mtx B.mtx                 the two files hold the same matrix, bit for bit
  matrix_check.py scipy FILE.mtx                   scipy.io.mmread reads the same matrix as ours
"""
import re
import sys


def read(path):
    """(rows, cols, {(i, j): value}) from a coordinate real general file, 0-based."""
    with open(path) as f:
        banner = f.readline().split()
        assert banner[:4] == ["%%MatrixMarket", "matrix", "coordinate", "real"], banner
        assert banner[4] == "general", banner
        line = f.readline()
        while line.startswith("%") or not line.strip():
            line = f.readline()
        rows, cols, nnz = (int(x) for x in line.split())
        entries = {}
        for line in f:
            if line.startswith("%") or not line.strip():
                continue
            i, j, v = line.split()
            key = (int(i) - 1, int(j) - 1)
            assert key not in entries, f"{path}: duplicate entry {key}"
            entries[key] = float(v)
    assert len(entries) == nnz, f"{path}: header says {nnz} entries, file has {len(entries)}"
    return rows, cols, entries


def stats(path, printed, block):
    rows, cols, e = read(path)
    per_row = [0] * rows
    for i, _ in e:
        per_row[i] += 1
    bandwidth = max((abs(i - j) for i, j in e), default=0)
    footprint = sum(len({j for (i, j) in e if i // block == b}) for b in range((rows + block - 1) // block))
    text = open(printed).read()

    def num(label, pattern=r"([0-9.e+-]+)"):
        m = re.search(label + r"\s+" + pattern, text)
        assert m, f"'{label}' missing from:\n{text}"
        return m.groups()

    assert int(num("rows")[0]) == rows
    assert int(num("columns")[0]) == cols
    assert int(num("nonzeros")[0]) == len(e)
    mn, mean, mx, _, empty = num("per row", r"min (\d+), mean ([0-9.e+-]+), max (\d+), stddev "
                                 r"([0-9.e+-]+), empty rows (\d+)")
    assert int(mn) == min(per_row) and int(mx) == max(per_row), (mn, mx)
    assert abs(float(mean) - len(e) / rows) <= 1e-3 * len(e) / rows
    assert int(empty) == per_row.count(0)
    assert int(num("bandwidth")[0]) == bandwidth
    reuse, blk, staged = num("tiled reuse", r"([0-9.e+-]+) \(block of (\d+) rows: (\d+) staged")
    assert int(blk) == block and int(staged) == footprint, (blk, staged, footprint)
    assert abs(float(reuse) - len(e) / footprint) <= 1e-3 * len(e) / footprint
    print(f"{path}: {rows} x {cols}, {len(e)} nonzeros, bandwidth {bandwidth}, "
          f"reuse {len(e) / footprint:.4g}: as printed")


def same(a, b):
    ra, rb = read(a), read(b)
    assert ra == rb, f"{a} and {b} differ"
    print(f"{a} == {b} ({len(ra[2])} entries)")


def scipy_same(path):
    import scipy.io
    m = scipy.io.mmread(path).tocoo()
    rows, cols, e = read(path)
    assert m.shape == (rows, cols), (m.shape, rows, cols)
    theirs = {(int(i), int(j)): float(v) for i, j, v in zip(m.row, m.col, m.data)}
    assert len(theirs) == m.nnz, "scipy returned duplicate coordinates"
    assert theirs == e, f"scipy.io.mmread reads {path} differently"
    print(f"{path}: scipy.io.mmread reads the same {rows} x {cols} matrix ({len(e)} entries)")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "stats":
        stats(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif cmd == "same":
        same(sys.argv[2], sys.argv[3])
    elif cmd == "scipy":
        scipy_same(sys.argv[2])
    else:
        sys.exit(f"unknown command {cmd}")
