#!/usr/bin/env bash
# Every bad input of a kernel spec gets a clear answer: specs and configs that are wrong fail
# `validate` (exit 2) naming file:line:col; kernels that do not compile, write out of bounds,
# crash, hang or compute the wrong thing are recorded with the reason while the run goes on and
# the store stays whole; a reference that is missing or does not match is named.
#   $1 rooftune  $2 the source tree  $3 a scratch folder  $4 mpiexec (unused)
. "$(dirname "$0")/../rt_test_lib.sh"
rt_args RT SRC WORK -- "$@"
rt_scratch "$WORK"
export ROOFTUNE_CACHE_DIR=$WORK/cache
cp -r "$SRC/tests/user/bad" "$WORK/bad"
cd "$WORK/bad"

# --- A. Kernels that go wrong, one run: each point recorded with its reason. -----------------
start=$(date +%s)
set +e
"$RT" run cpu-run.yaml --db bad.db >run.txt 2>&1
rc=$?
set -e
[ "$rc" = 1 ] || fail "run exit $rc (1 expected: points wrong and in error): $(tail -5 run.txt)"
[ $(( $(date +%s) - start )) -lt 120 ] || fail "the hanging kernel held the run up"
status() { sql bad.db "SELECT status || ' | ' || COALESCE(reason, '') FROM points WHERE kernel='$1'"; }
expect() { # kernel status fragment...
  local k=$1 st=$2 row
  row=$(status "$k"); shift 2
  case "$row" in "$st |"*) ;; *) fail "$k: '$row' (status $st expected)" ;; esac
  for f in "$@"; do
    case "$row" in *"$f"*) ;; *) fail "$k: '$row' lacks '$f'" ;; esac
  done
}
expect bad.cpu.good ok
expect bad.cpu.syntax error "syntax.c:4:30: error" "undeclared_thing"
expect bad.cpu.overrun error "out-of-bounds write by bad.cpu.overrun" "after the end of argument 'c'" "c[1000]"
expect bad.cpu.underrun error "out-of-bounds write by bad.cpu.underrun" "before the start of argument 'c'"
expect bad.cpu.wild error "killed by signal 11"
expect bad.cpu.hang error "timeout:" "measure.point_timeout_s = 1 s"
expect bad.cpu.wrong wrong "relative error"
[ "$(sql bad.db "PRAGMA integrity_check")" = ok ] || fail "the store is damaged"
"$RT" run cpu-run.yaml --db bad.db >again.txt 2>&1 || true
grep -q "7 resumed" again.txt || fail "the store did not resume: $(tail -3 again.txt)"

# The CI gate sees a kernel turn wrong: the good kernel's source replaced by a broken one.
cat >good-only.yaml <<'YAML'
experiment: {name: user-gate}
user_kernels: [cpu.yaml]
matrices: [{name: user, generator: banded, rows: 1, bandwidth: 1}]
kernels: [{name: bad.cpu.good}]
measure: {warmup: 1, min_reps: 3, max_reps: 5}
YAML
"$RT" run good-only.yaml --db base.db --quiet >/dev/null 2>&1 || fail "gate baseline"
cp good.c good.c.orig && cp wrong.c good.c
"$RT" run good-only.yaml --db new.db --quiet >/dev/null 2>&1 && fail "a wrong kernel passed the run"
cp good.c.orig good.c
set +e
"$RT" compare base.db new.db --timings-informational >compare.txt 2>&1
rc=$?
set -e
[ "$rc" = 1 ] || fail "compare exit $rc on a kernel that turned wrong: $(cat compare.txt)"

# --- B. Specs and configs that are wrong: validate says where. ------------------------------
cat >base.yaml <<'YAML'
family: v
problem: {n: {default: 100, domain: "1..1000"}}
arguments:
  - {name: c, type: float, size: n, output: true}
  - {name: a, type: float, size: n, init: {random: {seed: 1}}}
  - {name: n, type: int32, value: n}
reference: {kernel: v.cpu.k}
kernels:
  - {name: v.cpu.k, source: good.c, entry: add, params: {U: [1, 2]}}
  - {name: v.cuda.g, source: good.c, entry: add, grid: [n], block: [32]}
