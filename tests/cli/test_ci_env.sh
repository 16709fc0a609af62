# The numbers and files the GPU-host tuning scripts take from the environment (ci/env-check.sh):
# garbage in any of them stops ci/gpu-tune-parallel.sh and ci/gpu-tune-generation.sh before they
# run anything (exit 2, the variable named, no $OUT made), where it used to run a stage that did
# nothing or ran without its limit (ROOFTUNE_TUNE_ROUNDS=two: "rounds: none ran", exit 0).
source "$(dirname "$0")/lib.sh"
ROOT="$HERE/../.."
cfg="$ROOT/configs/tune/tiled-parallel.yaml"
# try SCRIPT VAR=VALUE: the script refuses it naming VAR, and makes no $OUT.
try() {
  local script=$1 setting=$2 var=${2%%=*} o="$WORK/out-$RANDOM"
  expect 2 "$(basename "$script"): $var" env OUT="$o" ROOFTUNE_BIN="$RT" ROOFTUNE_TUNE_CONFIG="$cfg" \
    ROOFTUNE_GEN_CONFIGS="$cfg" ROOFTUNE_DEVICE_NAME="NVIDIA H200" ROOFTUNE_GEN_WORK="$WORK/gen-work" \
    "$setting" bash "$script" rounds
  [ ! -e "$o" ] || fail "$script with $setting made $o"
}
par="$ROOT/ci/gpu-tune-parallel.sh"
gen="$ROOT/ci/gpu-tune-generation.sh"
for bad in two -1 0 1.5 "" "3 4"; do
  try "$par" "ROOFTUNE_TUNE_ROUNDS=$bad"
  try "$par" "ROOFTUNE_ROUNDS_DEADLINE_S=$bad"
  try "$par" "ROOFTUNE_STAGE_SECONDS=$bad"
  try "$gen" "ROOFTUNE_STAGE_SECONDS=$bad"
done
for bad in two -1 1.5 ""; do
  try "$par" "ROOFTUNE_GPUS=$bad"
  try "$gen" "ROOFTUNE_GPUS=$bad"
done
try "$par" "ROOFTUNE_TUNE_CONFIG=$WORK/missing.yaml"
try "$gen" "ROOFTUNE_GEN_CONFIGS=$cfg $WORK/missing.yaml"
grep -q "names '$WORK/missing.yaml', which is not a readable file" "$WORK/out.txt" ||
  fail "the missing config is not named: $(cat "$WORK/out.txt")"
# The message says what is wanted.
try "$par" "ROOFTUNE_TUNE_ROUNDS=two"
grep -q "ROOFTUNE_TUNE_ROUNDS='two' is not a whole number of at least 1" "$WORK/out.txt" ||
  fail "the message: $(cat "$WORK/out.txt")"
echo "ci env: ok"
