#!/usr/bin/env bash
# Issue 35 on a GPU host: parallel tuning on 1, 2 and 4 GPUs, early abort's saving, the energy
# objective. Every run tunes configs/tune/tiled-parallel.yaml (64 Tiled SpMM points, exhaustive)
# into a store of its own under $OUT; what each stage measured goes to $OUT/tune-parallel.txt.
#
#   build   the GPU build (ci/gpu-run.sh build)
#   check   the issue's tests on the GPU build: cuda.tune_gpu (energy from NVML, the compile time
#           limit, --parallel gpus/ranks on a GPU, one GPU per worker in the phase record),
#           cuda.nvml_energy, cuda.nvrtc_cache, the runner's and the CLI's parallel (phases and
#           two sweeps open at once included), Pareto and tuning tests
#   tune    cold variant cache (each run compiles every variant, as tuning a new space does),
#           after an untimed 3-point warm-up of the machine: serial (one GPU), then
#           --parallel gpus with 2 and 4 workers (as many as the host has);
#           per run the wall time, the speedup over serial, whether the verified points and the
#           best point per sweep are the serial run's, and the bar (>= 1.7x on 2, >= 3.4x on 4)
#
# Under every run the summary says where its wall time went (ci/tune-phases.py over the store's
# phases table): the time outside the main process's record (loading, harvest, teardown), the
# first point's start and the last one's end against the ideal (the points' busy time over the
# measuring processes), the main process's set-up (MPI, config, GPU count, spawn, backend, checks,
# store, matrices), per worker or rank its start, ready, first and last point, exit, busy time by
# step (inputs, setup, verify, repetitions, finish; the NVRTC compiles on the points' path, and
# the points compiled ahead by the pool off the path, measure.compile_ahead) and waiting, and per
# sweep its tail (the longest a process sat idle after its last point of the sweep) and, with
# worker processes, by how much the next sweep's first points overlapped it ("overlapped X s by
# the next sweep"). The summary line of each run says how many points were compiled ahead.
#   rounds  the tune stage's runs ROOFTUNE_TUNE_ROUNDS times (5), each cold, the order rotated each
#           round; each run's median wall time and the speedup of the medians (a headline number
#           wants several samples, not one run)
#   ranks   the same with --parallel ranks under mpirun -np 2 and 4 (first a line saying whether
#           this host's MPI delivers a 69 KiB message while its sender is away, or waits for it)
#   ranks-noahead  the ranks stage with measure.compile_ahead 0, each run after a line with the
#           host's load and busiest processes (the ranks stage prints that line too)
#   ranks-own-gpu  4 ranks again, each seeing its own GPU alone (CUDA_VISIBLE_DEVICES per rank)
#   omp     4 workers again with OMP_NUM_THREADS = every core and OMP_WAIT_POLICY=passive, against
#           the default share of cores / workers
#   noahead serial and --parallel gpus 2, 4 again with measure.compile_ahead 0 (cold caches): every
#           point compiles on its own path, as before the compile-ahead pool was fed; what the pool
#           cuts from each run and the ratio without it (the tune stage runs with it, the default)
#   warm    serial and --parallel gpus again with the variants already cached (compiles left out)
#   abort   serial, warm cache, measure.abort_factor 1.5 against none: wall time saved, same best
#   energy  serial, warm cache, measure.energy (at least 0.3 s of repetitions per point): the
#           energy_j and power_w metrics (or why not), then `rooftune pareto` over time and energy
#           with its figures (under $OUT/pareto)
#
#   OUT=... ci/gpu-tune-parallel.sh [stages]      (default: build check tune)
#
# The numbers and config files taken from the environment are checked before anything runs
# (ci/env-check.sh): one that is not a whole number in range, or a config that is not a readable
# file, stops the script with exit 2 naming the variable (cli.ci_env).
#
# The machine kind: 4 GPUs for the full bar (nvidia-h100-x4), 2 for the 2-GPU half.
set -uo pipefail
cd "$(dirname "$0")/.."
. ci/env-check.sh
env_whole ROOFTUNE_STAGE_SECONDS 1
env_whole ROOFTUNE_GPUS 0
env_whole ROOFTUNE_TUNE_ROUNDS 1
env_whole ROOFTUNE_ROUNDS_DEADLINE_S 1
env_files ROOFTUNE_TUNE_CONFIG
out=${OUT:-results/gpu-run}
mkdir -p "$out"
stages=${*:-build check tune}
summary=$out/tune-parallel.txt
# ROOFTUNE_BIN, ROOFTUNE_TUNE_CONFIG and ROOFTUNE_GPUS let the script's own logic be tried on a
# machine without GPUs (CPU workers, a CPU config); on the GPU host they stay unset.
RT=${ROOFTUNE_BIN:-build-gpu/rooftune}
CFG=${ROOFTUNE_TUNE_CONFIG:-configs/tune/tiled-parallel.yaml}
budget=${ROOFTUNE_STAGE_SECONDS:-400}
. ci/gpu-env.sh
gpus=${ROOFTUNE_GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)}
# Variant caches stay on the GPU host (beside the build, which a warm machine keeps between calls),
# not under $OUT: the stores and logs are what comes back.
caches=${ROOFTUNE_TUNE_CACHES:-build-gpu/tune-parallel-caches}
mkdir -p "$caches"
say() { echo "$*" | tee -a "$summary"; }
now() { date +%s.%N; }

