#!/usr/bin/env python3
"""Runs a summary .sql file against a store where the sqlite3 shell is missing (the GPU host has
the SQLite runtime but not its shell): statements in order, `.print` lines echoed, each result as
a header line and one line per row, EXP and LN added (the shell's math functions the summaries
use). Usage: ci/sql-print.py STORE.db FILE.sql"""
import math
import sqlite3
import sys


def cell(v):
    if v is None:
        return ""
    return "%.6g" % v if isinstance(v, float) else str(v)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: ci/sql-print.py STORE.db FILE.sql\n")
        return 2
    db = sqlite3.connect(argv[1])
    db.create_function("EXP", 1, lambda x: None if x is None else math.exp(x))
    db.create_function("LN", 1, lambda x: None if x is None or x <= 0 else math.log(x))
    pending = []
    with open(argv[2]) as sql:
        for line in sql:
            if line.startswith(".print") and not "".join(pending).strip():
                print(line[len(".print"):].strip().strip("'").replace("''", "'"))
                continue
            pending.append(line)
            text = "".join(pending)
            if not sqlite3.complete_statement(text):
                continue
            pending = []
            cursor = db.execute(text)
            if cursor.description:
                print("  ".join(d[0] for d in cursor.description))
                for row in cursor.fetchall():
                    print("  ".join(cell(v) for v in row))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
