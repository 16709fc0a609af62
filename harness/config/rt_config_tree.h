/* rt_config_tree: the YAML tree of an experiment before it is typed: the file read with
 * rt_yaml, its `include:` files merged in, and --set overrides applied. rt_config builds on it;
 * keeping the tree work apart keeps the typed conversion free of file handling.
 *
 * Includes: a top-level `include:` (one path or a list of paths, relative to the including
 * file) names files whose maps are merged first, in order, before the including file's own keys
 * override them. Maps merge deeply; sequences and scalars are replaced whole. Included files may
 * include others; a cycle is an error naming the including file:line:col.
 *
 * Overrides: "dotted.path=value", the value parsed as YAML. A numeric segment indexes a sequence
 * (kernels.0.params.row_block=[64]); other segments name map keys, created when absent. The path
 * must match one of the caller's path patterns (see rt_config_path_pattern). Nodes that come
 * from an override carry the file name "--set <path>" and positions inside the value. */
#ifndef RT_CONFIG_TREE_H
#define RT_CONFIG_TREE_H

#include <stddef.h>

#include "rt_error.h"
#include "rt_yaml.h"

/* A path pattern for --set, segments separated by '.': a literal key, "#" for a sequence index,
 * "*" for any one key, "**" (last only) for any further segments, e.g. "kernels.#.params.**". */
typedef const char *rt_config_path_pattern;

typedef struct rt_config_tree {
    rt_yaml_node *root; /* the merged map, overrides applied; owned */
    /* Every tree read (files and override values): the merged tree's nodes point at the file
     * names these own, so they live as long as root. */
    rt_yaml_node **sources;
    int *source_is_file; /* 1: read from a file; 0: the value of an override */
    int n_sources;
    char *text; /* the files read, concatenated (the top file first) */
    size_t text_len;
    char hash[17]; /* rt_hash64 of text and the overrides, as 16 hex digits */
} rt_config_tree;

/* Reads path, its includes and the overrides. On failure the tree is left empty (nothing to
 * free) and err says what and where. */
int rt_config_tree_load(const char *path, const char *const *overrides, int n_overrides,
                        const rt_config_path_pattern *patterns, int n_patterns,
                        rt_config_tree *tree, rt_err *err);
void rt_config_tree_free(rt_config_tree *tree);

/* The directory relative paths in a node's value are resolved against: the directory of the
 * file the node was read from ("" for the current directory, also for override values).
 * Returns -1 when it does not fit in buf. */
int rt_config_tree_base_dir(const rt_config_tree *tree, const rt_yaml_node *node, char *buf,
                            size_t len);

#endif
