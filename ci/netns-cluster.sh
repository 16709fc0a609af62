#!/usr/bin/env bash
# A cluster of "nodes" on one Linux host: each node is a network namespace with its own hostname,
# joined to the others through veth pairs and a bridge, with each node's outgoing link shaped by tc.
# Open MPI runs across the nodes over TCP: a launch agent enters a node's namespace with
# `ip netns exec`, and a hostfile lists the nodes' addresses. The traffic between nodes goes
# through the kernel's network stack and the shaped links, never through shared memory.
#
#   ci/netns-cluster.sh [options] -- COMMAND [ARGS...]
#
# COMMAND runs inside node 0's namespace (hostname rtc-node0) with these variables set:
#   RT_CLUSTER_MPIRUN    an mpirun wrapper with the hostfile, the agent and the TCP settings
#                        ("$RT_CLUSTER_MPIRUN" -np 4 --map-by ppr:2:node build/rooftune ...)
#   RT_CLUSTER_HOSTFILE  the hostfile (one address per node, --slots each)
#   RT_CLUSTER_NODES     the number of nodes;  RT_CLUSTER_SLOTS  slots per node
#   RT_CLUSTER_IFACE     node 0's link to the others (its byte counters are in /sys/class/net)
#   RT_CLUSTER_RATE_BPS  the shaped rate in bytes/s (0: not shaped)
#   RT_CLUSTER_DELAY_US  the added one-way delay in microseconds (0: none, or netem is missing)
#   RT_CLUSTER_DIR       a scratch directory, removed at the end
#
# Options:
#   --nodes N      nodes (default 2)
#   --slots S      MPI slots per node (default 2)
#   --rate RATE    tc rate of each node's outgoing link, e.g. 10gbit, 2gbit, or none (default 10gbit)
#   --delay D      one-way delay added with netem, e.g. 20us, or none (default 20us); without the
#                  kernel's sch_netem the delay is left out and the script says so
#   --timeout S    kill COMMAND after S seconds (default 600)
#   --subnet A.B.C the private /24 of the nodes' addresses (default 10.77.0): node i is A.B.C.(i+1)
#
# Containment: the addresses exist only on veth ends inside the namespaces this script creates
# (none in the calling namespace); no route is added anywhere and no default route exists in the
# namespaces, so nothing can leave them. Traffic is bounded in time by --timeout and in bytes by
# rate x timeout per link when shaped. Everything is torn down on exit, failure or signal.
# Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN); exits 77 (the tests' "skipped") when it cannot create
# a namespace, and COMMAND's status otherwise (124 on timeout).
set -euo pipefail

nodes=2 slots=2 rate=10gbit delay=20us timeout_s=600 subnet=10.77.0
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) nodes=$2; shift 2 ;;
    --slots) slots=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --delay) delay=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --subnet) subnet=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "netns-cluster: unknown option '$1' (see the comment at the top of $0)" >&2; exit 2 ;;
  esac
done
if [ $# -eq 0 ]; then
  echo "netns-cluster: no command (usage: $0 [options] -- COMMAND [ARGS...])" >&2
  exit 2
fi
case "$nodes" in ''|*[!0-9]*) echo "netns-cluster: --nodes '$nodes' is not a number" >&2; exit 2 ;; esac
if [ "$nodes" -lt 2 ] || [ "$nodes" -gt 16 ]; then
  echo "netns-cluster: --nodes $nodes is outside 2..16" >&2
  exit 2
fi
if ! [[ "$subnet" =~ ^(10|192\.168|172\.(1[6-9]|2[0-9]|3[01]))\.[0-9]+(\.[0-9]+)?$ ]] ||
   [ "$(echo "$subnet" | tr -cd . | wc -c)" -ne 2 ]; then
  echo "netns-cluster: --subnet '$subnet' must be the first three octets of a private /24" >&2
  exit 2
fi

# Names unique to this invocation, so that concurrent clusters (ctest -j) never meet.
tag="rtc$$"
hub="${tag}-hub"
dir=$(mktemp -d "${TMPDIR:-/tmp}/rooftune-netns.XXXXXX")
created=()

teardown() {
  local ns pid
  for ns in "${created[@]}"; do
    # Only processes inside our own namespaces: whatever the command left running.
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
    ip netns del "$ns" 2>/dev/null || true
  done
  rm -rf "$dir"
}
trap teardown EXIT
trap 'exit 130' INT TERM

if ! ip netns add "$hub" 2>"$dir/err"; then
  echo "netns-cluster: cannot create a network namespace ($(cat "$dir/err")); needs root" >&2
  exit 77
fi
created+=("$hub")
ip -n "$hub" link add br0 type bridge
ip -n "$hub" link set br0 up

# netem gives the delay; tbf the rate. netem is a loadable module that some kernels lack.
delay_us=0
netem_ok=0
if [ "$delay" != none ]; then
  if ip -n "$hub" link add probe0 type dummy 2>/dev/null &&
     tc -n "$hub" qdisc add dev probe0 root netem delay "$delay" 2>/dev/null; then
    netem_ok=1
  else
    echo "netns-cluster: this kernel has no sch_netem: the $delay delay is left out" >&2
  fi
  ip -n "$hub" link del probe0 2>/dev/null || true
