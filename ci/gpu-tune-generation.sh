#!/usr/bin/env bash
# Issue 35, item 4 on a GPU host: tuned per GPU generation. The Tiled SpMM, the fused sparse-DNN
# layer and GEMM are tuned on every GPU of the host at once (configs/tune/generation-*.yaml,
# exhaustive, `--parallel gpus`), the best configuration of every sweep recorded per device in a
# tuning database; `rooftune best` answers for this device and, by fallback, for the other
# generation; the portability config runs each device's best configurations; the table gives the
# loss of each GPU's tuning on the others.
#
#   build       the GPU build (ci/gpu-run.sh build)
#   tune        each config into $OUT/gen-<slug>.db, its best points into $OUT/tuned-<slug>.db
#               (<slug>: the device's name, lower case, "NVIDIA " dropped: h200, h100-80gb-hbm3)
#   best        `rooftune best` for every entry of this device (it must answer `matched: device`)
#               and for the other generation's device name (FALLBACK_DEVICE: the H100 on an H200,
#               else the H200), which answers by architecture and memory; the C header and YAML
#               exports of the tuning database
#   merge       this device's tuning database and TUNED_OTHER's (space-separated: the other
#               GPUs' tuned-<slug>.db) merged into $OUT/tuned-all.db (`rooftune tune --from`)
#   portconfig  per config, `rooftune portability --config` from the tuning database (tuned-all.db
#               when merged, else this device's): port-<slug>-<config>.yaml
#   port        runs PORT_CONFIG (space-separated portability configs, say those another GPU
#               wrote; default: this run's) into $OUT/port-<slug>.db, with --parallel gpus. A config
#               written on another machine includes its tuning config by that machine's path: the
#               include is pointed at the config of the same name here
#   table       `rooftune portability --table` over this device's port store (else its gen store,
#               which holds every configuration of the exhaustive spaces) and STORES_OTHER's
#               (the other GPUs' port or gen stores) into $OUT/portability-<slug>.md
#
#   OUT=... ci/gpu-tune-generation.sh [stages]          (default: build tune best portconfig table)
#
# The numbers and config files taken from the environment are checked before anything runs
# (ci/env-check.sh): one that is not a whole number in range, or a config that is not a readable
# file, stops the script with exit 2 naming the variable (cli.ci_env).
#
# The first GPU (4 x H200, nvidia-h200-x4):
#   OUT=... ci/gpu-tune-generation.sh
# A later GPU (an H100), given the first one's stores (committed under results/):
#   OUT=... TUNED_OTHER=.../tuned-h200.db STORES_OTHER=.../gen-h200.db \
#     ci/gpu-tune-generation.sh build tune best merge portconfig port table
# The table is then whole: each store measured every configuration of the exhaustive spaces, the
# other GPU's best included (the port stage measures the tuned configurations again in one run).
#
# $OUT gets at most 7 files: gen-<slug>.txt (the summary), gen-<slug>.db, tuned-<slug>.db,
# tuned-all.db, port-<slug>.db, portability-<slug>.md and gen.tgz (the logs, the portability
# configs, the exports and the best answers: everything else), remade after every stage. The exit
# status is 1 when a step failed (the summary says which).
#
# ROOFTUNE_BIN, ROOFTUNE_GEN_CONFIGS, ROOFTUNE_GPUS, ROOFTUNE_DEVICE_NAME and ROOFTUNE_GEN_WORK let
# the script's own logic be tried on a machine without GPUs (CPU configs and workers:
# tests/cli/test_generation.sh); on the GPU host they stay unset.
set -uo pipefail
cd "$(dirname "$0")/.."
. ci/env-check.sh
env_whole ROOFTUNE_STAGE_SECONDS 1
env_whole ROOFTUNE_GPUS 0
env_files ROOFTUNE_GEN_CONFIGS
out=${OUT:-results/gpu-run}
mkdir -p "$out"
stages=${*:-build tune best portconfig table}
RT=${ROOFTUNE_BIN:-build-gpu/rooftune}
configs=${ROOFTUNE_GEN_CONFIGS:-configs/tune/generation-tiled.yaml configs/tune/generation-spdnn.yaml configs/tune/generation-gemm.yaml}
budget=${ROOFTUNE_STAGE_SECONDS:-900}
. ci/gpu-env.sh
gpus=${ROOFTUNE_GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)}
device=${ROOFTUNE_DEVICE_NAME:-$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)}
[ -n "$device" ] || { echo "no GPU found (nvidia-smi) and no ROOFTUNE_DEVICE_NAME" >&2; exit 2; }
slug=$(echo "$device" | tr 'A-Z' 'a-z' | sed -e 's/^nvidia //' -e 's/[^a-z0-9][^a-z0-9]*/-/g' -e 's/^-//' -e 's/-$//')
case $device in
*H100*) fallback=${FALLBACK_DEVICE:-NVIDIA H200} ;;
*) fallback=${FALLBACK_DEVICE:-NVIDIA H100 80GB HBM3} ;;
esac
# Everything but the stores and the summary: kept beside the build and tarred into $OUT/gen.tgz.
work=${ROOFTUNE_GEN_WORK:-build-gpu/gen-work}
mkdir -p "$work"
summary=$out/gen-$slug.txt
gen=$out/gen-$slug.db
tuned=$out/tuned-$slug.db
merged=$out/tuned-all.db
port=$out/port-$slug.db
failed=0
say() { echo "$*" | tee -a "$summary"; }
now() { date +%s.%N; }
pack() { tar -czf "$out/gen.tgz" -C "$work" . 2>/dev/null || say "gen.tgz: tar failed"; }
tuning_db() { if [ -f "$merged" ]; then echo "$merged"; else echo "$tuned"; fi; }
# One worker per GPU of the host; one GPU alone runs in the main process.
par=()
[ "${gpus:-0}" -ge 2 ] && par=(--parallel gpus --workers "$gpus")

