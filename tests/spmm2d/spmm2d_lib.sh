# spmm2d_lib.sh: what test_run.sh (CPU) and test_gpu_run.sh (CUDA) share. Source it first, then
#   spmm2d_start PREFIX "$@"
# and define run (rooftune run on the ranks).
. "$(dirname "${BASH_SOURCE[0]}")/../rt_test_lib.sh"

# spmm2d_start PREFIX ARG...: names the arguments (rooftune, this folder, scratch folder, mpiexec,
# NP, the SpMM config: RT HERE WORK MPIEXEC NP CFG), empties WORK and sets up Open MPI; fail then
# says "FAIL (PREFIXnp NP): ...".
spmm2d_start() {
  fail_prefix=$1
  shift
  rt_args RT HERE WORK MPIEXEC NP CFG -- "$@"
  rt_scratch "$WORK"
  rt_mpi_env
}
fail() { echo "FAIL (${fail_prefix}np $NP): $*" >&2; exit 1; }

# spmm2d_every_kernel DB BACKEND AND WHAT: each SpMM 2D kernel of BACKEND has a point in DB (with
# AND, e.g. " AND status = 'ok'", more conditions); fails with "no WHAT points of KERNEL".
spmm2d_every_kernel() {
  local k c
  for k in stationary_c stationary_a stationary_b summa summa_a ws_random ws_locality; do
    c=$(sql "$1" "SELECT COUNT(*) FROM points WHERE kernel = 'spmm2d.$2.$k'$3")
    [ "$c" -gt 0 ] || fail "no ${4}points of spmm2d.$2.$k"
  done
}

# spmm2d_spgemm_run CONFIG: runs HERE/CONFIG into WORK/spgemm.db; its 10 SpGEMM points are
# verified and every variant found the same nnz(C).
spmm2d_spgemm_run() {
  local db2="$WORK/spgemm.db" n nnz
  run "$HERE/$1" --db "$db2" >"$WORK/spgemm.log" 2>&1 || fail "spgemm run failed: $(tail -5 "$WORK/spgemm.log")"
  n=$(sql "$db2" "SELECT COUNT(*) FROM points WHERE status = 'ok' AND verified = 1")
  [ "$n" = 10 ] || fail "$n of 10 SpGEMM points verified: $(grep -E 'wrong|error' "$WORK/spgemm.log" | head -3)"
  nnz=$(sql "$db2" "SELECT COUNT(DISTINCT value) FROM metrics WHERE name = 'c_nnz'")
  [ "$nnz" = 1 ] || fail "SpGEMM variants disagree on nnz(C): $(sql "$db2" "SELECT DISTINCT value FROM metrics WHERE name = 'c_nnz'")"
}
