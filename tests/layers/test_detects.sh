#!/usr/bin/env bash
# The layer check must fail on a tree that breaks each rule: a lower layer including a higher one,
# a family including another family, two modules including each other, a house of more floors
# than allowed, and each rule of the family shape; a family that declares it builds on another may
# use that family's root headers (its problem), and nothing else of it. (grep reads a
# here-string: `echo | grep -q` under pipefail fails when grep exits before echo has written.)
set -euo pipefail
py=$1; check=$2; scratch=$3
rm -rf "$scratch"; mkdir -p "$scratch"
make_tree() {
  local t=$scratch/$1; mkdir -p "$t/harness/core" "$t/store" "$t/kernels/fa" "$t/kernels/fb"
  printf '#include "rt_err.h"\n' >"$t/harness/core/rt_err.c"; : >"$t/harness/core/rt_err.h"
  printf '#include "rt_err.h"\n' >"$t/store/rt_st.c"; : >"$t/store/rt_st.h"
  : >"$t/kernels/fa/fa_a.h"; : >"$t/kernels/fb/fb_b.h"
  printf '#include "fa_a.h"\n' >"$t/kernels/fa/fa_a.c"; printf '#include "fb_b.h"\n' >"$t/kernels/fb/fb_b.c"
  # Two families, registered at their roots.
  printf 'RT_FAMILY(fa)\nRT_FAMILY(fb)\n' >"$t/kernels/rt_family_list.h"
  printf 'int rt_fa_register(void *reg, void *err)\n{ return 0; }\n' >"$t/kernels/fa/fa_register.c"
  printf 'int rt_fb_register(void *reg, void *err)\n{ return 0; }\n' >"$t/kernels/fb/fb_register.c"
  mkdir -p "$t/kernels/fb/cpu"; : >"$t/kernels/fb/cpu/fb_cpu_k.h"
  echo "$t"
}
expect() { # expect NAME PATTERN: the check fails on tree NAME and says PATTERN
  local out
  if out=$("$py" "$check" "$scratch/$1" ${3:-}); then echo "$1: the check passed"; exit 1; fi
  grep -q -- "$2" <<<"$out" || { echo "$1: missed: $out"; exit 1; }
}
# A clean tree passes.
t=$(make_tree clean)
"$py" "$check" "$t" >/dev/null || { echo "clean tree rejected"; "$py" "$check" "$t"; exit 1; }
# The ground includes the store.
t=$(make_tree up)
printf '#include "rt_st.h"\n' >>"$t/harness/core/rt_err.c"
expect up "harness/core/rt_err.c:2:.*rt_st.h"
# One family includes another.
t=$(make_tree fam)
printf '#include "fb_b.h"\n' >>"$t/kernels/fa/fa_a.c"
expect fam "kernels/fa/fa_a.c:2:.*fb_b.h"
# Two modules of one folder include each other.
t=$(make_tree loop)
printf '#include "rt_st.h"\n' >"$t/store/rt_a.h"; printf '#include "rt_a.h"\n' >"$t/store/rt_st.h"
expect loop "modules form a loop"
# Every include downward, but stacked: the roofline on the store, the report on the roofline, the
# app on the report (ground, store, roofline, report, app: five floors).
t=$(make_tree floors)
mkdir -p "$t/roofline" "$t/report" "$t/app/cli"
printf '#include "rt_st.h"\n' >"$t/roofline/rt_roof.c"; : >"$t/roofline/rt_roof.h"
printf '#include "rt_roof.h"\n' >"$t/report/rt_fig.c"; : >"$t/report/rt_fig.h"
printf '#include "rt_fig.h"\n' >"$t/app/cli/rt_main.c"
expect floors "the house has 5 floors, more than 4: app on report.*roofline on store"
# The same house passes with five floors allowed, and the clean one fails with one.
"$py" "$check" "$t" --max-floors 5 >/dev/null || { echo "five floors rejected at 5"; exit 1; }
expect clean "the house has 2 floors, more than 1" "--max-floors 1"
# A declared base: fb builds on fa and may use fa's root header, not its cpu/ folder.
t=$(make_tree base)
printf 'RT_FAMILY(fa)\nRT_FAMILY(fb)\nRT_BUILDS_ON(fb, fa)\n' >"$t/kernels/rt_family_list.h"
printf '#include "fa_a.h"\n' >>"$t/kernels/fb/fb_b.c"
"$py" "$check" "$t" >/dev/null || { echo "declared base rejected"; "$py" "$check" "$t"; exit 1; }
mkdir -p "$t/kernels/fa/cpu"; : >"$t/kernels/fa/cpu/fa_cpu_k.h"
printf '#include "fa_cpu_k.h"\n' >>"$t/kernels/fb/fb_b.c"
expect base "kernels/fb/fb_b.c:3:.*fa_cpu_k.h"
# A base listed after the family that builds on it.
t=$(make_tree later)
printf 'RT_FAMILY(fa)\nRT_FAMILY(fb)\nRT_BUILDS_ON(fa, fb)\n' >"$t/kernels/rt_family_list.h"
expect later "RT_BUILDS_ON(fa, fb): fb must be a family listed before fa"
# Family shape: a CPU kernel at the family root.
t=$(make_tree cpu_root)
printf 'static const int k = {.backend = "cpu"};\n' >"$t/kernels/fb/fb_k.c"
expect cpu_root "kernels/fb/fb_k.c: a CPU kernel"
# CUDA code outside cuda/.
t=$(make_tree cuda_cpu)
printf '#include <cusparse.h>\n' >"$t/kernels/fb/cpu/fb_cpu_k.c"
expect cuda_cpu "kernels/fb/cpu/fb_cpu_k.c: CUDA code lives in kernels/fb/cuda/"
# A folder the family list does not name, and a family without a folder.
t=$(make_tree unlisted)
mkdir -p "$t/kernels/fc"
expect unlisted "kernels/fc/ is not a family"
printf 'RT_FAMILY(fa)\nRT_FAMILY(fb)\nRT_FAMILY(fd)\n' >"$t/kernels/rt_family_list.h"
expect unlisted "names family fd, which has no folder"
# A subfolder other than cpu/ and cuda/, and a file named for another family.
t=$(make_tree shape)
mkdir -p "$t/kernels/fa/util"; : >"$t/kernels/fa/util/fa_u.h"
expect shape "kernels/fa/util/: a family holds only cpu/ and cuda/"
t=$(make_tree name)
: >"$t/kernels/fa/other.h"
expect name "kernels/fa/other.h: a file of family fa is named fa_\*"
# Registration away from the root, and a CUDA family without its catalog or descriptions.
t=$(make_tree reg)
mkdir -p "$t/kernels/fa/cpu"; mv "$t/kernels/fa/fa_register.c" "$t/kernels/fa/cpu/fa_cpu_register.c"
expect reg "rt_fa_register is defined in no .c of kernels/fa/(the root)"
t=$(make_tree cuda_reg)
printf 'RT_FAMILY(fa)\nRT_FAMILY_CUDA(fb)\n' >"$t/kernels/rt_family_list.h"
expect cuda_reg "rt_fb_cuda_catalog is defined in no .c of kernels/fb/(the root)"
expect cuda_reg "rt_fb_cuda_describe is defined in no .c of kernels/fb/cuda/"
echo "layer check: 16 violations detected, clean and declared-base trees accepted"
