#!/usr/bin/env bash
# The test family through the real CLI: listed beside the project's families (its CUDA kernel too,
# unavailable without a GPU), measured and verified by `run`, and on a GPU host its CUDA kernel run
# from the plugin built from its own cuda/ folder.
set -euo pipefail
exe=$1; dir=$2; work=$3; plugin_dir=${4:-}
rm -rf "$work"; mkdir -p "$work"; cd "$work"

ROOFTUNE_NO_CUDA=1 "$exe" list >list.txt
for k in rowsum.cpu.serial rowsum.cuda.simple spmm.cpu.csr spmm.cuda.tiled dspmm.cpu.sender; do
  grep -q "$k" list.txt || { echo "FAIL: $k not listed"; cat list.txt; exit 1; }
done
grep "rowsum.cuda.simple" list.txt | grep -qi unavailable ||
  { echo "FAIL: rowsum.cuda.simple not marked unavailable without CUDA"; exit 1; }

ROOFTUNE_NO_CUDA=1 "$exe" run "$dir/rowsum.yaml" --db cpu.db >run.txt 2>&1 ||
  { echo "FAIL: run"; cat run.txt; exit 1; }
python3 - cpu.db <<'PY'
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(
    "SELECT kernel, status FROM points WHERE kernel LIKE 'rowsum.%'").fetchall()
cpu = [r for r in rows if r[0] == "rowsum.cpu.serial"]
assert len(cpu) == 4 and all(s == "ok" for _, s in cpu), rows
assert not [r for r in rows if r[0] == "rowsum.cuda.simple"], rows  # unavailable: not recorded
print("rowsum on the CPU: %d points verified and timed" % len(cpu))
PY

if [ -z "$plugin_dir" ]; then
  echo "no CUDA plugin in this build: the CUDA part of the family is not built"; exit 0
fi
# grep reads all of nm's output (no -q): an early exit would kill nm with SIGPIPE, which
# pipefail turns into a failure once the symbol list outgrows the pipe buffer.
nm "$plugin_dir/librooftune_cuda.so" | grep rt_rowsum_cuda_describe >/dev/null ||
  { echo "FAIL: the family's CUDA code is not in its plugin"; exit 1; }
if ! ls /dev/nvidia0 >/dev/null 2>&1; then
  echo "plugin built with the family's CUDA kernel; no GPU here to run it"; exit 0
fi
ROOFTUNE_PLUGIN_DIR="$plugin_dir" "$exe" run "$dir/rowsum.yaml" --db gpu.db >gpu.txt 2>&1 ||
  { echo "FAIL: GPU run"; cat gpu.txt; exit 1; }
python3 - gpu.db <<'PY'
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(
    "SELECT status FROM points WHERE kernel = 'rowsum.cuda.simple'").fetchall()
assert len(rows) == 4 and all(r[0] == "ok" for r in rows), rows
print("rowsum.cuda.simple on the GPU: 4 points verified and timed")
PY
