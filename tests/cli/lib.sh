# Shared helpers for the end-to-end tests of the CLI: each test is a bash script run by ctest with
#   $1 = the rooftune binary, $2 = this folder, $3 = a scratch folder of its own.
# (fail, sql and the rest come from tests/rt_test_lib.sh.)
. "$(dirname "${BASH_SOURCE[0]}")/../rt_test_lib.sh"
rt_args RT HERE WORK -- "$@"
rt_scratch "$WORK"
rt_mpi_env
# expect CODE PATTERN CMD...: CMD exits with CODE and its output (stdout and stderr) matches the
# extended regular expression PATTERN; the output is left in $WORK/out.txt.
expect() {
  local code=$1 pattern=$2 rc
  shift 2
  set +e
  "$@" >"$WORK/out.txt" 2>&1
  rc=$?
  set -e
  [ "$rc" = "$code" ] || fail "exit $rc, not $code: $*: $(head -c 3000 "$WORK/out.txt")"
  grep -qE -- "$pattern" "$WORK/out.txt" ||
    fail "no '$pattern' in what $* said: $(head -c 3000 "$WORK/out.txt")"
}
# points DB: the store's points as a set, one sorted line each (kernel, matrix, parameters,
# problem, status, verification; times aside): what a parallel run must reproduce of a serial one.
points() {
  sql "$1" "SELECT kernel||'|'||matrix||'|'||params||'|'||problem||'|'||status||'|'||verified
            FROM points ORDER BY 1"
}
# fingerprint PATH...: one line per file (name, size, checksum), for "nothing changed" checks.
fingerprint() { for f in "$@"; do printf '%s ' "$f"; cksum <"$f"; done; }
# no_temporaries DIR: no ".name.rt-XXXXXX" file or ".rt-render-" folder was left in DIR.
no_temporaries() {
  local left
  left=$(find "$1" -maxdepth 2 \( -name '.*.rt-*' -o -name '.rt-render-*' \) 2>/dev/null)
  [ -z "$left" ] || fail "temporary files left behind: $left"
}
# csr_band_config FILE NAME ROW_BLOCKS MEASURE: writes FILE, a config (experiment NAME) of
# spmm.cpu.csr at the row_block values ROW_BLOCKS (col_block 8) on a banded 3000 x 3000 matrix of
# bandwidth 9, K 8, fp64, row-major, measured as MEASURE (the flow map's content).
csr_band_config() {
  cat >"$1" <<YAML
experiment: {name: $2}
matrices:
  - {name: band, generator: banded, rows: 3000, bandwidth: 9, seed: 1}
problem: {K: [8], precision: [fp64], layout: [row]}
kernels:
  - name: spmm.cpu.csr
    params: {row_block: [$3], col_block: [8]}
measure: {$4}
YAML
}
