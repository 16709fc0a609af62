# figures.readme (issue 13, item 8): every number that results/figures/README.md states in its
# hand-written sections agrees with the committed stores (check_figures_readme.py), and the check
# catches a wrong one: the page with statements this issue found wrong put back must fail.
#   $1 = repository root, $2 = scratch folder
set -uo pipefail
ROOT=$1
WORK=$2
rm -rf "$WORK" && mkdir -p "$WORK"
CHECK="$ROOT/tests/regress/check_figures_readme.py"
python3 "$CHECK" "$ROOT" || exit 1
# Each substitution brings back one statement that disagreed with its store.
n=0
for edit in 's/(-31%)/(-32%)/' 's/3\.1-3\.2 (1024)/3.2 (1024)/' 's/On three points whose/On four points whose/' \
  's/| 4 x H200, 2 x 2 | 128 | direct | 0 | 6\.43 |/| 4 x H200, 2 x 2 | 128 | direct | 0 | 6.34 |/'; do
  n=$((n + 1))
  sed "$edit" "$ROOT/results/figures/README.md" >"$WORK/page$n.md"
  cmp -s "$ROOT/results/figures/README.md" "$WORK/page$n.md" && { echo "FAIL: '$edit' changed nothing" >&2; exit 1; }
  if python3 "$CHECK" "$ROOT" "$WORK/page$n.md" >"$WORK/check$n.log" 2>&1; then
    echo "FAIL: the check passed a page changed by '$edit'" >&2
    exit 1
  fi
  grep -q "^FAIL" "$WORK/check$n.log" || { cat "$WORK/check$n.log" >&2; exit 1; }
done
echo "figures.readme: ok ($n wrong statements caught)"