# One tuning run: NAME CACHE ARGS...; its wall time goes to $out/NAME.time.
tune_run() {
  local name=$1 cache=$2
  shift 2
  local db=$out/$name.db
  rm -f "$db" "$db-wal" "$db-shm" "$db.lock"
  local t0 t1 rc=0
  t0=$(now)
  # CUDA_CACHE_PATH inside the variant cache: NVRTC 12.9+ keeps its own compile cache in the
  # driver's compute cache (~/.nv/ComputeCache by default), so without this every run after the
  # first would find the serial run's compiles there (4 x H200, b15bef8: 4.21 s of NVRTC time in
  # the serial run against 0.54-0.64 s in the worker runs). A cold run is cold in both caches; a
  # warm stage that reuses a variant cache reuses its compute cache too.
  mkdir -p "$cache"
  CUDA_CACHE_PATH=$cache/driver-cache ROOFTUNE_CACHE_DIR=$cache timeout "$budget" "$@" >"$out/$name.log" 2>&1 || rc=$?
  t1=$(now)
  python3 -c "print('%.2f' % ($t1 - $t0))" >"$out/$name.time"
  say "$name: exit $rc, $(cat "$out/$name.time") s wall, $(grep -m1 '^summary' "$out/$name.log")"
  python3 ci/tune-phases.py "$db" --wall "$(cat "$out/$name.time")" --name "  $name phases" 2>&1 |
    tee -a "$summary"
}

# Every point of a store as one tab-separated line: sweep (kernel, matrix, problem), params,
# status, verified, median time.
facts() {
  $RT export --db "$1" --format csv | python3 -c '
import csv, sys
for r in sorted(csv.DictReader(sys.stdin), key=lambda r: (r["kernel"], r["matrix"], r["problem"], r["params"])):
    print("\t".join([r["kernel"], r["matrix"], r["problem"], r["params"], r["status"], r["verified"],
                     r["time_median_s"] or "nan"]))
'
}

