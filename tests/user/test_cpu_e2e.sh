#!/usr/bin/env bash
# The CPU path of kernel specs end to end, through the real CLI from the repository root: the four
# examples' C kernels tuned, verified against their references and stored; the tuning database and
# `best`; resume, and no resume once a source changes; a search strategy with bound pruning; two
# MPI ranks; compare (the CI gate), export and figures.
#   $1 rooftune  $2 the source tree  $3 a scratch folder  $4 mpiexec
. "$(dirname "$0")/../rt_test_lib.sh"
RT=$1 SRC=$2 WORK=$3 MPIEXEC=${4:-mpirun}
rt_scratch "$WORK"
export ROOFTUNE_CACHE_DIR=$WORK/cache
cd "$SRC"
# Few repetitions: the test checks what is recorded, not how fast.
Q=(--set measure.max_reps=8 --set measure.max_time_s=0.05)

# validate knows the spec's kernels and their parameters.
"$RT" validate examples/user/vecadd/experiment.yaml >"$WORK/validate.txt" ||
  fail "validate: $(cat "$WORK/validate.txt")"
grep -q "vecadd.cpu.loop .*4 parameter combination" "$WORK/validate.txt" || fail "validate output"

# tune: run, then record the best verified point in the tuning table.
db=$WORK/vecadd.db
"$RT" tune examples/user/vecadd/experiment.yaml --db "$db" "${Q[@]}" --set 'problem.n=[65536]' \
  --quiet >"$WORK/tune.txt" 2>&1 || fail "tune: $(cat "$WORK/tune.txt")"
[ "$(sql "$db" "SELECT count(*) FROM points WHERE kernel='vecadd.cpu.loop' AND status='ok'")" = 4 ] ||
  fail "vecadd: 4 verified points expected: $(sql "$db" "SELECT kernel, params, status, reason FROM points")"
sql "$db" "SELECT problem FROM points LIMIT 1" | grep -q '"spec":"vecadd@[0-9a-f]\{16\}"' ||
  fail "the problem names the spec by its identity: $(sql "$db" "SELECT problem FROM points LIMIT 1")"
[ "$(sql "$db" "SELECT count(*) FROM points WHERE kernel='vecadd.cuda.grid'")" = 0 ] ||
  fail "a CUDA kernel was recorded on a host without a GPU"
"$RT" best --db "$db" --kernel vecadd.cpu.loop --arch cpu >"$WORK/best.txt" 2>&1 ||
  fail "best: $(cat "$WORK/best.txt")"
grep -q UNROLL "$WORK/best.txt" || fail "best names no configuration: $(cat "$WORK/best.txt")"

# The same again resumes everything; the bound and the efficiency were stored.
"$RT" run examples/user/vecadd/experiment.yaml --db "$db" "${Q[@]}" --set 'problem.n=[65536]' \
  >"$WORK/again.txt" 2>&1 || fail "second run"
grep -q "4 resumed" "$WORK/again.txt" || fail "not resumed: $(tail -3 "$WORK/again.txt")"
[ "$(sql "$db" "SELECT count(*) FROM points WHERE bound_s > 0 AND efficiency > 0")" = 4 ] ||
  fail "no roofline bound from the spec's flops and bytes"

# The other examples' C kernels, small: every point verified against its reference (a host
# function for conv2d, a C kernel for matmul and stencil3d).
"$RT" run examples/user/conv2d/experiment.yaml --db "$WORK/conv2d.db" --quiet "${Q[@]}" \
  --set 'problem.w=[96]' --set 'problem.h=[64]' --set 'problem.fw=[5]' --set 'problem.fh=[3]' \
  >"$WORK/conv2d.txt" 2>&1 || fail "conv2d: $(cat "$WORK/conv2d.txt")"
"$RT" run examples/user/matmul/experiment.yaml --db "$WORK/matmul.db" --quiet "${Q[@]}" \
  --set 'problem.n=[128]' >"$WORK/matmul.txt" 2>&1 || fail "matmul: $(cat "$WORK/matmul.txt")"
