# Shared helpers for the end-to-end tests: each test is a bash script run by ctest with
#   $1 = the rooftune binary, $2 = this folder, $3 = a scratch folder of its own.
set -euo pipefail
RT=$1
HERE=$2
WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
fail() { echo "FAIL: $*" >&2; exit 1; }
# sql DB QUERY: one value per line
sql() { sqlite3 -batch -noheader "$1" "$2"; }
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
# fingerprint PATH...: one line per file (name, size, checksum), for "nothing changed" checks.
fingerprint() { for f in "$@"; do printf '%s ' "$f"; cksum <"$f"; done; }
# no_temporaries DIR: no ".name.rt-XXXXXX" file or ".rt-render-" folder was left in DIR.
no_temporaries() {
  local left
  left=$(find "$1" -maxdepth 2 \( -name '.*.rt-*' -o -name '.rt-render-*' \) 2>/dev/null)
  [ -z "$left" ] || fail "temporary files left behind: $left"
}
