#!/usr/bin/env bash
# The layer check must fail on a tree that breaks each rule: a lower layer including a higher one,
# a family including another family, and two modules including each other. (grep reads a
# here-string: `echo | grep -q` under pipefail fails when grep exits before echo has written.)
set -euo pipefail
py=$1; check=$2; scratch=$3
rm -rf "$scratch"; mkdir -p "$scratch"
make_tree() {
  local t=$scratch/$1; mkdir -p "$t/harness/core" "$t/store" "$t/kernels/fa" "$t/kernels/fb"
  printf '#include "rt_err.h"\n' >"$t/harness/core/rt_err.c"; : >"$t/harness/core/rt_err.h"
  printf '#include "rt_err.h"\n' >"$t/store/rt_st.c"; : >"$t/store/rt_st.h"
  : >"$t/kernels/fa/fa.h"; : >"$t/kernels/fb/fb.h"
  printf '#include "fa.h"\n' >"$t/kernels/fa/fa.c"; printf '#include "fb.h"\n' >"$t/kernels/fb/fb.c"
  echo "$t"
}
# A clean tree passes.
t=$(make_tree clean)
"$py" "$check" "$t" >/dev/null || { echo "clean tree rejected"; "$py" "$check" "$t"; exit 1; }
# The ground includes the store.
t=$(make_tree up)
printf '#include "rt_st.h"\n' >>"$t/harness/core/rt_err.c"
out=$("$py" "$check" "$t" || true)
grep -q "harness/core/rt_err.c:2:.*rt_st.h" <<<"$out" || { echo "upward include missed: $out"; exit 1; }
# One family includes another.
t=$(make_tree fam)
printf '#include "fb.h"\n' >>"$t/kernels/fa/fa.c"
out=$("$py" "$check" "$t" || true)
grep -q "kernels/fa/fa.c:2:.*fb.h" <<<"$out" || { echo "family include missed: $out"; exit 1; }
# Two modules of one folder include each other.
t=$(make_tree loop)
printf '#include "rt_st.h"\n' >"$t/store/rt_a.h"; printf '#include "rt_a.h"\n' >"$t/store/rt_st.h"
out=$("$py" "$check" "$t" || true)
grep -q "modules form a loop" <<<"$out" || { echo "loop missed: $out"; exit 1; }
echo "layer check: 3 violations detected, clean tree accepted"
