# rt_test_lib.sh: what the end-to-end test scripts share. Source it first,
#   . "$(dirname "$0")/../rt_test_lib.sh"
# then name the arguments ctest passes and make the scratch folder:
#   rt_args RT ROOT WORK -- "$@"
#   rt_scratch "$WORK"
# Strict mode is on (set -euo pipefail); a script that checks exit codes itself turns -e off
# after sourcing (set +e).
set -euo pipefail

# rt_args NAME... -- ARG...: the i-th NAME becomes a global variable holding the i-th ARG (empty
# when fewer are given).
rt_args() {
  local names=()
  while [ "$#" -gt 0 ] && [ "$1" != -- ]; do
    names+=("$1")
    shift
  done
  [ "$#" -gt 0 ] && shift
  local n
  for n in "${names[@]}"; do
    printf -v "$n" '%s' "${1-}"
    [ "$#" -gt 0 ] && shift
  done
  return 0
}

# rt_scratch DIR [SUB...]: DIR empty (its subfolders SUB made).
rt_scratch() {
  local dir=$1
  shift
  rm -rf "$dir" && mkdir -p "$dir"
  local sub
  for sub in "$@"; do mkdir -p "$dir/$sub"; done
}

# rt_mpi_env: Open MPI may run as root (the CI containers) and oversubscribe the cores.
rt_mpi_env() {
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
}

# fail MSG: the test fails with MSG (a script may define its own, e.g. naming its rank count).
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# sql DB QUERY: one value per line.
sql() { sqlite3 -batch -noheader "$1" "$2"; }

# m NAME: the SQL of metric NAME of the point a query names p (... FROM points p WHERE $(m x) > 0).
m() { echo "(SELECT value FROM metrics WHERE point_id = p.id AND name = '$1')"; }

# rt_need_kernel RT NAME: exits 77 (ctest: skipped) unless `RT list` shows a kernel whose name
# starts with NAME as available (no GPU or no CUDA plugin here, e.g. on CI).
rt_need_kernel() {
  if ! "$1" list 2>/dev/null | grep -E "^  ${2//./\\.}" | grep -vq unavailable; then
    echo "$2 is unavailable here: skipped"
    exit 77
  fi
}

# rt_sql_is DB WANT QUERY: true when QUERY's one value in DB is WANT; the value is left in got for
# the message (a query that fails fails the test):
#   rt_sql_is "$db" 8 "SELECT COUNT(*) ..." || fail "$got of 8 points ..."
rt_sql_is() {
  got=$(sql "$1" "$3") || fail "query failed: $3"
  [ "$got" = "$2" ]
}

# rt_sql_has DB QUERY PATTERN: true when QUERY's output in DB has a line matching the grep PATTERN;
# the output is left in got for the message (a query that fails fails the test).
rt_sql_has() {
  got=$(sql "$1" "$2") || fail "query failed: $2"
  echo "$got" | grep -q -- "$3"
}

# rt_validate_refuses RT YAML WORD WHAT: `RT validate YAML` (its output in YAML's name with .log
# for .yaml) must fail with a message naming WORD; the test fails with "WHAT validated" or the
# message otherwise.
rt_validate_refuses() {
  local log="${2%.yaml}.log"
  if "$1" validate "$2" >"$log" 2>&1; then fail "$4 validated"; fi
  grep -q -- "$3" "$log" || fail "no message naming $3: $(cat "$log")"
}

# rt_net_bytes_modelled DB WHERE WHAT: on every network tier the points of DB matching WHERE moved
# the bytes their traffic model predicts (model_net_bytes_TIER, none: 0); the test fails listing
# WHAT (SQL over the points p) of up to 3 that did not.
rt_net_bytes_modelled() {
  local t bad
  for t in socket node global; do
    bad=$(sql "$1" "SELECT $3 FROM points p WHERE $2 AND IFNULL($(m model_net_bytes_$t), 0) != $(m net_bytes_${t}_sum) LIMIT 3")
    [ -z "$bad" ] || fail "measured $t bytes differ from the traffic model: $bad"
  done
}

# rt_abs NAME...: each variable NAME, a path, made absolute (readlink -f).
rt_abs() {
  local n p
  for n in "$@"; do
    p=$(readlink -f "${!n}")
    printf -v "$n" '%s' "$p"
  done
}
