# End to end under mpirun: configs/ci/gemm-small.yaml through `rooftune run` on NP ranks, then the
# store: every feasible point verified; every C tile computed (written back) exactly once and
# every tile product done once; tiles moved to each emulated GPU (by source) and tiles received
# over MPI equal the plan's model, and equal the paper's closed forms where the tiles divide the
# sizes; bytes per tier equal the traffic model; lookahead and the budget never change C.
# Args: rooftune, scratch folder, mpiexec, NP, config.
. "$(dirname "$0")/../rt_test_lib.sh"
rt_args RT WORK MPIEXEC NP CFG -- "$@"
rt_scratch "$WORK"
rt_mpi_env
fail() { echo "FAIL (np $NP): $*" >&2; exit 1; }
rpn=1
[ "$NP" -ge 4 ] && rpn=2
db="$WORK/gemm.db"
"$MPIEXEC" --allow-run-as-root --oversubscribe -np "$NP" "$RT" run "$CFG" --db "$db" \
  --ranks-per-node "$rpn" >"$WORK/run.log" 2>&1 || fail "run failed: $(tail -5 "$WORK/run.log")"
total=$(sql "$db" "SELECT COUNT(*) FROM points")
ok=$(sql "$db" "SELECT COUNT(*) FROM points WHERE status = 'ok' AND verified = 1")
inf=$(sql "$db" "SELECT COUNT(*) FROM points WHERE status = 'infeasible' AND reason LIKE '%gpu_mem_budget of % tiles is too small%'")
[ "$total" -ge 20 ] || fail "only $total points"
[ $((ok + inf)) = "$total" ] || fail "$ok verified + $inf infeasible of $total: $(sql "$db" "SELECT kernel || ' ' || params || ': ' || status || ' ' || IFNULL(reason, '') FROM points WHERE status != 'ok' LIMIT 3")"
[ "$inf" -ge 1 ] || fail "no point was infeasible for its budget"
tiled="kernel = 'gemm.cpu.tiled' AND status = 'ok'"
nt=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE $tiled")
[ "$nt" -ge 15 ] || fail "only $nt tiled points measured"
# Every tile once.
once=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE $tiled AND $(m c_tile_writes_min) = 1 AND $(m c_tile_writes_max) = 1 AND $(m tiles_d2h_c) = $(m tiles_m) * $(m tiles_n) AND $(m tile_products) = $(m tiles_m) * $(m tiles_n) * $(m tiles_k)")
[ "$once" = "$nt" ] || fail "$once of $nt points computed every C tile exactly once"
# Measured counters equal the plan's model.
for c in tiles_h2d_a tiles_h2d_b tiles_d2d_a tiles_d2h_c tiles_d2h_tail bytes_d2h_tail mpi_tiles_recv; do
  bad=$(sql "$db" "SELECT params || ': ' || $(m "$c") || ' vs ' || $(m "model_$c") FROM points p WHERE $tiled AND $(m "$c") != $(m "model_$c") LIMIT 2")
  [ -z "$bad" ] || fail "$c differs from the model: $bad"
done
rt_net_bytes_modelled "$db" "status = 'ok'" "kernel || ' ' || params"
# The tail split: every split point writes back less C after its GPUs' last block than the same
# point without the split, and moves as many C tiles in all.
same="q.kernel = p.kernel AND json_extract(q.params, '\$.tail_split') = 1 AND json_set(q.params, '\$.tail_split', 0) = json_set(p.params, '\$.tail_split', 0)"
mq() { echo "(SELECT value FROM metrics WHERE point_id = q.id AND name = '$1')"; }
split="$tiled AND json_extract(p.params, '\$.tail_split') > 1 AND $(m tail_split) > 1 AND EXISTS (SELECT 1 FROM points q WHERE $same AND q.status = 'ok')"
nsp=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE $split")
[ "$nsp" -ge 8 ] || fail "only $nsp split points beside their unsplit twins"
shrunk=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE $split AND (SELECT COUNT(*) FROM points q WHERE $same AND $(mq tiles_d2h_tail) > $(m tiles_d2h_tail) AND $(mq tiles_d2h_c) = $(m tiles_d2h_c)) = 1")
[ "$shrunk" = "$nsp" ] || fail "$shrunk of $nsp split points have a smaller tail than without the split"
# Where the tiles divide everything (t = 4, b = c = 2 on 12 x 12 x 12 tiles), Eq. (1) and the
# volume formula hold exactly.
div="$tiled AND params LIKE '%\"b\":2,%' AND params LIKE '%\"t\":4%'"
nd=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE $div")
[ "$nd" -ge 10 ] || fail "only $nd divisible points"
# Eq. (1) is exact there unless the A pool holds the whole process row outside case (a): A is then
# loaded once, the exact count is case (a)'s form and Eq. (1) overcounts (the 200-tile budget).
a_once="$(m tiles_m) * $(m tiles_k) / $(m grid_p) + $(m tiles_k) * $(m tiles_n) / ($(m grid_q) * $(m gpus_per_process)) + $(m tiles_m) * $(m tiles_n) / ($(m grid_p) * $(m grid_q) * $(m gpus_per_process))"
stays="$(m mem_case) > 1 AND $(m a_pool_holds_row) = 1"
eq=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE $div AND CASE WHEN $stays THEN abs($(m tiles_gpu_avg) - ($a_once)) < 1e-9 AND $(m ratio_tiles_gpu_eq1) < 1 ELSE abs($(m ratio_tiles_gpu_eq1) - 1) < 1e-12 END AND ($NP = 1 OR abs($(m ratio_recv_eq) - 1) < 1e-12)")
[ "$eq" = "$nd" ] || fail "$eq of $nd divisible points match Eq. (1) (or, A held whole, its case (a) form) and the volume formula: $(sql "$db" "SELECT params || ' case ' || $(m mem_case) || ' a whole ' || $(m a_pool_holds_row) || ': ' || $(m tiles_gpu_avg) || ' vs ' || $(m model_eq1_tiles_gpu) FROM points p WHERE $div LIMIT 40")"
ns=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE $div AND $stays")
[ "$NP" != 1 ] || [ "$ns" -ge 2 ] || fail "only $ns points hold A whole outside case (a)"
cases=$(sql "$db" "SELECT COUNT(DISTINCT $(m mem_case)) FROM points p WHERE $div")
[ "$cases" = 3 ] || fail "$cases of the paper's 3 memory cases reached"
d2d=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE $div AND params LIKE '%\"gpus\":2%' AND $(m tiles_d2d_a) > 0")
[ "$d2d" -ge 5 ] || fail "only $d2d two-GPU points took A tiles from the peer GPU"
# Lookahead and the budget never change C: one checksum per tile size.
sums=$(sql "$db" "SELECT COUNT(DISTINCT printf('%.17g', $(m c_sample_checksum))) FROM points p WHERE $tiled GROUP BY $(m tiles_m)" | sort -u)
[ "$sums" = 1 ] || fail "lookahead or the budget changed C (checksums per tile size: $sums)"
if [ "$NP" -gt 1 ]; then
  moved=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE status = 'ok' AND $(m net_bytes_socket_sum) + $(m net_bytes_node_sum) + $(m net_bytes_global_sum) > 0")
  [ "$moved" = "$ok" ] || fail "only $moved of $ok points moved tiles between ranks"
fi
echo "gemm run np $NP: ok ($ok verified, $inf infeasible)"