YAML
cat >cfg.yaml <<'YAML'
experiment: {name: user-validate}
user_kernels: [case.yaml]
matrices: [{name: user, generator: banded, rows: 1, bandwidth: 1}]
kernels: [{name: v.cpu.k}]
YAML
# case 'sed expression' 'expected fragment' ['expected location']
case_() {
  sed "$1" base.yaml >case.yaml
  set +e
  "$RT" validate cfg.yaml >case.txt 2>&1
  local rc=$?
  set -e
  [ "$rc" = 2 ] || fail "[$1] validate exit $rc: $(cat case.txt)"
  grep -qF -- "$2" case.txt || fail "[$1] no '$2' in: $(cat case.txt)"
  [ -z "${3:-}" ] || grep -qF -- "$3" case.txt || fail "[$1] no location '$3' in: $(cat case.txt)"
  grep -qF "cfg.yaml:2:" case.txt || fail "[$1] the config's user_kernels line is not named: $(cat case.txt)"
}
case_ 's/^arguments:$/arguments: [/' "YAML syntax error" "case.yaml:"
case_ 's/size: n, output/sze: n, output/' "unknown key 'sze'" "case.yaml:4:"
case_ 's/size: n, output/sze: n, output/' "did you mean 'size'"
case_ 's/type: float, size: n, output/type: flaot, size: n, output/' "did you mean 'float'" "case.yaml:4:"
case_ 's/size: n, output/size: n *, output/' "arguments[0].size" "case.yaml:4:"
case_ 's/size: n, output/size: m, output/' "'m' names nothing it may use" "case.yaml:4:"
case_ 's/kernel: v.cpu.k}/kernel: v.cpu.nope}/' "no kernel of this spec is called 'v.cpu.nope'" "case.yaml:7:"
case_ 's/kernel: v.cpu.k}/kernel: v.cuda.g}/' "is a CUDA kernel"
case_ 's/reference: {kernel: v.cpu.k}/reference: {expected: {c: nowhere.npy}}/' "cannot read" "case.yaml:7:"
case_ 's/reference: {kernel: v.cpu.k}/reference: {expected: {a: x.npy}}/' "'a' is not an output array"
case_ 's/name: v.cpu.k, source/name: w.cpu.k, source/' "must start with the family's name"
case_ 's/, grid: \[n\], block: \[32\]//' "needs 'grid' and 'block'"
case_ 's/source: good.c, entry: add, params/source: gone.c, entry: add, params/' "gone.c" "case.yaml:9:"
case_ 's/output: true/output: false/' "no array is marked 'output: true'"
case_ 's/^family: v$/family: spmm/; s/v\.c/spmm.c/g' "already a family"
case_ 's/U: \[1, 2\]/U: [1, two]/' "mixes integers and words"
case_ 's/value: n}/value: n + nope}/' "'nope' names nothing"
case_ 's/init: {random: {seed: 1}}/init: {random: {min: 1}}/' "missing 'seed'"
case_ 's/init: {random: {seed: 1}}/init: {file: a.npy, constant: 2}/' "exactly one of random, constant or file"

# The config's own key.
sed 's/user_kernels: \[case.yaml\]/user_kernels: case.yaml/' cfg.yaml >cfg2.yaml
set +e
"$RT" validate cfg2.yaml >c2.txt 2>&1; rc=$?
set -e
[ "$rc" = 2 ] && grep -q "cfg2.yaml:2:.*user_kernels: expected a list" c2.txt || fail "user_kernels not a list: $(cat c2.txt)"
sed 's/user_kernels: \[case.yaml\]/user_kernels: [missing.yaml]/' cfg.yaml >cfg3.yaml
set +e
"$RT" validate cfg3.yaml >c3.txt 2>&1; rc=$?
set -e
[ "$rc" = 2 ] && grep -q "cfg3.yaml:2:.*missing.yaml" c3.txt || fail "a missing spec: $(cat c3.txt)"
# A long path is not a mistake: the point carries the spec's identity, not its path (a spec more
# than 200 characters deep runs end to end in user.spec_identity).
long=$(printf 'd%.0s' $(seq 1 100))
mkdir -p "$long" && cp base.yaml "$long/case.yaml" && cp good.c "$long/"
sed "s#user_kernels: \[case.yaml\]#user_kernels: [$long/case.yaml]#" cfg.yaml >cfg4.yaml
"$RT" validate cfg4.yaml >c4.txt 2>&1 || fail "a long spec path: $(cat c4.txt)"