# step NAME LOG CMD...: runs CMD with its output in LOG, then says its exit status and wall time.
step() {
  local name=$1 log=$2 t0 rc=0
  shift 2
  t0=$(now)
  timeout "$budget" "$@" >"$log" 2>&1 || rc=$?
  local wall
  wall=$(python3 -c "print('%.1f' % ($(now) - $t0))")
  say "$name: exit $rc, $wall s wall"
  [ "$rc" = 0 ] || failed=1
  return "$rc"
}

say "generation on $device ($slug), ${gpus:-0} GPU(s), stages: $stages"
for s in $stages; do
  case $s in
  build)
    OUT=$work bash ci/gpu-run.sh build
    [ -x "$RT" ] || { say "build failed"; pack; exit 1; }
    ;;
  tune)
    for cfg in $configs; do
      name=$(basename "$cfg" .yaml)
      step "tune $name" "$work/tune-$name.log" $RT tune "$cfg" --db "$gen" --tuning-db "$tuned" \
        "${par[@]}" --quiet
      say "  $(grep -m1 '^summary' "$work/tune-$name.log")"
      grep -m1 '^tuning database' "$work/tune-$name.log" | sed 's/^/  /' | tee -a "$summary"
    done
    ;;
  best)
    rm -f "$work/best-answers.txt"
    # Every entry of this device, asked by its device and input: the answer must be that entry.
    python3 - "$tuned" >"$work/best-queries.txt" <<'EOF'
import collections, sqlite3, sys
db = sqlite3.connect("file:%s?immutable=1" % sys.argv[1], uri=True)  # no -wal or -shm left behind
# (this host's tuning database: its entries are this device's, by the name the runs recorded)
rows = db.execute("SELECT kernel, device, matrix, rows, nnz_per_row, k, params FROM tuning"
                  " ORDER BY kernel, matrix, k, problem").fetchall()
# best's input features are rows, nonzeros per row and K: problem points that differ otherwise
# (GEMM's N, a precision) are the same input to it, and only one of their entries can answer.
same = collections.Counter(r[:2] + r[3:6] for r in rows)
for kernel, device, matrix, nrows, npr, k, params in rows:
    args = ["--kernel", kernel, "--device", device]
    for opt, v in (("--rows", nrows), ("--nnz-per-row", npr), ("--k", k)):
        if v and v > 0:
            args += [opt, repr(float(v))]
    unique = "1" if same[(kernel, device, nrows, npr, k)] == 1 else "0"
    print("\t".join([matrix, params, unique] + args))
