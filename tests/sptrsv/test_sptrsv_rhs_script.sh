# sptrsv.rhs_script: ci/gpu-sptrsv-scale.sh's rhs mode on this machine, with a stand-in
# nvidia-smi (4 x H200) and a stand-in cmake that takes the rooftune under test as the GPU build,
# in a copy of the scripts and configs committed to a scratch git repository. Without a GPU the
# CUDA kernels are skipped, so each part's run is a complete run with no point, which is what the
# mode's bookkeeping needs:
#   - ROOFTUNE_RHS_PARTS and ROOFTUNE_RHS_MIN_S garbage: exit 2 naming the variable;
#   - two named parts run into their own stores, the log counts 2 of 6 complete, the stores come
#     back in $OUT/sptrsv-rhs-stores.tgz beside the table;
#   - a second call skips what is complete at this revision and starts no part with less time
#     left than ROOFTUNE_RHS_MIN_S;
#   - after a new commit a part runs again (complete means complete at the checkout's revision).
#   $1 rooftune, $2 source root, $3 scratch folder, $4 mpirun
. "$(dirname "$0")/../rt_test_lib.sh"
rt_args RT ROOT WORK MPIRUN -- "$@"
command -v sqlite3 >/dev/null || {
  echo "sqlite3 not installed: skipped"
  exit 77
}
rt_scratch "$WORK" bin repo/ci repo/configs repo/roofline out
rt_mpi_env
export PATH="$WORK/bin:$(dirname "$MPIRUN"):$PATH"
cat >"$WORK/bin/nvidia-smi" <<'EOF'
#!/bin/bash
case "$*" in
-L) for i in 0 1 2 3; do echo "GPU $i: NVIDIA H200 (UUID: GPU-stand-in-$i)"; done ;;
*query-gpu*) for i in 0 1 2 3; do echo "NVIDIA H200"; done ;;
*) echo "stand-in nvidia-smi: no topology" ;;
esac
EOF
# The stand-in GPU build: the rooftune under test, whose runs then record the scratch checkout's
# revision, as a build of that checkout would (cmake/build_info.cmake).
cat >"$WORK/rooftune-gpu" <<EOF
#!/bin/bash
"$RT" "\$@"
rc=\$?
db=
while [ \$# -gt 0 ]; do
  [ "\$1" = --db ] && db=\$2
  shift
done
if [ "\${OMPI_COMM_WORLD_RANK:-0}" = 0 ] && [ -f "\$db" ]; then
  sqlite3 "\$db" "UPDATE runs SET git_revision = '\$(git rev-parse HEAD)'"
fi
exit \$rc
EOF
cat >"$WORK/bin/cmake" <<EOF
#!/bin/bash
mkdir -p build-gpu && cp "$WORK/rooftune-gpu" build-gpu/rooftune
echo "--   CUDA plugin : stand-in (the rooftune under test)"
EOF
chmod +x "$WORK/rooftune-gpu"
chmod +x "$WORK/bin/nvidia-smi" "$WORK/bin/cmake"
repo=$WORK/repo
cp "$ROOT"/ci/gpu-sptrsv-scale.sh "$ROOT"/ci/gpu-machine.sh "$ROOT"/ci/sptrsv-rhs-table.sh \
  "$ROOT"/ci/sptrsv-rhs.sql "$repo/ci/"
cp -r "$ROOT/configs/paper" "$repo/configs/"
cp -r "$ROOT/roofline/machines" "$repo/roofline/"
git -C "$repo" init -q
git -C "$repo" -c user.email=t@t -c user.name=t add -A
git -C "$repo" -c user.email=t@t -c user.name=t commit -qm one
export ROOFTUNE_DEVICE_DIR=stand-in OUT=$WORK/out ROOFTUNE_NO_CUDA=1 OMP_NUM_THREADS=1 \
  ASAN_OPTIONS=detect_leaks=0
base=$repo/results/baselines/stand-in
call() {
  local rc=0
  LOG=$(bash "$repo/ci/gpu-sptrsv-scale.sh" rhs 2>&1) || rc=$?
  return $rc
}
has() { grep -qF -- "$1" <<<"$LOG" || fail "no '$1' in:
$LOG"; }

# Garbage in the mode's variables.
ROOFTUNE_RHS_PARTS="8-forward 16-forward" call && fail "a part that does not exist was taken"
has "ROOFTUNE_RHS_PARTS: no part '16-forward'"
ROOFTUNE_RHS_MIN_S=soon call && fail "ROOFTUNE_RHS_MIN_S=soon was taken"
has "ROOFTUNE_RHS_MIN_S='soon' is not a number of seconds"

# Two parts, each into its own store.
ROOFTUNE_RHS_PARTS="8-forward 1-backward" call || fail "the rhs mode failed: $LOG"
has "rhs 8-forward: mpirun -np 4 configs/paper/sptrsv-rhs-8-forward.yaml"
has "rhs 1-backward: mpirun -np 4 configs/paper/sptrsv-rhs-1-backward.yaml"
has "rhs: 2 of 6 parts complete at this revision"
[ "$(sql "$base/sptrsv-rhs-8-forward.db" "SELECT experiment || ' ' || status FROM runs")" = "sptrsv-rhs-8-forward complete" ] ||
  fail "8-forward's store holds no complete run of its part"
[ ! -e "$base/sptrsv-rhs-32-forward.db" ] || fail "a part not asked for ran"
[ "$(tar tzf "$WORK/out/sptrsv-rhs-stores.tgz" | sort | tr '\n' ' ')" = "sptrsv-rhs-1-backward.db sptrsv-rhs-8-forward.db " ] ||
  fail "the stores that came back: $(tar tzf "$WORK/out/sptrsv-rhs-stores.tgz")"
[ -f "$WORK/out/sptrsv-rhs.txt" ] || fail "no table"

# The next call: the complete parts are skipped, and no part starts with too little time left.
ROOFTUNE_RHS_MIN_S=100000 call || fail "the second call failed: $LOG"
has "rhs 8-forward: complete at this revision"
has "rhs 1-backward: complete at this revision"
has "rhs 32-forward: "
has "s left, under ROOFTUNE_RHS_MIN_S=100000: the next call"
grep -q "mpirun -np" <<<"$LOG" && fail "a part ran with less time left than the minimum: $LOG"

# A new revision: complete means complete at the checkout's revision.
echo "# touched" >>"$repo/configs/paper/sptrsv-rhs.yaml"
git -C "$repo" -c user.email=t@t -c user.name=t commit -qam two
ROOFTUNE_RHS_PARTS=8-forward call || fail "the third call failed: $LOG"
has "rhs 8-forward: mpirun -np 4"
has "rhs: 1 of 6 parts complete at this revision"
echo "sptrsv.rhs_script: ok"