# The run against the serial one: speedup, the same verified points, and per sweep the same best
# point, or, where the best differs, how much slower the serial run measured the parallel run's
# best than its own (the noise between two points that near each other).
compare() { # NAME SERIAL [BAR]
  local name=$1 serial=$2 bar=${3:-}
  # A stage run without its serial run in this $OUT (say `ranks` alone on a later call) has
  # nothing to compare with: say so instead of printing an empty speedup.
  if [ ! -f "$out/$serial.db" ] || [ ! -f "$out/$serial.time" ]; then
    say "  $name vs $serial: no $serial run in $out to compare with (run its stage in the same call)"
    return 0
  fi
  facts "$out/$serial.db" >"$out/$serial.facts"
  facts "$out/$name.db" >"$out/$name.facts"
  local speedup
  speedup=$(python3 -c "print('%.2f' % ($(cat "$out/$serial.time") / $(cat "$out/$name.time")))")
  python3 - "$out/$serial.facts" "$out/$name.facts" "$name" "$serial" "$speedup" <<'EOF' | tee -a "$summary"
import sys
def load(path):
    rows = [l.rstrip("\n").split("\t") for l in open(path)]
    return {tuple(r[:4]): r for r in rows}
serial, par = load(sys.argv[1]), load(sys.argv[2])
same_points = {k: v[4:6] for k, v in serial.items()} == {k: v[4:6] for k, v in par.items()}
def best(rows):
    out = {}
    for k, r in rows.items():
        if r[4] == "ok" and r[5] == "1":
            t = float(r[6])
            if k[:3] not in out or t < out[k[:3]][0]:
                out[k[:3]] = (t, k[3])
    return out
bs, bp = best(serial), best(par)
same_best = all(bp.get(sw, (0, None))[1] == p for sw, (t, p) in bs.items())
print("  %s vs %s: speedup %sx, same verified points: %s, same best point in every sweep: %s"
      % (sys.argv[3], sys.argv[4], sys.argv[5], "yes" if same_points else "no",
         "yes" if same_best else "no"))
for sw, (t, p) in sorted(bs.items()):
    q = bp.get(sw, (None, None))[1]
    if q != p:
        ts = float(serial[sw + (q,)][6]) if (sw + (q,)) in serial else float("nan")
        print("    %s %s: %s's best %s (%.4g ms); %s's best %s measured %.4g ms in %s, %+.2f%%"
              % (sw[0], sw[1], sys.argv[4], p, t * 1e3, sys.argv[3], q, ts * 1e3, sys.argv[4],
                 (ts / t - 1) * 100))
EOF
  if [ -n "$bar" ]; then
    if python3 -c "import sys; sys.exit(0 if $speedup >= $bar else 1)"; then
      say "  bar >= ${bar}x: met"
    else
      say "  bar >= ${bar}x: NOT met"
    fi
  fi
}

# The warm stages reuse the serial run's variants; without them (another call's machine), one
# serial run compiles them first (its time is not compared with anything).
warm_cache() {
  [ -d "$caches/serial" ] && [ -n "$(ls -A "$caches/serial" 2>/dev/null)" ] && return 0
  say "  (filling the variant cache first)"
  tune_run fill-cache "$caches/serial" $RT tune $CFG --db "$out/fill-cache.db" --quiet
}

