# sptrsv_lib.sh: what the sptrsv end-to-end scripts check alike. Source it after rt_test_lib.sh.

# sptrsv_all_ok DB TOTAL: DB holds TOTAL points, every one ok (those that are not listed) and
# with a residual below 1e-12; ok is left holding their count.
sptrsv_all_ok() {
  local total res
  total=$(sql "$1" "SELECT COUNT(*) FROM points")
  ok=$(sql "$1" "SELECT COUNT(*) FROM points WHERE status = 'ok'")
  [ "$total" = "$2" ] || fail "$total points, expected $2"
  [ "$ok" = "$total" ] || { sql "$1" "SELECT kernel, params, status, reason FROM points WHERE status != 'ok'"; fail "$ok of $total points ok"; }
  res=$(sql "$1" "SELECT COUNT(*) FROM points p WHERE NOT (IFNULL($(m residual), 1) < 1e-12)")
  [ "$res" = 0 ] || fail "$res points with a residual above 1e-12 (or none stored)"
}

# sptrsv_mpi_start KERNEL THREADS ARG...: names the arguments of an MPI script (rooftune, scratch
# folder, config, mpiexec: RT WORK CFG MPIEXEC), exits 77 (skipped) unless KERNEL is available,
# empties WORK, and lets Open MPI run as root with OMP_NUM_THREADS=THREADS.
sptrsv_mpi_start() {
  local kernel=$1 threads=$2
  shift 2
  rt_args RT WORK CFG MPIEXEC -- "$@"
  rt_need_kernel "$RT" "$kernel"
  rt_scratch "$WORK"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS="$threads"
}
