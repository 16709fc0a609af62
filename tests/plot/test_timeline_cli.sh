# plot.timeline_cli: the GPU timeline as a user meets it on a machine without a GPU.
# `rooftune run --timeline` is refused (exit 2) naming the option and why, before any store is
# made: without the CUDA backend, with GPU counters, with points spread over ranks, with --dry-run.
# `rooftune figures --timeline` draws a CSV (figure files and the overlap summary with the numbers
# the intervals give) and refuses garbage naming file and line.
#   $1 = rooftune, $2 = repository root, $3 = scratch folder
. "$(dirname "$0")/../rt_test_lib.sh"
rt_args RT ROOT WORK -- "$@"
rt_scratch "$WORK"
set +e
cfg="$ROOT/tests/cli/tiny.yaml"

# expect_refusal WHAT PATTERN ARGS...: the command exits 2 and says PATTERN on stderr.
expect_refusal() {
  local what=$1 pattern=$2
  shift 2
  "$RT" "$@" >"$WORK/out.log" 2>"$WORK/err.log"
  local rc=$?
  [ "$rc" = 2 ] || fail "$what: exit $rc, not 2: $(cat "$WORK/err.log")"
  grep -q -- "$pattern" "$WORK/err.log" || fail "$what: stderr lacks '$pattern': $(cat "$WORK/err.log")"
}

expect_refusal "no CUDA backend" "--timeline $WORK/t.csv: .*CUDA backend (CUPTI), which is not loaded" \
  run "$cfg" --db "$WORK/run.db" --timeline "$WORK/t.csv"
expect_refusal "GPU counters" "reads GPU counters (dram_bytes_read)" \
  run "$cfg" --db "$WORK/run.db" --timeline "$WORK/t.csv" --set 'counters=[dram_bytes_read]'
expect_refusal "parallel" "spreads points over ranks" \
  run "$cfg" --db "$WORK/run.db" --timeline "$WORK/t.csv" --parallel gpus
expect_refusal "dry run" "--dry-run measures nothing to trace" \
  run "$cfg" --db "$WORK/run.db" --timeline "$WORK/t.csv" --dry-run
[ ! -e "$WORK/run.db" ] && [ ! -e "$WORK/t.csv" ] || fail "a refused run left a store or a CSV"
# PAPI and LIKWID counters are not CUPTI's: only the missing GPU refuses that run.
expect_refusal "host counters" "CUDA backend (CUPTI)" \
  run "$cfg" --db "$WORK/run.db" --timeline "$WORK/t.csv" --set 'counters=[papi:perf::TASK-CLOCK]'

# A timeline of one point on two GPUs: GPU 0 computes [1, 5) ms while copies fill [0, 3) and
# [6, 7) (2 of 4 ms hidden: share 0.500); GPU 1 computes [2, 4) beside a peer copy [3, 6).
cat >"$WORK/two.csv" <<'EOF'
point,device,stream,kind,name,start_ns,end_ns,bytes
abc,0,7,kernel,gemm_k,1000000,5000000,0
abc,0,8,h2d,,0,2000000,1000
abc,0,9,h2d,,1500000,3000000,1000
abc,0,8,d2h,,6000000,7000000,500
abc,1,7,kernel,"gemm,k",2000000,4000000,0
abc,1,10,p2p,,3000000,6000000,4096
EOF
"$RT" figures --timeline "$WORK/two.csv" --out "$WORK/fig" >"$WORK/fig.log" 2>&1 ||
  fail "figures --timeline failed: $(cat "$WORK/fig.log")"
for f in two.dat two.gp two-summary.txt; do
  [ -s "$WORK/fig/$f" ] || fail "figures --timeline wrote no $f: $(ls "$WORK/fig")"
done
if command -v gnuplot >/dev/null; then
  [ -s "$WORK/fig/two.png" ] && [ -s "$WORK/fig/two.svg" ] || fail "gnuplot is here but no PNG/SVG"
fi
s="$WORK/fig/two-summary.txt"
grep -q "point abc, GPU 0: 7.000 ms" "$s" || fail "summary: $(cat "$s")"
grep -A9 "GPU 0:" "$s" | grep -q "kernels running while a copy is in flight: 2.000 ms" || fail "GPU 0 overlap: $(cat "$s")"
grep -A9 "GPU 0:" "$s" | grep -q "overlap share: 0.500" || fail "GPU 0 share: $(cat "$s")"
grep -A9 "GPU 1:" "$s" | grep -q "overlap share: 0.333" || fail "GPU 1 share: $(cat "$s")"
grep -q "overlap share: 0.500" "$WORK/fig.log" || fail "the summary is not printed: $(cat "$WORK/fig.log")"
# Without --out the figure goes beside the CSV.
"$RT" figures --timeline "$WORK/two.csv" >/dev/null 2>&1 && [ -s "$WORK/two-summary.txt" ] ||
  fail "figures --timeline without --out wrote nothing beside the CSV"

# Garbage: named with its file and line, exit 2; --results does not go with --timeline.
printf 'point,device,stream,kind,name,start_ns,end_ns,bytes\nabc,0,7,kernel,k,1,2,0\nabc,zero,7,h2d,,1,2,3\n' >"$WORK/bad.csv"
expect_refusal "bad device" "$WORK/bad.csv:3: column device: 'zero'" figures --timeline "$WORK/bad.csv" --out "$WORK/bad"
head -c 3000 "$RT" >"$WORK/binary.csv"
expect_refusal "binary" "$WORK/binary.csv:1: .*not a timeline CSV" figures --timeline "$WORK/binary.csv" --out "$WORK/bad"
[ ! -e "$WORK/bad" ] || fail "a refused CSV left a figure folder"
expect_refusal "missing" "cannot open $WORK/none.csv" figures --timeline "$WORK/none.csv"
# A run whose points were all resumed from its store traced nothing: the header alone.
head -1 "$WORK/two.csv" >"$WORK/empty.csv"
expect_refusal "no record" "empty.csv holds no record (.*resumed from its store" \
  figures --timeline "$WORK/empty.csv" --out "$WORK/bad"
expect_refusal "with --results" "--results does not apply" figures --timeline "$WORK/two.csv" --results "$WORK"
# The point ci/gpu-timeline.sh traces must stream its tiles (the config's comment says so): the
# model puts it in case (c), 128 tile loads per GPU against a budget of 64, a third device to
# device, on 2 GPUs of one process.
"$RT" run "$ROOT/configs/ci/gemm-gpu-timeline.yaml" --model-only --ranks 1 --out "$WORK/model" \
  >"$WORK/model.log" 2>&1 || fail "the timeline config's model: $(cat "$WORK/model.log")"
python3 - "$WORK/model/gemm-gpu-timeline-model.csv" <<'PY' || fail "the timeline config does not stream"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 1, rows
r = rows[0]
got = (r["mem_case"], r["gpus_per_process"], r["budget_tiles"], r["tiles_gpu_avg"], r["share_d2d_loads"])
assert got[:4] == ("c", "2", "64", "128") and abs(float(got[4]) - 1 / 3) < 1e-9, got
PY
echo "plot.timeline_cli: refusals, the drawn timeline and the traced config's case as expected"
