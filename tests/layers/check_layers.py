#!/usr/bin/env python3
"""Checks rooftune's layering from the code itself (docs/architecture.md).

1. Includes: every #include "x.h" of a source under the layered folders is resolved to the file it
   names; the including folder may use only its own layer's allowed folders (the table below).
   A kernel family may use kernels/shared/ and the layers below, and of another family's folder
   only the root headers (its problem) of a family it is declared to build on (RT_BUILDS_ON in
   kernels/rt_family_list.h), never that family's cpu/ or cuda/ folders.
2. Loops between modules: a module is a .c file with its header (same stem). Module A uses module B
   when A's .c or .h includes B's header, or (with --objects) when A's object file references a
   symbol that B's object defines. Any cycle in that graph fails, with the cycle printed.
3. Floors: the layers (ground, store, roofline, backends, report, kernels, app) and the uses
   between them (includes, and symbols with --objects) draw the house. A layer that uses no other
   stands on floor 0; any other stands one floor above the highest layer it uses. The house may
   have at most MAX_FLOORS floors: a use that stacks one layer on another where both could stand
   side by side (the roofline drawing figures from the store, say) fails here even when the ranks
   allow it.
4. Family shape: every folder kernels/<f>/ (but shared/ and cuda/) is a family named once in the
   family list and the other way round; it holds only cpu/ and cuda/ (with cuda/src/) below its
   root; every file's name starts with "<f>_"; the registration is at the root (a root .c defines
   rt_<f>_register and, for RT_FAMILY_CUDA, rt_<f>_cuda_catalog) and the CUDA descriptions in
   cuda/ (rt_<f>_cuda_describe); a CPU kernel (a descriptor with .backend = "cpu") lives in cpu/,
   CUDA code (.cu, or a CUDA header) in cuda/; a family builds only on families listed before it.
Usage: check_layers.py SRC_DIR [--objects BUILD_DIR] [--max-floors N]
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
    ("store", 10), ("roofline", 11),
    ("backends", 12),
    ("report", 13),
    ("kernels/shared", 14),
    ("kernels/FAMILY", 15),
    ("kernels", 16),  # the family list and the plugin entry (kernels/, kernels/cuda/)
    ("app/backend", 17), ("app/worker", 17), ("app/runner", 18), ("app/cli", 19),
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
# The layers of the house picture, in the order docs/architecture.md draws them.
LAYERS = ("ground", "store", "roofline", "backends", "report", "kernels", "app")
MAX_FLOORS = 4
FAMILY_LIST = "kernels/rt_family_list.h"
CUDA_HEADERS = re.compile(r'^\s*#\s*include\s+[<"](cuda\.h|cuda_runtime[a-z_]*\.h|cusparse\.h|'
                          r'cublas[A-Za-z_]*\.h|cupti[a-z_]*\.h|nvrtc\.h|rt_cuda_ctx\.h)[>"]')
CPU_KERNEL = re.compile(r'\.backend\s*=\s*"cpu"')


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


def layer_of(unit):
    """The floor plan's layer of a unit: the ground's folders are one layer, as are kernels/ and app/."""
    if unit is None:
        return None
    top = unit.split("/")[0]
    return {"harness": "ground"}.get(top, top)


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


def read_family_list(src):
    """[(family, has_cuda)] in list order and {family: set of families it builds on}."""
    families, builds_on = [], collections.defaultdict(set)
    path = os.path.join(src, FAMILY_LIST)
    if not os.path.exists(path):
        return None, builds_on
    fam_re = re.compile(r"^\s*RT_FAMILY(_CUDA)?\((\w+)\)")
    on_re = re.compile(r"^\s*RT_BUILDS_ON\((\w+),\s*(\w+)\)")
    with open(path) as fh:
        for line in fh:
            m = fam_re.match(line)
            if m:
                families.append((m.group(2), m.group(1) is not None))
            m = on_re.match(line)
            if m:
                builds_on[m.group(1)].add(m.group(2))
    return families, builds_on


def family_use_ok(rel, trel, builds_on):
    """May the family file rel include the family header trel (another family's)?"""
    fam = rel.split("/")[1]
    parts = trel.split("/")
    base = parts[1]
    return base in builds_on.get(fam, ()) and len(parts) == 3  # the base's root headers only


def main():
    src = sys.argv[1]
    objdir = None
    max_floors = MAX_FLOORS
    if "--objects" in sys.argv:
        objdir = sys.argv[sys.argv.index("--objects") + 1]
    if "--max-floors" in sys.argv:
        max_floors = int(sys.argv[sys.argv.index("--max-floors") + 1])
    by_name = sources(src)
    families, builds_on = read_family_list(src)
    dup = {k: v for k, v in by_name.items() if len(v) > 1 and k.endswith((".h", ".cuh"))}
    problems = []
    for name, paths in sorted(dup.items()):
        problems.append("header name %s is not unique: %s" % (name, ", ".join(paths)))
    inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    module_uses = collections.defaultdict(set)
    layer_uses = collections.defaultdict(dict)  # layer -> {used layer: an example}
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
                    if layer_of(tunit) != layer_of(unit):
                        layer_uses[layer_of(unit)].setdefault(layer_of(tunit),
                                                              "%s:%d includes %s" % (rel, lineno, trel))
                    ok = trank < rank
                    if unit in GROUND_USES:
                        ok = tunit in GROUND_USES[unit]
                    if unit.startswith("kernels/") and tunit.startswith("kernels/") and \
                            rank == 15 and trank == 15:
                        ok = family_use_ok(rel, trel, builds_on)  # one family never uses another
                    if not ok:
                        problems.append("%s:%d: %s (%s) includes %s from %s, a layer it may not use"
                                        % (rel, lineno, unit, "rank %d" % rank, target, tunit))
    if objdir:
        add_symbol_uses(src, objdir, module_uses, layer_uses)
    cycle = find_cycle(module_uses)
    if cycle:
        problems.append("modules form a loop: " + " -> ".join(cycle))
    floors, floor_problems = count_floors(layer_uses, max_floors)
    problems += floor_problems
    problems += check_families(src, families, builds_on)
    for p in problems:
        print(p)
    print("floors: %d of at most %d (%s)" % (len(floors), max_floors,
                                              " | ".join(" ".join(f) for f in floors)))
    print("layers: %d files, %d includes, %d modules checked, %d problems"
          % (n_files, n_includes, len(module_uses), len(problems)))
    return 1 if problems else 0


def add_symbol_uses(src, objdir, module_uses, layer_uses):
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
            if not rel.startswith(LAYERED) or \
                    not os.path.exists(os.path.join(src, rel + "." + m.group(2))):
                continue  # not layered, or a stale object of a source moved or deleted since
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
                a, b = layer_of(unit_of(mod)[0]), layer_of(unit_of(other)[0])
                if a and b and a != b:
                    layer_uses[a].setdefault(b, "%s calls %s of %s" % (mod, s, other))


def count_floors(layer_uses, max_floors):
    """The floors of the house: [[layers on floor 0], [on floor 1], ...] and the problems."""
    floor, problems = {}, []

    def visit(layer, path):
        if layer in floor:
            return floor[layer]
        if layer in path:
            problems.append("layers form a loop: " + " -> ".join(path[path.index(layer):] + [layer]))
            return 0
        used = layer_uses.get(layer, {})
        floor[layer] = 1 + max((visit(u, path + [layer]) for u in used), default=-1)
        return floor[layer]

    for layer in LAYERS:
        visit(layer, [])
    floors = [[x for x in LAYERS if floor[x] == f] for f in range(max(floor.values()) + 1)]
    if len(floors) > max_floors:
        # Name the uses that stack the top floor: one use per floor down from the highest layer.
        chain, layer = [], max(floor, key=lambda x: floor[x])
        while layer_uses.get(layer) and len(chain) < len(LAYERS):
            below = max(layer_uses[layer], key=lambda x: floor[x])
            chain.append("%s on %s (%s)" % (layer, below, layer_uses[layer][below]))
            layer = below
        problems.append("the house has %d floors, more than %d: %s"
                        % (len(floors), max_floors, "; ".join(chain)))
    return floors, problems


def check_families(src, families, builds_on):
    """The family shape (rule 4 of the module comment)."""
    if families is None:
        return ["%s is missing: no family list" % FAMILY_LIST]
    problems = []
    order = {f: i for i, (f, _) in enumerate(families)}
    cuda = {f for f, has in families if has}
    kdir = os.path.join(src, "kernels")
    folders = sorted(d for d in os.listdir(kdir) if os.path.isdir(os.path.join(kdir, d))
                     and d not in ("shared", "cuda") and not d.startswith("build"))
    for f in sorted(set(order) - set(folders)):
        problems.append("%s names family %s, which has no folder kernels/%s/" % (FAMILY_LIST, f, f))
    for f, bases in sorted(builds_on.items()):
        for b in sorted(bases):
            if f not in order or b not in order or order[b] >= order[f]:
                problems.append("%s: RT_BUILDS_ON(%s, %s): %s must be a family listed before %s"
                                % (FAMILY_LIST, f, b, b, f))
    for f in folders:
        if f not in order:
            problems.append("kernels/%s/ is not a family of %s (a folder under kernels/ is one "
                            "family, named in the list)" % (f, FAMILY_LIST))
            continue
        defined = collections.defaultdict(list)  # entry point -> where it is defined
        for d, dirs, files in os.walk(os.path.join(kdir, f)):
            dirs[:] = [x for x in dirs if not x.startswith("build")]
            sub = os.path.relpath(d, os.path.join(kdir, f))
            where = "" if sub == "." else sub
            if where not in ("", "cpu", "cuda", "cuda/src"):
                problems.append("kernels/%s/%s/: a family holds only cpu/ and cuda/ (with "
                                "cuda/src/) below its root" % (f, where))
                continue
            for name in sorted(files):
                if not name.endswith((".c", ".h", ".cu", ".cuh")):
                    continue
                rel = os.path.join("kernels", f, where, name) if where else \
                    os.path.join("kernels", f, name)
                if not name.startswith(f + "_"):
                    problems.append("%s: a file of family %s is named %s_*" % (rel, f, f))
                with open(os.path.join(src, rel), errors="replace") as fh:
                    text = fh.read()
                if CPU_KERNEL.search(text) and where != "cpu":
                    problems.append("%s: a CPU kernel (.backend = \"cpu\") lives in kernels/%s/cpu/"
                                    % (rel, f))
                if (name.endswith((".cu", ".cuh")) or any(
                        CUDA_HEADERS.match(x) for x in text.splitlines())) and \
                        not where.startswith("cuda"):
                    problems.append("%s: CUDA code lives in kernels/%s/cuda/" % (rel, f))
                if name.endswith(".c"):
                    for entry in ("register", "cuda_catalog", "cuda_describe"):
                        if re.search(r"^[A-Za-z].*\brt_%s_%s\([^;]*$" % (f, entry), text, re.M):
                            defined[entry].append(where)
        wanted = [("register", "")]
        if f in cuda:
            wanted += [("cuda_catalog", ""), ("cuda_describe", "cuda")]
        for entry, where in wanted:
            if where not in defined.get(entry, []):
                problems.append("kernels/%s/: rt_%s_%s is defined in no .c of kernels/%s/%s"
                                % (f, f, entry, f, where + "/" if where else "(the root)"))
    return problems


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
