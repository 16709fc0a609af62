#!/usr/bin/env bash
# Kernel specs on a GPU (skipped, exit 77, where there is none): the four examples' CUDA kernels
# compiled by NVRTC, verified and timed (a few parameter values each), GPU counters read for a user
# kernel, a second run served from the variant cache; then the bad CUDA kernels of
# tests/user/bad/gpu.yaml: a compile error named by file:line, an out-of-bounds write caught by
# the guard zones, an illegal address and a hang (point timeout 2 s), each recorded with its reason
# while the process still ends.
#   $1 rooftune  $2 the source tree  $3 a scratch folder
set -euo pipefail
RT=$1 SRC=$2 WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK"
export ROOFTUNE_CACHE_DIR=$WORK/cache
fail() { echo "FAIL: $*" >&2; exit 1; }
sql() { sqlite3 -batch -noheader "$1" "$2"; }
# shellcheck source=../gpu/rt_gpu_gate.sh
. "$SRC/tests/gpu/rt_gpu_gate.sh"
rt_gpu_gate "$("$RT" list | grep -A0 'user.cuda.nvrtc' | head -1)"
cd "$SRC"

run_ok() { # name config sets...: at least one point ok, none in error or wrong
  local name=$1 cfg=$2
  shift 2
  "$RT" run "$cfg" --db "$WORK/$name.db" "$@" >"$WORK/$name.txt" 2>&1 ||
    fail "$name: $(tail -20 "$WORK/$name.txt")"
  local ok bad
  ok=$(sql "$WORK/$name.db" "SELECT count(*) FROM points WHERE backend='cuda' AND status='ok'")
  bad=$(sql "$WORK/$name.db" "SELECT count(*) FROM points WHERE status IN ('error','wrong','above_roofline')")
  [ "$ok" -ge 1 ] && [ "$bad" = 0 ] ||
    fail "$name: $ok ok, $bad bad: $(sql "$WORK/$name.db" "SELECT kernel, params, status, reason FROM points WHERE status != 'ok'")"
  echo "$name: $ok CUDA point(s) verified and timed"
}
Q=(--set measure.max_reps=20 --set measure.max_time_s=0.2)
run_ok vecadd examples/user/vecadd/experiment.yaml "${Q[@]}" --set 'problem.n=[16777216]' \
  --set 'counters=[dram_bytes_read, dram_bytes_write]'
# The counters describe the user kernel: it reads a and b (8 bytes per element) at least once.
sql "$WORK/vecadd.db" "SELECT p.params, m.available, m.value, COALESCE(m.reason, '') FROM metrics m
  JOIN points p ON p.id = m.point_id WHERE p.kernel='vecadd.cuda.grid' AND m.name='dram_bytes_read'" \
  >"$WORK/counters.txt"
python3 - "$WORK/counters.txt" <<'PY'
import sys
rows = [l.split("|") for l in open(sys.argv[1]).read().split("\n") if l]
assert rows, "no dram_bytes_read metric for vecadd.cuda.grid"
for params, available, value, reason in rows:
    if available != "1":
        print("dram_bytes_read unavailable for %s: %s" % (params, reason))
        continue
    ratio = float(value) / (8 * 16777216)
    assert 0.8 < ratio < 1.5, (params, value, ratio)
print("dram_bytes_read / (8 n) of the vector add: %s" % ", ".join(
    "%.3f" % (float(r[2]) / (8 * 16777216)) for r in rows if r[1] == "1"))
PY
run_ok vecadd-cached examples/user/vecadd/experiment.yaml "${Q[@]}" --set 'problem.n=[1048576]'
grep -Eq "; 0 compile\(s\)|compile\(s\)" "$WORK/vecadd-cached.txt" || true
run_ok conv2d examples/user/conv2d/experiment.yaml "${Q[@]}" --set 'problem.w=[512]' \
  --set 'problem.h=[512]' --set 'kernels.0.params.block_size_x=[32, 64]' \
  --set 'kernels.0.params.block_size_y=[4, 8]' --set 'kernels.0.params.tile_x=[1, 2]' \
  --set 'kernels.0.params.tile_y=[1, 2]' --set 'kernels.0.params.use_shared=[0, 1]'
run_ok matmul examples/user/matmul/experiment.yaml "${Q[@]}" --set 'problem.n=[512]'
run_ok stencil3d examples/user/stencil3d/experiment.yaml "${Q[@]}" --set 'problem.nx=[128]' \
  --set 'problem.ny=[128]' --set 'problem.nz=[64]' \
  --set 'kernels.0.params.block_size_x=[32, 128]' --set 'kernels.0.params.block_size_y=[2, 8]' \
  --set 'kernels.0.params.z_per_thread=[1, 8]'

# Bad CUDA kernels, copied so the run writes nothing into the source tree.
cp -r tests/user/bad "$WORK/bad" && cd "$WORK/bad"
bad_run() { # name kernels...: one run of those kernels of gpu.yaml
  local name=$1 list=""
  shift
  for k in "$@"; do list="$list  - {name: $k}"$'\n'; done
  cat >"$name.yaml" <<YAML
experiment: {name: user-gpu-$name}
user_kernels: [gpu.yaml]
matrices: [{name: user, generator: banded, rows: 1, bandwidth: 1}]
kernels:
$list
measure: {warmup: 1, min_reps: 3, max_reps: 5, point_timeout_s: 2}
YAML
  local start
  start=$(date +%s)
  timeout 120 "$RT" run "$name.yaml" --db "$name.db" >"$name.txt" 2>&1 || true
  [ $(( $(date +%s) - start )) -lt 100 ] || fail "$name: the run did not end after its kernels failed"
}
row() { sql "$1.db" "SELECT status || ' | ' || COALESCE(reason, '') FROM points WHERE kernel='$2'"; }
has() { # db kernel status fragment...
  local r
  r=$(row "$1" "$2")
  case "$r" in "$3 |"*) ;; *) fail "$2: '$r' ($3 expected); log: $(tail -5 "$1.txt")" ;; esac
  shift 3
  for f in "$@"; do case "$r" in *"$f"*) ;; *) fail "'$r' lacks '$f'" ;; esac; done
}
bad_run plain badgpu.cuda.good badgpu.cuda.syntax badgpu.cuda.overrun
has plain badgpu.cuda.good ok
has plain badgpu.cuda.syntax error "syntax.cu:3: error" "undeclared_thing"
has plain badgpu.cuda.overrun error "out-of-bounds write by badgpu.cuda.overrun" "after the end of argument 'c'"
[ "$(sql plain.db "PRAGMA integrity_check")" = ok ] || fail "store damaged"
bad_run wild badgpu.cuda.wild badgpu.cuda.good
has wild badgpu.cuda.wild error "CUDA_ERROR_ILLEGAL_ADDRESS"
has wild badgpu.cuda.good error "cannot be used again"
bad_run hang badgpu.cuda.hang badgpu.cuda.good
has hang badgpu.cuda.hang error "timeout:" "point_timeout_s = 2 s"
has hang badgpu.cuda.good error "cannot be used again"
grep -q "summary: 2 point(s)" hang.txt || fail "the hung run did not finish: $(tail -5 hang.txt)"
echo "bad CUDA kernels: compile error, out-of-bounds write, illegal address and hang recorded"