# --- C. References: missing, mismatching, or disagreeing. -----------------------------------
# Inputs and expected outputs as .npy files (written here without numpy).
python3 - <<'PY'
import struct
def npy(name, values, code="<f4", fmt="f"):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (code, len(values))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(name, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))
a = [0.5 * i for i in range(50)]
b = [3.0 - i for i in range(50)]
npy("a.npy", a); npy("b.npy", b, "<f8", "d")   # b as float64: converted to the array's float
npy("c_ok.npy", [x + y for x, y in zip(a, b)])
npy("c_bad.npy", [x + y + (1.0 if i == 7 else 0.0) for i, (x, y) in enumerate(zip(a, b))])
npy("c_short.npy", [0.0] * 49)
PY
cat >ref.yaml <<'YAML'
family: r
arguments:
  - {name: c, type: float, size: 50, output: true}
  - {name: a, type: float, size: 50, init: {file: a.npy}}
  - {name: b, type: float, size: 50, init: {file: b.npy}}
  - {name: n, type: int32, value: 50}
reference: {expected: {c: c_ok.npy}}
kernels: [{name: r.cpu.add, source: good.c, entry: add}]
YAML
cat >ref-run.yaml <<'YAML'
experiment: {name: user-ref}
user_kernels: [ref.yaml]
matrices: [{name: user, generator: banded, rows: 1, bandwidth: 1}]
kernels: [{name: r.cpu.add}]
measure: {warmup: 1, min_reps: 3, max_reps: 5}
YAML
"$RT" run ref-run.yaml --db ref-ok.db --quiet >ref-ok.txt 2>&1 || fail "expected outputs: $(cat ref-ok.txt)"
[ "$(sql ref-ok.db "SELECT status FROM points")" = ok ] || fail "the stored expected output did not verify"
sed 's/c_ok.npy/c_bad.npy/' ref.yaml >ref2.yaml && sed 's/ref.yaml/ref2.yaml/' ref-run.yaml >ref2-run.yaml
"$RT" run ref2-run.yaml --db ref-bad.db --quiet >ref-bad.txt 2>&1 && fail "a disagreeing reference passed"
[ "$(sql ref-bad.db "SELECT status FROM points")" = wrong ] || fail "a kernel disagreeing with the expected output is not wrong"
sed 's/c_ok.npy/c_short.npy/' ref.yaml >ref3.yaml && sed 's/ref.yaml/ref3.yaml/' ref-run.yaml >ref3-run.yaml
set +e
"$RT" run ref3-run.yaml --db ref-short.db >ref-short.txt 2>&1; rc=$?
set -e
[ "$rc" != 0 ] && grep -q "c_short.npy holds 49 element(s), the array needs 50" ref-short.txt &&
  grep -q "reference.expected.c" ref-short.txt || fail "a mismatching expected file: $(cat ref-short.txt)"
sed 's/host: {source: ref.c, function: add_ref}/host: {source: ref.c, function: add_nope}/' cpu.yaml >cpu-nope.yaml
sed 's/user_kernels: \[cpu.yaml\]/user_kernels: [cpu-nope.yaml]/' good-only.yaml >nope-run.yaml
set +e
"$RT" run nope-run.yaml --db nope.db >nope.txt 2>&1; rc=$?
set -e
[ "$rc" != 0 ] && grep -q "the reference (add_nope)" nope.txt && grep -q "add_nope" nope.txt ||
  fail "a missing reference function: $(cat nope.txt)"
echo "bad inputs: all recorded or refused with their reasons"