for s in $stages; do
  case $s in
  build)
    OUT=$out bash ci/gpu-run.sh build
    [ -x "$RT" ] || { say "build failed"; exit 1; }
    ;;
  check)
    (cd build-gpu && ctest --timeout 600 --output-on-failure -R \
      'cuda\.(tune_gpu|nvml_energy|nvrtc_cache|nvrtc_ahead|tiled_ahead)|comm\.alone|runner\.|cli\.(parallel_run|parallel_phases|parallel_overlap|pareto|tuned)|store\.tuning|core\.pareto' \
      2>&1) >"$out/check.log"
    say "check: $(grep -E 'tests passed|tests failed' "$out/check.log")"
    grep -E '\(Failed\)|\*\*\*|tune gpu: ok' "$out/check.log" | tee -a "$summary"
    ;;
  tune)
    say "tune (cold variant cache), $gpus GPU(s): $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
    # An untimed warm-up first (3 points, a scratch store and variant cache): on a fresh machine the
    # first process to compile pays what no later one does (NVRTC compiles 5.75 s of the serial
    # run's set-up there against 0.3-0.7 s on a warm machine, 2 x H200, e5a616a), so without it the
    # serial run, which goes first, is the slow side and every speedup is inflated. Each timed run
    # still starts from an empty variant cache and an empty NVRTC/driver compute cache (tune_run).
    rm -rf "$caches/warmup" "$out/warmup.db"*
    CUDA_CACHE_PATH=$caches/warmup/driver-cache ROOFTUNE_CACHE_DIR=$caches/warmup timeout 60 $RT tune $CFG --db "$out/warmup.db" --max-points 3 \
      --quiet >"$out/warmup.log" 2>&1 || say "warm-up: exit $? (the runs below go on)"
    rm -f "$out/warmup.db"*
    rm -rf "$caches/serial" && tune_run serial "$caches/serial" $RT tune $CFG --db "$out/serial.db" --quiet
    for g in 2 4; do
      [ "$gpus" -ge "$g" ] || { say "gpus$g: skipped, $gpus GPU(s) here"; continue; }
      rm -rf "$caches/gpus$g" && tune_run "gpus$g" "$caches/gpus$g" $RT tune $CFG \
        --db "$out/gpus$g.db" --parallel gpus --workers "$g" --quiet
      compare "gpus$g" serial "$([ $g = 2 ] && echo 1.7 || echo 3.4)"
    done
    ;;
  rounds)
    # The tune stage's runs again, ROOFTUNE_TUNE_ROUNDS times (default 5), every run cold (its own
    # empty variant and compute caches), the order rotated each round (serial gpus2 gpus4, then
    # gpus2 gpus4 serial, ...) so no side always runs first on a machine that warms up; then the
    # median wall time of each and the speedup of the medians, beside each round's own ratios. One
    # run each (the tune stage) is one sample; a headline speedup wants the median of several.
    n_rounds=${ROOFTUNE_TUNE_ROUNDS:-5}
    names="serial"
    for g in 2 4; do [ "$gpus" -ge "$g" ] && names="$names gpus$g"; done
    say "rounds: $n_rounds round(s) of: $names (cold caches, the order rotated each round)"
    # ROOFTUNE_ROUNDS_DEADLINE_S: no round starts unless the last one's length still fits before
    # that many seconds since the stage began (a device call has a limit); the medians are then
    # of the rounds that ran.
    rounds_t0=$(date +%s) done_rounds=0 round_s=0
    for r in $(seq 1 "$n_rounds"); do
      if [ -n "${ROOFTUNE_ROUNDS_DEADLINE_S:-}" ] &&
        [ $(($(date +%s) - rounds_t0 + round_s)) -gt "$ROOFTUNE_ROUNDS_DEADLINE_S" ]; then
        say "rounds: round $r not started (ROOFTUNE_ROUNDS_DEADLINE_S=$ROOFTUNE_ROUNDS_DEADLINE_S)"
        break
      fi
      round_t0=$(date +%s)
      set -- $names
      for _ in $(seq 2 "$r"); do first=$1; shift; set -- "$@" "$first"; done
      for name in "$@"; do
        rm -rf "$caches/$name-r$r"
        case $name in
        serial) tune_run "serial-r$r" "$caches/$name-r$r" $RT tune $CFG --db "$out/serial-r$r.db" --quiet ;;
        gpus*) tune_run "$name-r$r" "$caches/$name-r$r" $RT tune $CFG --db "$out/$name-r$r.db" \
          --parallel gpus --workers "${name#gpus}" --quiet ;;
        esac
        rm -rf "$caches/$name-r$r"
      done
      for name in $names; do
        [ "$name" = serial ] || compare "$name-r$r" "serial-r$r" "$([ "$name" = gpus2 ] && echo 1.7 || echo 3.4)"
      done
      done_rounds=$r round_s=$(($(date +%s) - round_t0))
    done
    [ "$done_rounds" -gt 0 ] || { say "rounds: none ran"; continue; }
    python3 - "$out" "$done_rounds" $names <<'EOF' | tee -a "$summary"
import statistics, sys
out, n, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
walls = {m: [float(open(f"{out}/{m}-r{r}.time").read()) for r in range(1, n + 1)] for m in names}
med = {m: statistics.median(w) for m, w in walls.items()}
for m in names:
    print("  %s: wall times %s s, median %.2f s of %d round(s)" % (m, " ".join("%.2f" % x for x in walls[m]), med[m], n))
for m in names[1:]:
    per = [walls["serial"][r] / walls[m][r] for r in range(n)]
    bar = 1.7 if m == "gpus2" else 3.4
    s = med["serial"] / med[m]
    print("  %s: speedup of the medians %.2fx (per round %s); bar >= %.1fx: %s"
          % (m, s, " ".join("%.2f" % x for x in per), bar, "met" if s >= bar else "NOT met"))
