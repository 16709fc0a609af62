# The GPU variants end to end (spmm2d.cuda.*, spgemm2d.cuda.*) under mpirun: every point of
# configs/ci/stationary-spmm-gpu-small.yaml and spgemm-gpu-small.yaml verified (0 wrong, 0 error),
# work stealing ran each task exactly once, the staging time is stored, and every SpGEMM variant
# found the same C. Exits 77 (skipped) only where there is no NVIDIA
# driver or no CUDA device; a GPU host whose plugin does not load fails (tests/gpu/rt_gpu_gate.sh).
# Args: rooftune, this folder, scratch folder, mpiexec, NP, the SpMM config.
# shellcheck source=spmm2d_lib.sh
. "$(dirname "$0")/spmm2d_lib.sh"
spmm2d_start "gpu, " "$@"

line=$("$RT" list 2>&1 | grep -E '^ *spmm2d\.cuda\.stationary_c ' || true)
[ -n "$line" ] || fail "rooftune list does not show spmm2d.cuda.stationary_c"
# shellcheck source=../gpu/rt_gpu_gate.sh
. "$HERE/../gpu/rt_gpu_gate.sh"
rt_gpu_gate "$line" # skips (77) only without a GPU; a GPU host with a broken plugin fails
run() { "$MPIEXEC" --allow-run-as-root --oversubscribe -np "$NP" "$RT" run "$@"; }

db="$WORK/spmm.db"
run "$CFG" --db "$db" >"$WORK/spmm.log" 2>&1 || fail "spmm run failed: $(tail -5 "$WORK/spmm.log")"
# 2 matrices x 2 N x 2 precisions x 12 kernel points.
n=$(sql "$db" "SELECT COUNT(*) FROM points")
[ "$n" = 96 ] || fail "$n SpMM points, want 96: $(grep -iE 'skip|unavailable|infeasible' "$WORK/spmm.log" | head -3)"
bad=$(sql "$db" "SELECT kernel || ' ' || params || ' ' || matrix || ': ' || status || ' ' || IFNULL(reason,'') FROM points WHERE status != 'ok' OR verified != 1 LIMIT 3")
[ -z "$bad" ] || fail "points not ok: $bad"
spmm2d_every_kernel "$db" cuda " AND status = 'ok'" "verified "
ws=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE kernel LIKE 'spmm2d.cuda.ws_%' AND $(m tasks_total) > 0 AND $(m tasks_total) = $(m tasks_executed)")
[ "$ws" = 16 ] || fail "$ws of 16 work-stealing points ran every task exactly once"
st=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE $(m staging_s_max) >= $(m staging_s_avg) AND $(m staging_s_avg) >= 0 AND $(m compute_s_max) > 0")
[ "$st" = 96 ] || fail "$st of 96 points store the staging and compute times"

spmm2d_spgemm_run spgemm-gpu-small.yaml
echo "spmm2d gpu run np $NP: ok"
