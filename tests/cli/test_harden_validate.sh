# cli.harden_validate (issue 37, item 8): validate walks the whole sweep the way run does, so what
# would fail in a run fails in validate, naming the config line: a constraint on a string
# parameter, a constraint that divides by zero at some point, constraints no point satisfies,
# and (with --inputs: the family's inputs and reference) eigen's nev beyond what the matrix or
# the Lanczos steps allow. A good config is still valid.
. "$2/lib.sh"
E="$HERE/../../configs/ci/eigen-small.yaml"
# no constraint reads the matrix: each (problem, kernel) sweep is evaluated once
expect 0 "sweep: 16 point\(s\) evaluated in 4 sweep\(s\), 16 feasible" "$RT" validate "$E"
expect 0 "sweep: 32 point\(s\) evaluated in 8 sweep\(s\), 32 feasible; every family's inputs and reference built" \
  "$RT" validate "$E" --inputs
expect 2 "eigen-small.yaml:[0-9]+:[0-9]+: kernel eigen.cpu.lobpcg, problem .*'schedule' is a string parameter" \
  "$RT" validate "$E" --set 'kernels.0.constraints=["schedule == 1"]'
expect 2 "kernel eigen.cpu.lobpcg, problem .*point 0 .*division by zero" \
  "$RT" validate "$E" --set 'kernels.0.constraints=["tile / (gpu_mem_budget - gpu_mem_budget) > 0"]'
# the division by zero comes after the first kernel's points: run would have measured those
expect 2 "kernel eigen.cpu.lanczos, problem .*division by zero" \
  "$RT" validate "$E" --set 'kernels.1.constraints=["tile / (gpu_mem_budget - 45000) > 0"]'
# one kernel with nothing feasible anywhere is noted (it may not apply here); all of them: refused
expect 0 "note: kernel eigen.cpu.lobpcg: none of its 8 point\(s\) satisfies the parameter domains and constraints in any sweep: .*\(the first: constraint 'tile > 1000' is false\)" \
  "$RT" validate "$E" --set 'kernels.0.constraints=["tile > 1000"]'
expect 2 "no point of any kernel satisfies the parameter domains and constraints, so the run would measure nothing; kernel eigen.cpu.lobpcg" \
  "$RT" validate "$E" --set 'kernels.0.constraints=["tile > 1000"]' --set 'kernels.1.constraints=["tile > 1000"]'
# a constraint that keeps a kernel to some problems empties some sweeps: counted, not refused
expect 0 "\(2 sweep\(s\) with no feasible point: their points are recorded infeasible\)" \
  "$RT" validate "$E" --set 'problem.nev=[4, 5]' --set 'kernels.0.constraints=["nev < 5"]'
expect 2 "the family's reference: .*nev = 4 exceeds the 1 Lanczos steps" \
  "$RT" validate "$E" --set 'problem.iters=[1]' --inputs
expect 2 "matrix st125-6x5x4, .*the matrix has 120 rows, fewer than the 300-column subspace" \
  "$RT" validate "$E" --set 'problem.nev=[100]' --set 'problem.block=[100]' --inputs
# a max_reps too small for the stopping criterion is warned about (every point would be noisy):
# the median's 95% interval needs 6 samples, the noise rule 5
expect 0 "warning: measure.max_reps = 5: the stopping criterion 'confidence' .* needs at least 6 samples" \
  "$RT" validate "$E" --set measure.min_reps=1 --set measure.max_reps=5 --set measure.target_rel_ci=0.05
expect 0 "valid\." "$RT" validate "$E" --set measure.min_reps=1 --set measure.max_reps=6 --set measure.target_rel_ci=0.05
! grep -q "warning: measure.max_reps" "$WORK/out.txt" || fail "warned with enough samples: $(cat "$WORK/out.txt")"
expect 0 "valid\." "$RT" validate "$E" --set measure.min_reps=1 --set measure.max_reps=5 --set measure.stop=noise --set measure.max_noise=0.02
! grep -q "warning: measure.max_reps" "$WORK/out.txt" || fail "warned for the noise rule at 5 samples: $(cat "$WORK/out.txt")"
# and run refuses the same before measuring or storing anything
expect 2 "division by zero" "$RT" run "$E" --db "$WORK/e.db" \
  --set 'kernels.1.constraints=["tile / (gpu_mem_budget - 45000) > 0"]'
[ ! -e "$WORK/e.db" ] || fail "a refused run made a store"
echo "cli.harden_validate: ok"
