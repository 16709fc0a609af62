#!/usr/bin/env bash
# rooftune matrix: the structure it prints equals an independent computation from the file it
# writes; a written file read back and written again is the same matrix; orderings convert (RCM
# undoes a random relabelling's bandwidth); config entries are built as a run builds them; bad
# input names what is wrong. With a 4th argument "scipy": scipy.io.mmread reads every written file
# as our reader does (exit 77, skipped, when no python3 has scipy).
source "$(dirname "$0")/lib.sh"
check() { python3 "$HERE/matrix_check.py" "$@"; }

if [ "${4:-}" = scipy ]; then
  py=""
  for p in python3 /usr/bin/python3; do
    if "$p" -c "import scipy.io" 2>/dev/null; then py=$p; break; fi
  done
  [ -n "$py" ] || { echo "SKIP: no python3 with scipy (Debian: python3-scipy)"; exit 77; }
  "$RT" matrix --generator rmat --arg scale=9 --arg edge_factor=6 --arg seed=3 --out "$WORK/rmat.mtx" >/dev/null
  "$RT" matrix --generator xct --arg image=12 --arg angles=16 --ordering hilbert --out "$WORK/xct.mtx" >/dev/null
  "$RT" matrix --generator uniform --arg rows=300 --arg cols=200 --arg nnz_per_row=4 --out "$WORK/uni.mtx" >/dev/null
  for f in rmat xct uni; do
    "$py" "$HERE/matrix_check.py" scipy "$WORK/$f.mtx"
    # ours: read the file and write it again; scipy must read the copy identically too
    "$RT" matrix --file "$WORK/$f.mtx" --out "$WORK/$f.again.mtx" >/dev/null
    "$py" "$HERE/matrix_check.py" scipy "$WORK/$f.again.mtx"
    "$py" "$HERE/matrix_check.py" same "$WORK/$f.mtx" "$WORK/$f.again.mtx"
  done
  echo "matrix scipy: ok"
  exit 0
fi

# 1. Structure against the written file (two block sizes; a matrix with empty rows).
"$RT" matrix --generator rmat --arg scale=8 --arg edge_factor=4 --arg seed=5 --block-size 32 \
  --out "$WORK/rmat.mtx" >"$WORK/rmat.txt"
cat "$WORK/rmat.txt"
check stats "$WORK/rmat.mtx" "$WORK/rmat.txt" 32
grep -q "empty rows 0" "$WORK/rmat.txt" && fail "expected an R-MAT matrix with empty rows"
"$RT" matrix --generator banded --arg rows=500 --arg bandwidth=4 --block-size 100 \
  --out "$WORK/band.mtx" >"$WORK/band.txt"
check stats "$WORK/band.mtx" "$WORK/band.txt" 100

# 2. Our reader: read, write again, same matrix, same bytes.
"$RT" matrix --file "$WORK/rmat.mtx" --out "$WORK/rmat2.mtx" >/dev/null
check same "$WORK/rmat.mtx" "$WORK/rmat2.mtx"
cmp -s <(grep -v '^%' "$WORK/rmat.mtx") <(grep -v '^%' "$WORK/rmat2.mtx") ||
  fail "rewriting a written file changed it"
"$RT" matrix --file "$WORK/band.mtx" --out - 2>/dev/null >"$WORK/band-stdout.mtx"
check same "$WORK/band.mtx" "$WORK/band-stdout.mtx"

# 3. Orderings: a random relabelling spreads the band; RCM brings it back.
"$RT" matrix --file "$WORK/band.mtx" --ordering random:9 --out "$WORK/shuffled.mtx" >"$WORK/shuffled.txt"
"$RT" matrix --file "$WORK/shuffled.mtx" --ordering rcm --out "$WORK/rcm.mtx" >"$WORK/rcm.txt"
check stats "$WORK/shuffled.mtx" "$WORK/shuffled.txt" 256
check stats "$WORK/rcm.mtx" "$WORK/rcm.txt" 256
bw() { sed -n 's/^  bandwidth *//p' "$1"; }
[ "$(bw "$WORK/shuffled.txt")" -gt 100 ] || fail "random ordering kept the band: $(bw "$WORK/shuffled.txt")"
[ "$(bw "$WORK/rcm.txt")" -le 8 ] || fail "RCM did not recover a narrow band: $(bw "$WORK/rcm.txt")"

# 4. A config's matrix entry is the matrix a run builds from it.
"$RT" matrix --config "$HERE/small.yaml" --name band --out "$WORK/cfg.mtx" >"$WORK/cfg.txt"
grep -q "'band' of" "$WORK/cfg.txt" || fail "config entry not named"
"$RT" matrix --generator banded --arg rows=3000 --arg bandwidth=9 --arg seed=1 --out "$WORK/gen.mtx" >/dev/null
check same "$WORK/cfg.mtx" "$WORK/gen.mtx"

# 5. Bad input.
expect_usage() {
  local want=$1; shift
  if "$RT" matrix "$@" >"$WORK/out" 2>"$WORK/err"; then fail "accepted: $*"; fi
  grep -q -- "$want" "$WORK/err" || { cat "$WORK/err"; fail "message lacks '$want' for: $*"; }
}
expect_usage "no matrix entry named 'nope'" --config "$HERE/small.yaml" --name nope
expect_usage "did you mean 'scale'" --generator rmat --arg scael=3
expect_usage "missing.mtx" --file "$WORK/missing.mtx"
expect_usage "exactly one of" --generator rmat --file "$WORK/rmat.mtx"
expect_usage "expected KEY=VALUE" --generator rmat --arg scale
expect_usage "did you mean" --file "$WORK/band.mtx" --ordering rcn
echo "matrix: ok"
