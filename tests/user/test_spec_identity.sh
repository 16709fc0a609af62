#!/usr/bin/env bash
# A kernel spec's identity end to end through the CLI. A point names its spec by identity
# (<family>@<hash of its family, arguments and reference>), never by path, so:
#   - a spec more than 200 characters deep (over 520: past the 511 a config location's file
#     name keeps), named by an absolute path as a deep CI checkout gives, runs, verifies, is
#     stored, and a second run on the store resumes every point;
#   - the same spec copied to a shallow folder compares equal to it in another store;
#   - two specs both called spec.yaml in different folders never share points: with the same
#     family and other arguments, run into one store; with other families, in one config;
#   - a config that sets the parameter `spec` to something else fails validation.
# The folders are made in a temporary folder of their own (removed at the end).
#   $1 rooftune  $2 the source tree
. "$(dirname "$0")/../rt_test_lib.sh"
rt_args RT SRC -- "$@"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rooftune-spec-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export ROOFTUNE_CACHE_DIR=$tmp/cache
# Few repetitions: the test checks what is recorded, not how fast.
Q=(--set measure.max_reps=8 --set measure.max_time_s=0.05 --set 'problem.n=[4096]')
ok_points() { sql "$1" "SELECT count(*) FROM points WHERE kernel='$2' AND status='ok' AND verified=1"; }
spec_of() { sql "$1" "SELECT DISTINCT json_extract(problem, '\$.spec') FROM points WHERE kernel='$2'"; }

# --- A spec more than 200 characters deep, run from another folder by its absolute path. ------
deep=$tmp/checkout
while [ "${#deep}" -le 520 ]; do deep=$deep/a-rather-deep-folder; done
mkdir -p "$deep" && cp "$SRC"/examples/user/vecadd/* "$deep/"
[ "${#deep}" -gt 200 ] && [ "${deep:0:1}" = / ] || fail "the folder is not deep: $deep"
cd /
"$RT" run "$deep/experiment.yaml" --db "$tmp/deep.db" "${Q[@]}" >"$tmp/deep.txt" 2>&1 ||
  fail "a deep spec: $(cat "$tmp/deep.txt")"
[ "$(ok_points "$tmp/deep.db" vecadd.cpu.loop)" = 4 ] ||
  fail "deep: 4 verified points expected: $(sql "$tmp/deep.db" "SELECT params, status, reason FROM points")"
id=$(spec_of "$tmp/deep.db" vecadd.cpu.loop)
[[ "$id" =~ ^vecadd@[0-9a-f]{16}$ ]] || fail "the problem's spec is '$id', not the spec's identity"
"$RT" run "$deep/experiment.yaml" --db "$tmp/deep.db" "${Q[@]}" >"$tmp/again.txt" 2>&1 ||
  fail "deep, again: $(cat "$tmp/again.txt")"
grep -q "4 resumed" "$tmp/again.txt" || fail "deep: not resumed: $(tail -3 "$tmp/again.txt")"
[ "$(sql "$tmp/deep.db" "SELECT count(*) FROM points")" = 4 ] || fail "deep: points doubled"

# --- The same spec in a shallow folder: the same identity, so compare matches every point. ----
mkdir -p "$tmp/shallow" && cp "$SRC"/examples/user/vecadd/* "$tmp/shallow/"
cd "$tmp/shallow"
"$RT" run experiment.yaml --db "$tmp/shallow.db" "${Q[@]}" >"$tmp/shallow.txt" 2>&1 ||
  fail "shallow: $(cat "$tmp/shallow.txt")"
[ "$(spec_of "$tmp/shallow.db" vecadd.cpu.loop)" = "$id" ] ||
  fail "a moved spec: '$(spec_of "$tmp/shallow.db" vecadd.cpu.loop)', '$id' expected"
"$RT" compare "$tmp/deep.db" "$tmp/shallow.db" --timings-informational >"$tmp/compare.txt" 2>&1 ||
  fail "compare: $(cat "$tmp/compare.txt")"
grep -q "matched 4 point" "$tmp/compare.txt" && grep -q "only in .*: 0; only in .*: 0" "$tmp/compare.txt" ||
  fail "compare did not match the moved spec's points: $(cat "$tmp/compare.txt")"

# --- Two specs called spec.yaml: the same family, other arguments, into one store. -------------
mkdir -p "$tmp/one" "$tmp/two"
cp "$SRC"/examples/user/vecadd/* "$tmp/one/" && cp "$SRC"/examples/user/vecadd/* "$tmp/two/"
sed -i 's/seed: 2}/seed: 7}/' "$tmp/two/spec.yaml"
grep -q "seed: 7}" "$tmp/two/spec.yaml" || fail "the second spec was not changed"
cd "$tmp"
"$RT" run one/experiment.yaml --db both.db "${Q[@]}" >one.txt 2>&1 || fail "one: $(cat one.txt)"
"$RT" run two/experiment.yaml --db both.db "${Q[@]}" >two.txt 2>&1 || fail "two: $(cat two.txt)"
grep -q "0 resumed" two.txt || fail "the second spec resumed the first's points: $(tail -3 two.txt)"
[ "$(ok_points both.db vecadd.cpu.loop)" = 8 ] &&
  [ "$(sql both.db "SELECT count(DISTINCT point_key) FROM points")" = 8 ] &&
  [ "$(spec_of both.db vecadd.cpu.loop | wc -l)" = 2 ] ||
  fail "two specs share points: $(sql both.db "SELECT point_key, problem, params FROM points")"

# --- Two specs called spec.yaml, other families, in one config. --------------------------------
mkdir -p "$tmp/three"
cp "$SRC"/examples/user/vecadd/* "$tmp/three/"
sed -i 's/^family: vecadd/family: vecadd3/; s/name: vecadd\./name: vecadd3./; s/kernel: vecadd\./kernel: vecadd3./' \
  "$tmp/three/spec.yaml"
cat >"$tmp/pair.yaml" <<'YAML'
experiment: {name: user-pair}
user_kernels: [one/spec.yaml, three/spec.yaml]
matrices: [{name: user, generator: banded, rows: 1, bandwidth: 1}]
problem: {n: [4096]}
kernels:
  - {name: vecadd.cpu.loop, params: {UNROLL: [1, 2]}}
  - {name: vecadd3.cpu.loop, params: {UNROLL: [1, 2]}}
YAML
"$RT" run pair.yaml --db pair.db "${Q[@]}" >pair.txt 2>&1 || fail "pair: $(cat pair.txt)"
[ "$(ok_points pair.db vecadd.cpu.loop)" = 2 ] && [ "$(ok_points pair.db vecadd3.cpu.loop)" = 2 ] ||
  fail "pair: $(sql pair.db "SELECT kernel, params, status, reason FROM points")"
[ "$(spec_of pair.db vecadd.cpu.loop)" = "$id" ] || fail "pair: the first spec's identity changed"
[[ "$(spec_of pair.db vecadd3.cpu.loop)" =~ ^vecadd3@[0-9a-f]{16}$ ]] || fail "pair: the second's identity"

# --- A config may not point a spec's family at another spec. -----------------------------------
sed 's/^problem: {n: \[4096\]}/problem: {n: [4096], spec: [vecadd@0123456789abcdef]}/' pair.yaml >other.yaml
set +e
"$RT" validate other.yaml >other.txt 2>&1
rc=$?
set -e
[ "$rc" = 2 ] && grep -q "spec" other.txt || fail "a config's own 'spec' (exit $rc): $(cat other.txt)"
echo "spec identity: a spec 200+ characters deep run, stored and resumed; a moved copy compared equal; same-named specs apart"
