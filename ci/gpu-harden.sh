#!/usr/bin/env bash
# The GPU host's part of the hardening work (docs/reference/files.md): with a GPU present,
# `validate` and `run` judge the CUDA kernels' sweeps too (their constraints read the device), so
# every committed config is validated there (`run` makes the same check, rt_cli_check_spaces,
# before it opens the store, so a config validate refuses would no longer run); then the
# hardening tests run in the GPU build. Logs go to $OUT (default results/gpu-run/).
#
#   ci/gpu-harden.sh            (builds with ci/gpu-run.sh build first)
#
# Evidence, in $OUT/gpu-harden.log: "validate: N configs, 0 refused" with each config's "sweep:"
# line (CUDA sweeps judged: no "not judged" part), and the ctest line "100% tests passed" of the
# hardening tests; a refused config is listed with its message ($OUT/validate-<name>.log).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-results/gpu-run}
mkdir -p "$out"
log() { echo "[$(date +%H:%M:%S)] $*" | tee -a "$out/gpu-harden.log"; }
ci/gpu-run.sh build || { log "build FAILED (see $out/build.log)"; exit 1; }
. ci/gpu-env.sh
RT=build-gpu/rooftune
nvidia-smi -L | tee -a "$out/gpu-harden.log"

n=0 refused=0
for cfg in configs/*.yaml configs/*/*.yaml; do
  name=$(basename "$cfg" .yaml)
  n=$((n + 1))
  if ! timeout 300 $RT validate "$cfg" >"$out/validate-$name.log" 2>&1; then
    refused=$((refused + 1))
    log "validate refused $cfg: $(tail -2 "$out/validate-$name.log")"
  fi
  grep -h "sweep:" "$out/validate-$name.log" | sed "s|^|  $name |" >>"$out/gpu-harden.log"
done
log "validate: $n configs, $refused refused"

log "ctest (hardening)"
(cd build-gpu && ctest -j8 --timeout 300 --output-on-failure \
  -R "cli\.harden|cli\.full_disk|core\.outfile|trust\.faults|fuzz\.recorded|store\.|replay\.|regress\.compare" \
  2>&1) >"$out/ctest-harden.log"
grep -E "tests passed|tests failed|\(Failed\)|Not Run" "$out/ctest-harden.log" | tee -a "$out/gpu-harden.log"
log "done"