"$RT" run examples/user/stencil3d/experiment.yaml --db "$WORK/stencil3d.db" --quiet "${Q[@]}" \
  --set 'problem.nx=[40]' --set 'problem.ny=[20]' --set 'problem.nz=[10]' \
  >"$WORK/stencil3d.txt" 2>&1 || fail "stencil3d: $(cat "$WORK/stencil3d.txt")"
for ex in conv2d matmul stencil3d; do
  [ "$(sql "$WORK/$ex.db" "SELECT count(*) FROM points WHERE status='ok'")" = 4 ] ||
    fail "$ex: $(sql "$WORK/$ex.db" "SELECT kernel, params, status, reason FROM points")"
done

# A search strategy with a budget and roofline-bound pruning over the matmul's C kernel.
"$RT" run examples/user/matmul/experiment.yaml --db "$WORK/search.db" --quiet "${Q[@]}" \
  --set 'problem.n=[96]' --set 'search.strategy=random' --set 'search.budget=3' \
  >"$WORK/search.txt" 2>&1 || fail "search: $(cat "$WORK/search.txt")"
n=$(sql "$WORK/search.db" "SELECT count(*) FROM points WHERE kernel='matmul.cpu.blocked' AND status='ok'")
[ "$n" -ge 1 ] && [ "$n" -le 3 ] || fail "random search with budget 3 measured $n points"

# A source that changes is measured again: a copy of the example, edited.
cp -r examples/user/vecadd "$WORK/vecadd-copy"
(cd "$WORK" && "$RT" run vecadd-copy/experiment.yaml --db edit.db "${Q[@]}" --set 'problem.n=[4096]' \
  >first.txt 2>&1 && echo "/* edited */" >>vecadd-copy/vecadd.c &&
  "$RT" run vecadd-copy/experiment.yaml --db edit.db "${Q[@]}" --set 'problem.n=[4096]' >second.txt 2>&1) ||
  fail "edited copy: $(cat "$WORK/second.txt" 2>/dev/null)"
grep -q "0 resumed" "$WORK/second.txt" || fail "an edited source was resumed: $(tail -2 "$WORK/second.txt")"

# Two ranks: each runs the kernel on the whole problem (flops summed, time the slowest rank's).
"$MPIEXEC" --oversubscribe -np 2 "$RT" run examples/user/vecadd/experiment.yaml --db "$WORK/mpi.db" "${Q[@]}" \
  --quiet --set 'problem.n=[65536]' >"$WORK/mpi.txt" 2>&1 || fail "mpi: $(cat "$WORK/mpi.txt")"
[ "$(sql "$WORK/mpi.db" "SELECT count(*) FROM points WHERE ranks=2 AND status='ok'")" = 4 ] ||
  fail "mpi: $(sql "$WORK/mpi.db" "SELECT kernel, ranks, status, reason FROM points")"

# compare: the second store against the first, as a CI job on a shared CPU runner would (timings
# informational: statuses and deterministic metrics gate).
"$RT" run examples/user/vecadd/experiment.yaml --db "$WORK/new.db" --quiet "${Q[@]}" \
  --set 'problem.n=[65536]' >"$WORK/new.txt" 2>&1 || fail "new run"
"$RT" compare "$db" "$WORK/new.db" --timings-informational --markdown "$WORK/compare.md" \
  >"$WORK/compare.txt" 2>&1 || fail "compare: $(cat "$WORK/compare.txt")"
grep -q "vecadd.cpu.loop" "$WORK/compare.md" || fail "compare lists no user kernel"

# export and figures read user points like any others.
"$RT" export --db "$db" --format csv >"$WORK/points.csv" || fail "export"
grep -q "vecadd.cpu.loop" "$WORK/points.csv" || fail "export lists no user kernel"
"$RT" plot --db "$db" --out "$WORK/figs" >"$WORK/plot.txt" 2>&1 || fail "plot: $(cat "$WORK/plot.txt")"
ls "$WORK/figs"/*.dat >/dev/null 2>&1 || fail "plot wrote no data"
echo "kernel specs on the CPU: tuned, verified, resumed, searched, MPI, compared, exported"
