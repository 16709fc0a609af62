# The roofline bound of the tiled GEMM's links can fire: gemm.cpu.tiled (emulated GPUs, their host
# links memcpy) under a cpu machine file whose host-to-device link is absurdly slow (1 kB/s) must be
# flagged above_roofline on every point, the bound being at least the measured host-to-device bytes
# (per rank and emulated GPU) over that ceiling;
# with a fast link the same points stay ok, each with a bound below its time. One and two ranks.
# Args: rooftune, scratch folder, mpiexec.
. "$(dirname "$0")/../rt_test_lib.sh"
rt_args RT WORK MPIEXEC -- "$@"
rt_scratch "$WORK"
rt_mpi_env
machine() { # NAME H2D_GBS: the other ceilings too fast to matter
  cat >"$WORK/$1.yaml" <<YAML
name: $1
kind: cpu
spec: {fp32_gflops: 1.0e9, fp64_gflops: 1.0e9, dram_gbs: 1.0e9, h2d_gbs: $2, d2h_gbs: 1.0e9}
YAML
}
machine slow 1.0e-6
machine fast 1.0e9
cat >"$WORK/cfg.yaml" <<'YAML'
experiment: {name: gemm-roofline}
matrices: [{name: dense, generator: banded, rows: 4, bandwidth: 1}]
problem: {N: [48], precision: [fp64]}
kernels:
  - {name: gemm.cpu.tiled, params: {t: [4], gpus: [1, 2], b: [2], c: [2], d: [2], lookahead: [1],
                                    gpu_mem_budget: [128000, 5120], transport: [ipc]}}
measure: {warmup: 0, min_reps: 2, max_reps: 2, max_time_s: 0.05, target_rel_ci: 0.5}
YAML
for np in 1 2; do
  for link in slow fast; do
    db="$WORK/$link-np$np.db"
    set +e
    "$MPIEXEC" --allow-run-as-root --oversubscribe -np "$np" "$RT" run "$WORK/cfg.yaml" --db "$db" \
      --ranks-per-node "$np" --set "machine=$WORK/$link.yaml" >"$WORK/$link-np$np.log" 2>&1
    rc=$?
    set -e
    [ "$rc" = 124 ] && fail "np $np, $link link: the run hung"
    n=$(sql "$db" "SELECT COUNT(*) FROM points")
    [ "$n" = 4 ] || fail "np $np, $link link: $n points: $(tail -3 "$WORK/$link-np$np.log")"
    # The bound is the busiest rank's host-to-device bytes per emulated GPU over the link (its
    # biggest term), at least the mean over ranks.
    if [ "$link" = slow ]; then
      bad=$(sql "$db" "SELECT params || ': ' || status || ' bound ' || IFNULL(bound_s, 'none') FROM points p WHERE status != 'above_roofline' OR bound_s < $(m bytes_h2d) / $np / $(m gpus_per_process) / 1000.0 * 0.999 OR reason NOT LIKE '%bound%' LIMIT 2")
      [ -z "$bad" ] || fail "np $np: the slow host link did not flag every point above its roofline: $bad"
    else
      bad=$(sql "$db" "SELECT params || ': ' || status || ' bound ' || IFNULL(bound_s, 'none') FROM points p WHERE status != 'ok' OR bound_s IS NULL OR bound_s <= 0 OR bound_s > time_median_s LIMIT 2")
      [ -z "$bad" ] || fail "np $np: with a fast link a point is not ok under its bound: $bad"
    fi
  done
done
echo "gemm roofline: the host-link bound fires (1 and 2 ranks)"