fi
rate_bps=0
if [ "$rate" != none ]; then
  rate_bps=$(python3 - "$rate" <<'EOF'
import re, sys
m = re.fullmatch(r"([0-9.]+)([kmg]?)(bit|bps)", sys.argv[1].lower())
if not m:
    sys.exit("bad rate")
scale = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m.group(2)]
bits = float(m.group(1)) * scale * (8 if m.group(3) == "bps" else 1)
print(int(bits / 8))
EOF
  ) || { echo "netns-cluster: --rate '$rate' is not a tc rate such as 10gbit" >&2; exit 2; }
fi

: >"$dir/hosts"
{
  echo '#!/bin/sh'
  echo '# Open MPI launch agent: "agent HOST COMMAND..." runs COMMAND in the node named HOST.'
  echo 'host=$1; shift'
  echo 'case "$host" in'
} >"$dir/agent"
for i in $(seq 0 $((nodes - 1))); do
  ns="${tag}-n$i"
  addr="$subnet.$((i + 1))"
  ip netns add "$ns"
  created+=("$ns")
  ip -n "$ns" link set lo up
  ip link add "${tag}n$i" netns "$ns" type veth peer name "${tag}h$i" netns "$hub"
  ip -n "$ns" link set "${tag}n$i" name eth0
  ip -n "$ns" addr add "$addr/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$hub" link set "${tag}h$i" master br0 up
  # The node's outgoing traffic is shaped on its own side of the link: every message between two
  # nodes crosses exactly one shaped egress, so the rate and the delay apply once per hop.
  if [ "$netem_ok" = 1 ] && [ "$rate" != none ]; then
    tc -n "$ns" qdisc add dev eth0 root handle 1: netem delay "$delay" limit 100000
    tc -n "$ns" qdisc add dev eth0 parent 1: handle 2: tbf rate "$rate" burst 256kb latency 10ms
  elif [ "$netem_ok" = 1 ]; then
    tc -n "$ns" qdisc add dev eth0 root netem delay "$delay" limit 100000
  elif [ "$rate" != none ]; then
    tc -n "$ns" qdisc add dev eth0 root tbf rate "$rate" burst 256kb latency 10ms
  fi
  echo "$addr slots=$slots" >>"$dir/hosts"
  echo "  $addr) ns=$ns; name=rtc-node$i ;;" >>"$dir/agent"
done
[ "$netem_ok" = 1 ] && delay_us=$(echo "$delay" | python3 -c '
import re, sys
m = re.fullmatch(r"([0-9.]+)(us|ms|s)?", sys.stdin.read().strip())
print(int(float(m.group(1)) * {"us": 1, None: 1, "ms": 1e3, "s": 1e6}[m.group(2)]))')
{
  echo '  *) echo "netns-cluster agent: unknown host $host" >&2; exit 1 ;;'
  echo 'esac'
  echo '# A UTS namespace gives the node its own hostname (Open MPI and the store record it).'
  echo 'exec ip netns exec "$ns" unshare --uts sh -c "hostname $name && $*"'
} >>"$dir/agent"
chmod +x "$dir/agent"

# mpi_yield_when_idle: with fewer cores than busy ranks, ranks spinning in MPI starve the kernel's
# packet processing on the veth links (ping-pong latencies of milliseconds instead of tens of us).
# osc pt2pt: Open MPI's one-sided osc/rdma needs an RDMA transport and refuses windows over TCP
# (MPI_Win_allocate fails); pt2pt carries MPI-3 RMA over the TCP BTL (the spmm2d kernels use it).
cat >"$dir/mpirun" <<EOF
#!/bin/sh
exec mpirun --hostfile "$dir/hosts" --mca plm_rsh_agent "$dir/agent" \\
  --mca oob_tcp_if_include $subnet.0/24 --mca btl self,vader,tcp \\
  --mca btl_tcp_if_include $subnet.0/24 --mca mpi_yield_when_idle 1 --mca osc pt2pt "\$@"
EOF
chmod +x "$dir/mpirun"

if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export RT_CLUSTER_MPIRUN="$dir/mpirun" RT_CLUSTER_HOSTFILE="$dir/hosts" RT_CLUSTER_DIR="$dir"
export RT_CLUSTER_NODES="$nodes" RT_CLUSTER_SLOTS="$slots" RT_CLUSTER_IFACE=eth0
export RT_CLUSTER_RATE_BPS="$rate_bps" RT_CLUSTER_DELAY_US="$delay_us"
echo "netns-cluster: $nodes nodes ($subnet.1..$subnet.$nodes, $slots slots each), link" \
  "rate ${rate}, delay $([ "$netem_ok" = 1 ] && echo "$delay" || echo none)" >&2

status=0
timeout --kill-after=10 "$timeout_s" ip netns exec "${tag}-n0" unshare --uts \
  sh -c 'hostname rtc-node0 && exec "$@"' sh "$@" || status=$?
exit "$status"
