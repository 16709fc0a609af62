# A malformed config makes `run` and `validate` exit non-zero with a file:line:col message.
source "$(dirname "$0")/lib.sh"
set +e
out=$("$RT" run "$HERE/bad_kernel.yaml" --db "$WORK/x.db" 2>&1); rc=$?
set -e
[ "$rc" = 2 ] || fail "run on an unknown kernel exited $rc, want 2: $out"
echo "$out" | grep -q "bad_kernel.yaml:5:" || fail "no file:line in: $out"
echo "$out" | grep -q "spmm.cpu.csr" || fail "no suggestion in: $out"
[ ! -e "$WORK/x.db" ] || fail "a store was created for a bad config"
set +e
out=$("$RT" validate "$HERE/bad_measure.yaml" 2>&1); rc=$?
set -e
[ "$rc" = 2 ] || fail "validate exited $rc, want 2: $out"
echo "$out" | grep -q "bad_measure.yaml:7:" || fail "no file:line in: $out"
echo "$out" | grep -q "max_reps" || fail "the key is not named in: $out"
set +e
out=$("$RT" run "$HERE/small.yaml" --set measure.min_reps=-3 --db "$WORK/y.db" 2>&1); rc=$?
set -e
[ "$rc" = 2 ] || fail "a bad --set exited $rc, want 2: $out"
echo "$out" | grep -q "min_reps" || fail "bad --set not named: $out"
set +e
out=$("$RT" run "$WORK/missing.yaml" 2>&1); rc=$?
set -e
[ "$rc" = 2 ] || fail "a missing config exited $rc, want 2"
echo "$out" | grep -q "missing.yaml" || fail "missing file not named: $out"

# A config file of 5 MiB (issue 13, item 14): refused before it is parsed (the node tree would take
# some 60 times the text), with the limit named.
{
  printf 'experiment: {name: big}\nmatrices: [{name: b, generator: banded, rows: 100}]\n'
  printf 'kernels: [{name: spmm.cpu.csr}]\nproblem: {K: [8]}\n'
  python3 -c "import sys; sys.stdout.write(('#' + 'x' * 99 + '\n') * 52429)"
} >"$WORK/big.yaml"
set +e
"$RT" validate "$WORK/big.yaml" >"$WORK/big.log" 2>&1
r=$?
set -e
[ "$r" = 2 ] && grep -q "big.yaml' is larger than 4 MiB; not a config file" "$WORK/big.log" ||
  fail "a 5 MiB config: exit $r: $(head -c 300 "$WORK/big.log")"
echo "bad configs: ok"