EOF
    ;;
  ranks | ranks-noahead)
    # ranks-noahead: the same runs with measure.compile_ahead 0 (the ranks' points were ~35% slower
    # at b43bf99 than at 6187187 with no code on their path found to cost that: this tells the
    # pool apart from the host). Each run's line is preceded by the host's load and busiest
    # processes, so a process left spinning by an earlier stage shows.
    sfx="" set_args=()
    [ "$s" = ranks-noahead ] && sfx="-noahead" set_args=(--set measure.compile_ahead=0)
    # Whether this host's MPI hands a measured point (one 69 KiB message) to rank 0 while its
    # sender measures, or only when the sender is back in MPI (what the wire's 2 KiB frames avoid:
    # docs/guides/tuning.md, start-up and the critical path)
    [ -z "$sfx" ] && [ -x build-gpu/tests/runner/test_wire ] &&
      say "  $(mpirun -np 2 build-gpu/tests/runner/test_wire rendezvous 2>&1 | grep '^MPI:' || echo 'MPI: rendezvous report failed')"
    for g in 2 4; do
      [ "$gpus" -ge "$g" ] || { say "ranks$g$sfx: skipped, $gpus GPU(s) here"; continue; }
      say "  host before ranks$g$sfx: load $(cut -d' ' -f1-3 /proc/loadavg); busiest: $(ps -eo pcpu=,comm= --sort=-pcpu | head -3 | tr -s ' ' | paste -sd';')"
      # --bind-to none: Open MPI binds each rank to one core by default, which left the host's
      # share of the tuning (plans, compiles) one core per rank: 1.07x on 2 GPUs of the 4 x H200
      # host, where worker processes ran 1.91x
      rm -rf "$caches/ranks$g$sfx" && tune_run "ranks$g$sfx" "$caches/ranks$g$sfx" mpirun -np "$g" --bind-to none \
        -x OMP_NUM_THREADS=$(($(nproc) / g)) $RT tune $CFG --db "$out/ranks$g$sfx.db" --parallel ranks \
        "${set_args[@]}" --quiet
      compare "ranks$g$sfx" serial "$([ $g = 2 ] && echo 1.7 || echo 3.4)"
    done
    ;;
  ranks-own-gpu)
    # The same 4 ranks, each seeing its own GPU alone (CUDA_VISIBLE_DEVICES set per rank from its
    # local rank, as the worker processes get it): their CUDA start is one device's, and the
    # phases' backend lines compare with the ranks4 run's, which sees every GPU.
    g=$((gpus < 4 ? gpus : 4))
    [ "$g" -ge 2 ] || { say "ranks-own-gpu: skipped, $gpus GPU(s) here"; continue; }
    rm -rf "$caches/ranks$g-own" && tune_run "ranks$g-own-gpu" "$caches/ranks$g-own" mpirun -np "$g" \
      --bind-to none -x OMP_NUM_THREADS=$(($(nproc) / g)) bash -c \
      'CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK exec "$@"' rank $RT tune $CFG \
      --db "$out/ranks$g-own-gpu.db" --parallel ranks --quiet
    compare "ranks$g-own-gpu" serial "$([ $g = 2 ] && echo 1.7 || echo 3.4)"
    ;;
  omp)
    # The 4 workers with every core each for their host phases (plans, inputs, references,
    # verification) and OpenMP threads that sleep when idle, against the default share (cores /
    # workers): whether a worker's host phase, which often runs while the others wait on their
    # GPUs, gains more from the idle cores than it loses when all four compete.
    g=$((gpus < 4 ? gpus : 4))
    [ "$g" -ge 2 ] || { say "omp: skipped, $gpus GPU(s) here"; continue; }
    rm -rf "$caches/gpus$g-omp" && OMP_NUM_THREADS=$(nproc) OMP_WAIT_POLICY=passive \
      tune_run "gpus$g-omp" "$caches/gpus$g-omp" $RT tune $CFG --db "$out/gpus$g-omp.db" \
      --parallel gpus --workers "$g" --quiet
    compare "gpus$g-omp" serial "$([ $g = 2 ] && echo 1.7 || echo 3.4)"
    ;;
  noahead)
    # The tune stage's runs without compiling ahead (measure.compile_ahead 0: every point compiles
    # its variant on its own path, as before the pool was fed), cold caches: what the pool cuts
    # from each run (the tune stage's serial and gpusN against these) and the ratio without it.
    say "no compile ahead (cold variant cache): measure.compile_ahead 0"
    rm -rf "$caches/serial-noahead" && tune_run serial-noahead "$caches/serial-noahead" $RT tune $CFG \
      --db "$out/serial-noahead.db" --set measure.compile_ahead=0 --quiet
    [ -f "$out/serial.time" ] && say "  serial with compile ahead against without: $(python3 -c \
      "print('%.2f s against %.2f s' % ($(cat "$out/serial.time"), $(cat "$out/serial-noahead.time")))")"
    for g in 2 4; do
      [ "$gpus" -ge "$g" ] || continue
      rm -rf "$caches/gpus$g-noahead" && tune_run "gpus$g-noahead" "$caches/gpus$g-noahead" $RT tune \
        $CFG --db "$out/gpus$g-noahead.db" --parallel gpus --workers "$g" \
        --set measure.compile_ahead=0 --quiet
      compare "gpus$g-noahead" serial-noahead
    done
    ;;
  warm)
    say "warm variant cache (the serial run's compiles reused)"
    warm_cache
    tune_run serial-warm "$caches/serial" $RT tune $CFG --db "$out/serial-warm.db" --quiet
    for g in 2 4; do
      [ "$gpus" -ge "$g" ] || continue
      tune_run "gpus$g-warm" "$caches/serial" $RT tune $CFG --db "$out/gpus$g-warm.db" \
        --parallel gpus --workers "$g" --quiet
      compare "gpus$g-warm" serial-warm
    done
    ;;
  abort)
    say "early abort (warm cache): measure.abort_factor 1.5 after 2 repetitions"
    warm_cache
    tune_run noabort "$caches/serial" $RT tune $CFG --db "$out/noabort.db" --quiet
    tune_run abort "$caches/serial" $RT tune $CFG --db "$out/abort.db" --quiet \
      --set measure.abort_factor=1.5 --set measure.abort_reps=2
    compare abort noabort
    say "  aborted: $(grep -o '[0-9]* aborted early ([0-9]* repetition(s)' "$out/abort.log" || echo none)"
    ;;
  energy)
    say "energy (warm cache): measure.energy"
    warm_cache
    # At least 0.3 s of repetitions per point: the energy counter advances every few tens of
    # milliseconds, and a shorter loop would read as "did not advance". max_reps is raised with it:
    # the config's 50 end a 1.5 ms point's loop at 75 ms (36 of 64 points read nothing on 2 x H200).
    tune_run energy "$caches/serial" $RT tune $CFG --db "$out/energy.db" --quiet \
      --set measure.energy=true --set measure.min_time_s=0.3 --set measure.max_reps=5000
    $RT export --db "$out/energy.db" --format csv | python3 -c '
import csv, json, sys
rows = [r for r in csv.DictReader(sys.stdin) if r["status"] == "ok"]
metrics = [json.loads(r["metrics"] or "{}") for r in rows]
have = [(r, m) for r, m in zip(rows, metrics) if isinstance(m.get("energy_j"), (int, float))]
print("  %d ok point(s), %d with energy_j" % (len(rows), len(have)))
for r, m in have[:4]:
    print("   ", r["matrix"], r["params"], "energy_j", m["energy_j"], "power_w", m.get("power_w"))
why = [m["energy_j"]["unavailable"] for m in metrics if isinstance(m.get("energy_j"), dict)]
if why:
    print("  energy_j unavailable on %d point(s): %s" % (len(why), why[0]))
' | tee -a "$summary"
    $RT pareto --db "$out/energy.db" --objectives time_median_s,energy_j --plot "$out/pareto" \
      >"$out/pareto.log" 2>&1
    say "  pareto: exit $?; $(head -20 "$out/pareto.log")"
    ;;
  *) say "unknown stage $s" ;;
  esac
done
