"""Parses the fixture's export with Python's own csv and json modules: an independent reader.

Usage: check_export.py <test_store_export binary>. Exits non-zero on the first mismatch."""
import csv
import io
import json
import subprocess
import sys

COLUMNS = ["experiment", "run_id", "kernel", "backend", "matrix", "params", "problem", "ranks",
           "device", "status", "reason", "verified", "rel_error", "samples", "time_median_s",
           "time_min_s", "time_max_s", "ci_rel", "gflops", "gnnz_s", "bound_s", "efficiency",
           "setup_s", "metrics", "git_revision"]


def dump(binary, fmt, *experiment):
    out = subprocess.run([binary, "dump", fmt, *experiment], check=True, capture_output=True)
    return out.stdout


def check(cond, what):
    if not cond:
        sys.exit("check failed: " + what)


def main():
    binary = sys.argv[1]

    rows = json.loads(dump(binary, "json"))
    check(isinstance(rows, list) and len(rows) == 3, "three points")
    for row in rows:
        check(list(row.keys()) == COLUMNS, "key order %r" % list(row.keys()))
    p1, p2, p3 = rows
    check([r["experiment"] for r in rows] == ["spmm", "gemm", "spmm"], "point order")
    check(p1["params"] == {"col_block": 8, "row_block": 64}, "params nested: %r" % p1["params"])
    check(p1["problem"] == {"K": 32, "precision": "fp32"}, "problem nested")
    check(p3["params"] == {"staging": 'ell,"x"', "tile": 4}, "params with quotes")
    check(p2["params"] == {}, "empty params")
    check(p1["reason"] == 'needs 2, got "3"\nsecond line', "reason escaped: %r" % p1["reason"])
    check(p3["reason"] == "bad \ufffd byte, ctrl \x01, 5 \u00b5s, tab\t", "utf-8: %r" % p3["reason"])
    check(p2["reason"] is None and p2["rel_error"] is None and p2["gflops"] is None, "nulls")
    check(p1["verified"] is True and p2["verified"] is False, "verified as boolean")
    check(p1["run_id"] == 1 and p3["ranks"] == 4 and p1["samples"] == 5 and p2["samples"] == 0,
          "integers")
    check(p1["gnnz_s"] == 0.1 + 0.2 and p1["gflops"] == 1000.0 / 3.0, "bit-exact reals")
    check(p1["rel_error"] == 1.5e-7 and p1["time_median_s"] == 0.0020, "reals")
    check(p3["bound_s"] is None and p1["bound_s"] == 0.001 and p1["efficiency"] == 0.5, "bound")
    check(p1["metrics"] == {"dram_bytes_read": 123456789,
                            "l2_misses": {"unavailable": 'perf_event_paranoid=3, needs <= 2 "x"'},
                            "ratio": 0.1 + 0.2}, "metrics: %r" % p1["metrics"])
    check(p2["metrics"] == {}, "no metrics")
    check(p1["git_revision"] == "0123abcd" and p1["status"] == "ok" and p2["status"] == "wrong",
          "text columns")

    only = json.loads(dump(binary, "json", "gemm"))
    check(len(only) == 1 and only[0]["kernel"] == "gemm.cpu.blocked", "experiment filter")
    check(json.loads(dump(binary, "json", "empty")) == [], "empty experiment")

    raw = dump(binary, "csv")
    check(raw.startswith((",".join(COLUMNS) + "\r\n").encode()), "CSV header")
    table = list(csv.reader(io.StringIO(raw.decode("utf-8", errors="surrogateescape"),
                                        newline="")))
    check(table[0] == COLUMNS and len(table) == 4, "CSV shape")
    check(all(len(r) == len(COLUMNS) for r in table), "CSV row widths")
    by_name = [dict(zip(COLUMNS, r)) for r in table[1:]]
    check(by_name[0]["reason"] == 'needs 2, got "3"\nsecond line', "CSV reason")
    check(json.loads(by_name[0]["metrics"]) == p1["metrics"], "CSV metrics cell is JSON")
    check(json.loads(by_name[2]["params"]) == p3["params"], "CSV params cell is JSON")
    check(by_name[1]["rel_error"] == "" and float(by_name[0]["gnnz_s"]) == 0.1 + 0.2, "CSV values")


if __name__ == "__main__":
    main()
