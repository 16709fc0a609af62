# baselines.cover (issue 33, item 1): every committed paper config's baseline entries (kernels that
# run cuSPARSE, cuBLAS or cublasXt as they are) cover every algorithm and layout the library
# offers, as the kernels' schemas list them; and the check fires: fixture configs that leave out
# an algorithm or a layout fail naming it, split entries that cover everything pass, and garbage
# (not YAML, an unknown kernel, a missing file) is bad input (exit 2) naming the file.
#   $1 = the baseline_cover program, $2 = the source tree
set -uo pipefail
COVER=$1
SRC=$2
FIX="$SRC/tests/regress/baseline-cover"
fail() { echo "FAIL: $*" >&2; exit 1; }
# run WANT ARGS...: runs the checker, keeps its output in $OUT, fails unless it exits with WANT.
run() {
  local want=$1; shift
  OUT=$("$COVER" "$@" 2>&1)
  local rc=$?
  [ "$rc" = "$want" ] || fail "baseline_cover $* exited $rc, want $want:
$OUT"
}
has() { grep -qF -- "$1" <<<"$OUT" || fail "no '$1' in:
$OUT"; }

configs=("$SRC"/configs/paper/*.yaml)
[ -e "${configs[0]}" ] || fail "no config in $SRC/configs/paper"
run 0 "${configs[@]}"
echo "$OUT"
# The paper configs hold the baselines the issue names: the check must have seen them.
for k in tiled-spmm-vs-cusparse spdnn-inference gemm-tile-size sptrsv-speedup; do
  grep -q "configs/paper/$k.yaml: [1-9][0-9]* baseline kernel(s), every option covered" <<<"$OUT" ||
    fail "configs/paper/$k.yaml was not checked as a config with baselines"
done

run 1 "$FIX/missing-alg.yaml"
has "missing-alg.yaml:10:"
has "spmm.cuda.cusparse leaves out alg csr_alg2, coo_alg1, coo_alg2, coo_alg3, coo_alg4, blocked_ell"
grep -q "layout" <<<"$OUT" && fail "missing-alg.yaml sweeps both layouts, yet: $OUT"

run 1 "$FIX/missing-layout.yaml"
has "missing-layout.yaml:8:"
has "spmm.cuda.cusparse leaves out problem layout col (the library offers row|col)"
grep -q "leaves out alg" <<<"$OUT" && fail "missing-layout.yaml lists every algorithm, yet: $OUT"

run 0 "$FIX/split-entries.yaml"
has "split-entries.yaml: 1 baseline kernel(s), every option covered"

# One failing config among good ones fails the whole check.
run 1 "${configs[0]}" "$FIX/missing-alg.yaml"

# Garbage is bad input, named.
run 2 "$FIX/not-yaml.yaml"
has "not-yaml.yaml"
run 2 "$FIX/unknown-kernel.yaml"
has "unknown-kernel.yaml"
has "spmm.cuda.cusparsy"
run 2 "$FIX/no-such-config.yaml"
has "no-such-config.yaml"
run 2
has "usage"
echo "baselines.cover: ok"
