# gpu.gate: the GPU end-to-end tests skip (77) only without a GPU, and fail on a GPU host whose
# CUDA kernels are unavailable (issue 13, item 7). A fake libcuda.so.1 (fake_libcuda.c) reports one
# device (FAKE_CUDA_DEVICES=1) with no plugin to load, or no device (0).
#   $1 rooftune  $2 repository root  $3 folder of the fake libcuda.so.1  $4 rt_gpu_launch
#   $5 scratch folder  $6 mpiexec
. "$(dirname "$0")/../rt_test_lib.sh"
set +e
rt_args RT ROOT FAKE LAUNCH WORK MPIEXEC -- "$@"
rm -rf "$WORK" && mkdir -p "$WORK/no-plugin"
unset ROOFTUNE_NO_CUDA

# 1. The gate alone, on list lines.
. "$ROOT/tests/gpu/rt_gpu_gate.sh"
gate() { (rt_gpu_gate "$1") >/dev/null 2>&1; }
gate "  spmm.cuda.csr  [cuda, family spmm]" || fail "an available kernel did not pass"
gate "  k  [cuda, family spmm]  unavailable here: no NVIDIA driver (libcuda.so.1 not found)"
[ $? = 77 ] || fail "no driver did not skip"
gate "  k  [cuda, family spmm]  unavailable here: no CUDA device (cuInit error 100)"
[ $? = 77 ] || fail "no device did not skip"
gate "  k  [cuda, family spmm]  unavailable here: 1 CUDA device(s) found but the plugin did not load: x"
[ $? = 1 ] || fail "a plugin that does not load did not fail"

# 2. The GPU end-to-end scripts under the fake driver, with no plugin where rooftune looks.
export LD_LIBRARY_PATH="$FAKE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ROOFTUNE_PLUGIN_DIR="$WORK/no-plugin"
check_script() { # name, expected exit code, device count, command...
  local name=$1 want=$2 devices=$3
  shift 3
  FAKE_CUDA_DEVICES=$devices "$@" >"$WORK/$name.$devices.log" 2>&1
  local rc=$?
  [ "$rc" = "$want" ] || fail "$name with $devices fake device(s): exit $rc, want $want: $(tail -3 "$WORK/$name.$devices.log")"
}
FAKE_CUDA_DEVICES=1 "$RT" list >"$WORK/list.txt" 2>&1 || fail "rooftune list under the fake driver"
grep -q "plugin did not load" "$WORK/list.txt" || fail "rooftune list does not say the plugin did not load: $(grep -m1 unavailable "$WORK/list.txt")"
for devices in 1 0; do
  want=$([ $devices = 1 ] && echo 1 || echo 77)
  check_script dspmm $want $devices bash "$ROOT/tests/dspmm/test_dspmm_gpu.sh" "$RT" "$ROOT" "$WORK/dspmm" "$MPIEXEC"
  check_script spmm2d $want $devices bash "$ROOT/tests/spmm2d/test_gpu_run.sh" "$RT" "$ROOT/tests/spmm2d" \
    "$WORK/spmm2d" "$MPIEXEC" 1 "$ROOT/configs/ci/stationary-spmm-gpu-small.yaml"
done
grep -q "plugin did not load" "$WORK/dspmm.1.log" || fail "the dspmm failure does not give the reason"

# 3. The launcher of programs that link the driver: skips without a device, runs the program with one.
check_script launch 77 0 "$LAUNCH" /bin/false
check_script launch 1 1 "$LAUNCH" /bin/false
check_script launch 0 1 "$LAUNCH" /bin/true
echo "gpu.gate: ok"
