# What every store of GEMM points (GPU or CPU) must show, whatever config filled it (tests/gemm/
# test_gpu_run.sh, ci/gpu-gemm-scale.sh): no point wrong, in error, timed out or above its roofline,
# except a cuBLAS math mode that the GPU or library does not offer (error naming cublasSetMathMode)
# or whose reduced precision fails the FP gate (tf32, bf16x9, fp64_emulated: wrong); every tiled
# point's tiles and bytes per path (host, device to device, ipc, MPI) and of the tail (C written back
# after each GPU's last block) equal the exact model, every C
# tile written once, one C per precision and tile size whatever the schedule (c_sample_checksum);
# every verified point carries a roofline bound.
# Args: store, label (for the messages). Prints one line; exits 1 on the first failure.
set -euo pipefail
DB=$1
LABEL=$2
fail() { echo "FAIL ($LABEL): $*" >&2; exit 1; }
sql() { sqlite3 -batch -noheader "$DB" "$1"; }
m() { echo "(SELECT value FROM metrics WHERE point_id = p.id AND name = '$1')"; }
mode="json_extract(p.params, '\$.math_mode')"
bad=$(sql "SELECT kernel || ' ' || params || ': ' || status || ' ' || IFNULL(reason, '') FROM points p WHERE status IN ('wrong', 'error', 'timeout', 'above_roofline') AND NOT (kernel = 'gemm.cuda.cublas' AND (($mode IN ('tf32', 'bf16x9', 'fp64_emulated') AND status = 'wrong') OR (status = 'error' AND reason LIKE '%cublasSetMathMode%'))) LIMIT 3")
[ -z "$bad" ] || fail "points not ok: $bad"
tiled="kernel LIKE 'gemm.%.tiled' AND status = 'ok'"
nt=$(sql "SELECT COUNT(*) FROM points p WHERE $tiled")
for c in tiles_h2d_a tiles_h2d_b tiles_d2d_a tiles_ipc_a tiles_ipc_b tiles_d2h_c tiles_d2h_tail mpi_tiles_recv bytes_h2d bytes_d2h bytes_d2d bytes_ipc bytes_d2h_tail; do
  d=$(sql "SELECT params || ': ' || $(m "$c") || ' vs ' || $(m "model_$c") FROM points p WHERE $tiled AND $(m "$c") != $(m "model_$c") LIMIT 2")
  [ -z "$d" ] || fail "$c differs from the exact model: $d"
done
once=$(sql "SELECT COUNT(*) FROM points p WHERE $tiled AND $(m c_tile_writes_min) = 1 AND $(m c_tile_writes_max) = 1")
[ "$once" = "$nt" ] || fail "$once of $nt tiled points wrote every C tile once"
sums=$(sql "SELECT COUNT(DISTINCT printf('%.17g', $(m c_sample_checksum))) FROM points p WHERE $tiled GROUP BY json_extract(problem, '\$.precision'), json_extract(problem, '\$.N'), $(m tiles_m)" | sort -u | tr '\n' ' ')
[ -z "$sums" ] || [ "$sums" = "1 " ] || fail "the schedule changed C (distinct checksums per precision and tile size: $sums)"
nob=$(sql "SELECT kernel || ' ' || params FROM points p WHERE status = 'ok' AND kernel LIKE 'gemm.%' AND NOT (bound_s > 0) LIMIT 2")
[ -z "$nob" ] || fail "verified points without a roofline bound: $nob"
ok=$(sql "SELECT COUNT(*) FROM points p WHERE status = 'ok'")
echo "$LABEL: $ok verified ($nt tiled at the exact model, one C each), every one under its bound"
