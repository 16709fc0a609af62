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
