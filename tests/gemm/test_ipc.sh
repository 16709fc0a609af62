# The tiled GEMM's ipc transport on the CPU (configs/ci/gemm-ipc.yaml) under mpirun: NP ranks with
# RPN ranks per emulated node, then the store: every point verified but the one that asks for ipc
# where it is unavailable (infeasible, saying why); the tiles and bytes moved from the host, between
# a process's GPUs, from node peers' GPUs (ipc) and over MPI equal the plan's exact model, and the
# bytes of the runner's traffic model (the roofline's link terms) equal the measured ones; with ipc
# nothing goes over MPI inside a node and something is pulled; auto with IPC denied falls back to
# MPI; both transports compute the same C.
# Args: rooftune, scratch folder, mpiexec, NP, RPN, config.
. "$(dirname "$0")/../rt_test_lib.sh"
rt_args RT WORK MPIEXEC NP RPN CFG -- "$@"
rt_scratch "$WORK"
rt_mpi_env
fail() { echo "FAIL (np $NP, $RPN per node): $*" >&2; exit 1; }
prm() { echo "json_extract(p.params, '\$.$1')"; }
db="$WORK/ipc.db"
"$MPIEXEC" --allow-run-as-root --oversubscribe -np "$NP" "$RT" run "$CFG" --db "$db" \
  --ranks-per-node "$RPN" >"$WORK/run.log" 2>&1 || fail "run failed: $(tail -5 "$WORK/run.log")"
bad=$(sql "$db" "SELECT params || ': ' || status || ' ' || IFNULL(reason, '') FROM points p WHERE NOT ((status = 'ok' AND verified = 1) OR (status = 'infeasible' AND $(prm transport) = 'ipc' AND $(prm ipc_deny) = 1 AND reason LIKE '%transport = ipc: IPC is unavailable (test hook ipc_deny = 1)%')) LIMIT 3")
[ -z "$bad" ] || fail "points neither verified nor the expected infeasible one: $bad"
inf=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE status = 'infeasible'")
[ "$inf" = 1 ] || fail "$inf infeasible points, expected 1 (ipc with IPC denied)"
ok="status = 'ok'"
n=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE $ok")
[ "$n" -ge 25 ] || fail "only $n points verified"
for c in tiles_h2d_a tiles_h2d_b tiles_d2d_a tiles_ipc_a tiles_ipc_b tiles_d2h_c mpi_tiles_recv bytes_h2d bytes_d2h bytes_d2d bytes_ipc; do
  d=$(sql "$db" "SELECT params || ': ' || $(m "$c") || ' vs ' || $(m "model_$c") FROM points p WHERE $ok AND $(m "$c") != $(m "model_$c") LIMIT 2")
  [ -z "$d" ] || fail "$c differs from the model: $d"
done
# The roofline's link terms come from the same model: h2d and d2h bytes of the traffic hook (summed
# over ranks by the runner) equal the measured ones; peer bytes equal device to device plus ipc.
for pair in "model_h2d_bytes:bytes_h2d" "model_d2h_bytes:bytes_d2h"; do
  d=$(sql "$db" "SELECT params FROM points p WHERE $ok AND IFNULL($(m "${pair%%:*}"), 0) != $(m "${pair#*:}") LIMIT 2")
  [ -z "$d" ] || fail "${pair%%:*} of the traffic model differs from ${pair#*:}: $d"
done
d=$(sql "$db" "SELECT params FROM points p WHERE $ok AND IFNULL($(m model_peer_bytes), 0) != $(m bytes_d2d) + $(m bytes_ipc) LIMIT 2")
[ -z "$d" ] || fail "model_peer_bytes differs from the device-to-device bytes: $d"
rt_net_bytes_modelled "$db" "$ok" params
ipc="$ok AND $(m transport_ipc) = 1"
nipc=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE $ipc")
[ "$nipc" -ge 12 ] || fail "only $nipc points ran with ipc"
pulled=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE $ipc AND $(m tiles_ipc_a) + $(m tiles_ipc_b) > 0")
[ "$pulled" = "$nipc" ] || fail "$pulled of $nipc ipc points pulled tiles from a node peer"
if [ "$RPN" = "$NP" ]; then # one node: nothing over MPI with ipc
  d=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE $ipc AND $(m mpi_tiles_recv) + $(m net_bytes_socket_sum) + $(m net_bytes_node_sum) + $(m net_bytes_global_sum) > 0")
  [ "$d" = 0 ] || fail "$d ipc points on one node still moved tiles over MPI"
else # two nodes: B tiles between them over MPI, A within them by ipc
  d=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE $ipc AND ($(m mpi_tiles_recv) = 0 OR $(m net_bytes_global_sum) = 0 OR $(m tiles_ipc_a) = 0)")
  [ "$d" = 0 ] || fail "$d ipc points on two nodes did not mix ipc and MPI"
fi
fb=$(sql "$db" "SELECT $(m transport_ipc) || ' ' || $(m tiles_ipc_a) || ' ' || $(m mpi_tiles_recv) FROM points p WHERE $ok AND $(prm ipc_deny) = 1")
[ "$fb" = "0.0 0.0 $(sql "$db" "SELECT $(m model_mpi_tiles_recv) FROM points p WHERE $ok AND $(prm ipc_deny) = 1")" ] ||
  fail "auto with IPC denied did not fall back to MPI: '$fb'"
# Both transports compute the same C (the same products in the same order): one checksum per t.
sums=$(sql "$db" "SELECT COUNT(DISTINCT printf('%.17g', $(m c_sample_checksum))) FROM points p WHERE $ok GROUP BY $(m tiles_m)" | sort -u)
[ "$sums" = 1 ] || fail "the transports or the budgets changed C (checksums per tile size: $sums)"
zero=$(sql "$db" "SELECT COUNT(*) FROM points p WHERE $ok AND $(m c_sample_checksum) = 0")
[ "$zero" = 0 ] || fail "$zero points have no checksum of C"
echo "gemm ipc np $NP ($RPN per node): ok ($n verified, $nipc with ipc)"
