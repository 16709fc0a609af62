# cli.probe_auto (issue 13, item 6): after `rooftune probe --install` (what the quick start runs),
# `machine: auto` picks the probed file for the CPU kernels: the next run's points are bounded by
# this host's own ceilings, not by the generic cpu-host.yaml.
. "$2/lib.sh"
ROOT=$(cd "$HERE/../.." && pwd)
mkdir -p "$WORK/machines"
cp "$ROOT"/roofline/machines/*.yaml "$WORK/machines/"
export ROOFTUNE_MACHINE_DIR="$WORK/machines"
"$RT" probe --cpu --quick --install >"$WORK/probe.log" 2>&1 || fail "probe --install: $(cat "$WORK/probe.log")"
probed=$(ls "$WORK/machines"/local-*.yaml 2>/dev/null | sed -n 1p)
[ -n "$probed" ] || fail "probe --install wrote no local-*.yaml into the machine folder: $(cat "$WORK/probe.log")"
name=$(sed -n 's/^name: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$probed" | sed -n 1p)
[ -n "$name" ] || fail "the probed file has no name: $(head -5 "$probed")"
"$RT" run "$HERE/small.yaml" --db "$WORK/s.db" --set kernels.0.params.row_block=[32] \
  --set problem.layout=[row] >"$WORK/run.log" 2>&1 || fail "run: $(tail -3 "$WORK/run.log")"
grep -q "roofline (cpu kernels): machine model '$name' ($probed)" "$WORK/run.log" ||
  fail "machine auto did not pick the probed file: $(grep roofline "$WORK/run.log")"
n=$(sql "$WORK/s.db" "SELECT COUNT(*) FROM points WHERE status = 'ok' AND bound_s > 0 AND efficiency > 0")
[ "$n" -gt 0 ] || fail "no point bounded by the probed ceilings"
# --install and --out together are a usage error.
set +e
"$RT" probe --cpu --install --out "$WORK/x.yaml" >/dev/null 2>&1
r=$?
set -e
[ "$r" = 2 ] || fail "--install with --out: exit $r, want 2"
echo "cli.probe_auto: ok"
