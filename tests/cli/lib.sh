# Shared helpers for the end-to-end tests of the CLI: each test is a bash script run by ctest with
#   $1 = the rooftune binary, $2 = this folder, $3 = a scratch folder of its own.
# (fail, sql and the rest come from tests/rt_test_lib.sh.)
. "$(dirname "${BASH_SOURCE[0]}")/../rt_test_lib.sh"
rt_args RT HERE WORK -- "$@"
rt_scratch "$WORK"
rt_mpi_env
