# Shared helpers of the regression and figure tests: each test is a bash script run by ctest with
#   $1 = the rooftune binary, $2 = this folder, $3 = a scratch folder of its own,
#   $4 = the source tree (for the committed stores, figures and ci/ scripts).
set -euo pipefail
RT=$1
HERE=$2
WORK=$3
SRC=${4:-$(cd "$HERE/../.." && pwd)}
rm -rf "$WORK" && mkdir -p "$WORK"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# The committed machine files only: a host file installed by `rooftune probe --install` (the
# quick start does that, git-ignored as local-*.yaml) must not change what the tests see.
mkdir -p "$WORK/machines"
for f in "$SRC"/roofline/machines/*.yaml; do
  case $(basename "$f") in local-*) ;; *) cp "$f" "$WORK/machines/" ;; esac
done
export ROOFTUNE_NO_CUDA=1 ROOFTUNE_MACHINE_DIR="$WORK/machines"
fail() { echo "FAIL: $*" >&2; exit 1; }
# sql DB QUERY: one value per line
sql() { sqlite3 -batch -noheader "$1" "$2"; }
# make_db PATH: a real store of the tiny experiment (6 points x 15 samples), checkpointed so that a
# plain `cp` copies all of it.
make_db() {
  "$RT" run "$HERE/tiny.yaml" --db "$1" --quiet >"$1.log" 2>&1 || {
    cat "$1.log" >&2; fail "rooftune run failed"; }
  sql "$1" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
}
# calm_point DB ID: replaces the samples of one point by +-2% of deterministic jitter around its
# measured median. A loaded CI machine can spread one point's real samples by more than 30%, and
# then UNSURE is the right verdict for a 30% change; the tests that need a clear change make the
# baseline point a stable one first.
calm_point() {
  sql "$1" "UPDATE samples SET seconds = (SELECT time_median_s FROM points WHERE id = $2)
                                         * (1 + ((rep * 7919) % 41 - 20) / 1000.0)
            WHERE point_id = $2"
}
# copy_db FROM TO: a copy to modify with sqlite3.
copy_db() { rm -f "$2" "$2-wal" "$2-shm"; cp "$1" "$2"; }
# expect_exit WANT CMD...: runs CMD, keeps its output in $OUT, fails unless it exits with WANT.
expect_exit() {
  local want=$1; shift
  set +e
  OUT=$("$@" 2>&1)
  local rc=$?
  set -e
  [ "$rc" = "$want" ] || fail "'$*' exited $rc, want $want; output:
$OUT"
}
