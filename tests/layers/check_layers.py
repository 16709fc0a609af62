#!/usr/bin/env python3
"""Checks rooftune's layering from the code itself (docs/architecture.md).

1. Includes: every #include "x.h" of a source under the layered folders is resolved to the file it
   names; the including folder may use only its own layer's allowed folders (the table below).
   A kernel family may use kernels/shared/ and the layers below, never another family.
2. Loops between modules: a module is a .c file with its header (same stem). Module A uses module B
   when A's .c or .h includes B's header, or (with --objects) when A's object file references a
   symbol that B's object defines. Any cycle in that graph fails, with the cycle printed.
Usage: check_layers.py SRC_DIR [--objects BUILD_DIR]
"""
import collections
import os
import re
import subprocess
import sys

# Each folder's rank; a folder may include only folders of a lower rank (or its own folder), and
# the ground layer's folders only those named in GROUND_USES.
RANKS = [
    ("harness/core", 0), ("harness/inputs", 1), ("harness/comm", 1), ("harness/search", 1),
    ("harness/config", 2), ("harness/space", 3), ("harness/replay", 5),
    ("store", 10), ("report", 11), ("roofline", 12),
    ("backends", 13),
    ("kernels/shared", 14),
    ("kernels/FAMILY", 15),
    ("kernels", 16),  # the family list and the plugin entry (kernels/, kernels/cuda/)
    ("app/backend", 17), ("app/runner", 18), ("app/cli", 19),
]
GROUND_USES = {
    "harness/core": set(),
    "harness/inputs": {"harness/core"},
    "harness/comm": {"harness/core"},
    # The strategy table and its strategies work on an abstract grid: core only, so config can
    # check search.strategy against the table; space drives them over a live space (rt_search).
    "harness/search": {"harness/core"},
    "harness/config": {"harness/core", "harness/inputs", "harness/search"},
    "harness/space": {"harness/core", "harness/inputs", "harness/config", "harness/search"},
    "harness/replay": {"harness/core", "harness/inputs", "harness/config", "harness/space",
                       "harness/search"},
}
LAYERED = ("harness", "store", "report", "roofline", "backends", "kernels", "app")


def unit_of(rel):
    """(unit name, rank) of a source file's folder. A family is one unit with its subfolders."""
    d = os.path.dirname(rel)
    parts = d.split("/")
    if parts[0] == "kernels":
        if len(parts) == 1 or parts[1] == "cuda":
            return "kernels", 16
        if parts[1] == "shared":
            return "kernels/shared", 14
        return "kernels/" + parts[1], 15
    if parts[0] in ("roofline", "backends", "store", "report"):
        return parts[0], dict(RANKS)[parts[0]]
    key = "/".join(parts[:2])
    if key in dict(RANKS):
        return key, dict(RANKS)[key]
    return None, None


def module_of(rel):
    """A module is a .c file with its header; x_internal.h is the private header of module x."""
    stem = os.path.splitext(rel)[0]
    return stem[: -len("_internal")] if stem.endswith("_internal") else stem


def sources(src):
    out = {}
    for top in LAYERED:
        for d, dirs, files in os.walk(os.path.join(src, top)):
            dirs[:] = [x for x in dirs if not x.startswith("build")]
            for f in files:
                if f.endswith((".c", ".h", ".cu", ".cuh")):
                    rel = os.path.relpath(os.path.join(d, f), src)
                    out.setdefault(f, []).append(rel)
    return out


def main():
    src = sys.argv[1]
    objdir = None
    if "--objects" in sys.argv:
        objdir = sys.argv[sys.argv.index("--objects") + 1]
    by_name = sources(src)
    dup = {k: v for k, v in by_name.items() if len(v) > 1 and k.endswith((".h", ".cuh"))}
    problems = []
    for name, paths in sorted(dup.items()):
        problems.append("header name %s is not unique: %s" % (name, ", ".join(paths)))
    inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    module_uses = collections.defaultdict(set)
    n_files = n_includes = 0
    for name, paths in by_name.items():
        for rel in paths:
            n_files += 1
            unit, rank = unit_of(rel)
            if unit is None:
                continue
            mod = module_of(rel)
            with open(os.path.join(src, rel), errors="replace") as fh:
                for lineno, line in enumerate(fh, 1):
                    m = inc_re.match(line)
                    if not m:
                        continue
                    target = os.path.basename(m.group(1))
                    if target not in by_name:
                        continue  # generated or system header
                    n_includes += 1
                    trel = by_name[target][0]
                    tunit, trank = unit_of(trel)
                    tmod = module_of(trel)
                    if tmod != mod:
                        module_uses[mod].add(tmod)
                    if tunit == unit or tunit is None:
                        continue
                    ok = trank < rank
                    if unit in GROUND_USES:
                        ok = tunit in GROUND_USES[unit]
                    if unit.startswith("kernels/") and tunit.startswith("kernels/") and \
                            rank == 15 and trank == 15:
                        ok = False  # one family never uses another
                    if not ok:
                        problems.append("%s:%d: %s (%s) includes %s from %s, a layer it may not use"
                                        % (rel, lineno, unit, "rank %d" % rank, target, tunit))
    if objdir:
        add_symbol_uses(src, objdir, module_uses)
    cycle = find_cycle(module_uses)
    if cycle:
        problems.append("modules form a loop: " + " -> ".join(cycle))
    for p in problems:
        print(p)
    print("layers: %d files, %d includes, %d modules checked, %d problems"
          % (n_files, n_includes, len(module_uses), len(problems)))
    return 1 if problems else 0


def add_symbol_uses(src, objdir, module_uses):
    """Adds A -> B when A's object references a global symbol that B's object defines."""
    defined, undefined = {}, collections.defaultdict(set)
    for d, _, files in os.walk(objdir):
        for f in files:
            if not f.endswith(".o"):
                continue
            path = os.path.join(d, f)
            # CMake names objects <source path relative to the source dir>.o under the target dir.
            m = re.search(r"CMakeFiles/[^/]+\.dir/(?:__/)*(.+)\.(c|cu)\.o$", path)
            if not m:
                continue
            rel = m.group(1)
            if not rel.startswith(LAYERED):
                continue
            mod = rel
            out = subprocess.run(["nm", "-g", path], capture_output=True, text=True).stdout
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 2 and parts[0] == "U":
                    undefined[mod].add(parts[1])
                elif len(parts) == 3 and parts[1] in "TDBR":
                    defined.setdefault(parts[2], mod)
    for mod, syms in undefined.items():
        for s in syms:
            other = defined.get(s)
            if other and other != mod:
                module_uses[mod].add(other)


def find_cycle(graph):
    WHITE, GREY, BLACK = 0, 1, 2
    color = collections.defaultdict(int)
    stack = []

    def visit(n):
        color[n] = GREY
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if color[m] == GREY:
                return stack[stack.index(m):] + [m]
            if color[m] == WHITE:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        color[n] = BLACK
        return None

    sys.setrecursionlimit(10000)
    for n in sorted(graph):
        if color[n] == WHITE:
            c = visit(n)
            if c:
                return c
    return None


if __name__ == "__main__":
    sys.exit(main())
