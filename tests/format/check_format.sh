# Checks every tracked C, header and CUDA source against .clang-format. results/ is left out: it
# holds data only, and a header there is an export rooftune wrote (rooftune best --export-header),
# kept as written.
# Args: the source tree, the clang-format executable (empty when not found).
set -euo pipefail
src=$1
cf=${2:-}
if [ -z "$cf" ] || [ ! -x "$cf" ]; then
  echo "clang-format not found: format check skipped"
  exit 77
fi
cd "$src"
if ! git rev-parse --git-dir >/dev/null 2>&1; then
  echo "not a git checkout: format check skipped"
  exit 77
fi
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cu' ':!results/')
if ! "$cf" --dry-run --Werror "${files[@]}" 2>"${TMPDIR:-/tmp}/rooftune-format.log"; then
  head -40 "${TMPDIR:-/tmp}/rooftune-format.log"
  echo "format: run clang-format -i on the files above (see .clang-format)"
  exit 1
fi
echo "format: ${#files[@]} files follow .clang-format"