EOF
    n=0 bad=0 shared=0
    while IFS= read -r line; do
      IFS=$'\t' read -r -a f <<<"$line"
      matrix=${f[0]} params=${f[1]} unique=${f[2]}
      argv=("${f[@]:3}")
      $RT best --db "$tuned" "${argv[@]}" >"$work/best.out" 2>&1
      cat "$work/best.out" >>"$work/best-answers.txt"
      n=$((n + 1))
      [ "$unique" = 1 ] || shared=$((shared + 1))
      if ! grep -q "^matched:   device" "$work/best.out" ||
        { [ "$unique" = 1 ] && ! grep -qF "$params" "$work/best.out"; }; then
        bad=$((bad + 1))
        say "  best ${argv[1]} on $matrix: not this device's entry: $(tr '\n' ' ' <"$work/best.out")"
      fi
    done <"$work/best-queries.txt"
    say "best: $n entr(ies) of $(cut -f7 "$work/best-queries.txt" | sort -u | tr '\n' ' ')asked, $((n - bad)) answered by this device (matched: device)," \
      "$shared of them sharing their input features (rows, nonzeros per row, K) with another" \
      "problem point, which best cannot tell apart; the others by their own entry"
    [ "$n" -gt 0 ] && [ "$bad" = 0 ] || failed=1
    for kernel in $(cut -f5 "$work/best-queries.txt" | sort -u); do
      $RT best --db "$(tuning_db)" --kernel "$kernel" --device "$fallback" >"$work/best.out" 2>&1
      cat "$work/best.out" >>"$work/best-answers.txt"
      say "  $kernel on $fallback: $(grep '^matched:' "$work/best.out" || echo "no answer: $(cat "$work/best.out")")"
    done
    step "export" "$work/export.log" $RT best --db "$(tuning_db)" --export-header "$work/rooftune_tuned.h" \
      --export-yaml "$work/tuned.yaml"
    ;;
  merge)
    rm -f "$merged"
    for db in "$tuned" ${TUNED_OTHER:-}; do
      step "merge $db" "$work/merge.log" $RT tune --from "$db" --tuning-db "$merged" ||
        say "  $(cat "$work/merge.log")"
    done
    [ -f "$merged" ] && python3 - "$merged" <<'EOF' | tee -a "$summary"
import sqlite3, sys
db = sqlite3.connect("file:%s?immutable=1" % sys.argv[1], uri=True)  # no -wal or -shm left behind
for dev, arch, n in db.execute("SELECT device, arch, COUNT(*) FROM tuning GROUP BY device, arch ORDER BY device"):
    print("  tuned-all.db: %d entr(ies) of %s (%s)" % (n, dev, arch))
EOF
    ;;
  portconfig)
    for cfg in $configs; do
      name=$(basename "$cfg" .yaml)
      step "portconfig $name" "$work/portconfig-$name.log" $RT portability --db "$(tuning_db)" \
        --config "$cfg" --out "$work/port-$slug-$name.yaml" && say "  $(cat "$work/portconfig-$name.log")"
    done
    ;;
  port)
    list=${PORT_CONFIG:-$(ls "$work"/port-"$slug"-*.yaml 2>/dev/null)}
    [ -n "$list" ] || { say "port: no portability config (PORT_CONFIG, or the portconfig stage)"; failed=1; }
    for pc in $list; do
      name=$(basename "$pc" .yaml)
      # The include names the tuning config by the path of the machine that wrote it; here it is
      # the config of the same file name among those this script tunes.
      inc=$(sed -n 's/^include: "\(.*\)"$/\1/p' "$pc" 2>/dev/null | head -1)
      run_cfg=$pc
      if [ -n "$inc" ] && [ ! -f "$inc" ]; then
        here=""
        for cfg in $configs; do [ "$(basename "$cfg")" = "$(basename "$inc")" ] && here=$(cd "$(dirname "$cfg")" && pwd)/$(basename "$cfg"); done
        if [ -z "$here" ]; then
          say "port $name: it includes $inc, which is neither there nor one of: $configs"
          failed=1
          continue
        fi
        run_cfg=$work/run-$name.yaml
        sed "s|^include: \".*\"\$|include: \"$here\"|" "$pc" >"$run_cfg"
        say "  port $name: include $inc -> $here"
      fi
      step "port $name" "$work/port-$name.log" $RT run "$run_cfg" --db "$port" "${par[@]}" --quiet ||
        say "  $(tail -3 "$work/port-$name.log")"
      say "  $(grep -m1 '^summary' "$work/port-$name.log")"
    done
    ;;
  table)
    local_store=$gen
    [ -f "$port" ] && local_store=$port
    step "table" "$work/table.log" $RT portability --db "$(tuning_db)" --table "$local_store" \
      ${STORES_OTHER:-} --markdown "$out/portability-$slug.md" || say "  $(tail -3 "$work/table.log")"
    # The summary block (title and the device-by-device losses) into the summary.
    [ -f "$out/portability-$slug.md" ] && awk 'NF == 0 { if (++blank == 2) exit } { print }' \
      "$out/portability-$slug.md" | tee -a "$summary"
    ;;
  *)
    say "unknown stage $s"
    failed=1
    ;;
  esac
  pack
done
exit "$failed"
