/* rt_yaml: YAML files (libyaml) read into a small node tree that remembers where every node came
 * from, so any later stage can report "file:line:col: <what>: ..." against the user's text.
 *
 * A node is a map, a sequence or a scalar. Maps keep their keys in file order; duplicate keys are
 * an error at load time. Anchors and aliases are rejected with a message naming the position:
 * configs are small, and an alias would give one node two locations. Positions are 1-based. Every
 * node of a tree shares the file name string owned by the tree's root allocation. */
#ifndef RT_YAML_H
#define RT_YAML_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"

typedef enum rt_yaml_kind { RT_YAML_SCALAR, RT_YAML_MAP, RT_YAML_SEQ } rt_yaml_kind;

typedef struct rt_yaml_node rt_yaml_node;

struct rt_yaml_node {
    rt_yaml_kind kind;
    const char *file;     /* name given at load time (path or label); owned by the tree */
    int line, col;        /* 1-based position of the node's first character */
    char *scalar;         /* scalars: the text (never NULL for a scalar; "" for an empty value) */
    int quoted;           /* scalars: 1 when written '...' or "..." (or a block literal) */
    int n;                /* maps: number of keys; sequences: number of items */
    char **keys;          /* maps: n keys */
    rt_yaml_node **items; /* map values (parallel to keys) or sequence items */
    /* Added beyond the original contract: where each map key was written (n entries, maps only;
     * 1-based), so "unknown key" errors point at the key rather than at its value. */
    int *key_lines;
    int *key_cols;
};

/* Parses a file. An empty file gives an empty map. Syntax errors read
 * "file:line:col: YAML syntax error: <problem> (<context>)". */
int rt_yaml_load_file(const char *path, rt_yaml_node **root, rt_err *err);
/* Parses text held in memory; name stands in for the file name in positions and messages. */
int rt_yaml_load_string(const char *text, const char *name, rt_yaml_node **root, rt_err *err);
/* Same for len bytes that need not end in NUL (a NUL inside is a syntax error). */
int rt_yaml_load_buffer(const char *text, size_t len, const char *name, rt_yaml_node **root,
                        rt_err *err);
/* Frees a tree returned by a load function (NULL is fine). Only call on roots. */
void rt_yaml_free(rt_yaml_node *root);

/* Value of key in map, or NULL when map is not a map or has no such key. */
const rt_yaml_node *rt_yaml_map_get(const rt_yaml_node *map, const char *key);
/* Index of key in map, or -1. */
int rt_yaml_map_index(const rt_yaml_node *map, const char *key);
/* Where key i of map is written. A key put into a map by another tree (an override) reports
 * the position of its value, since key_lines/key_cols carry no file name of their own. */
void rt_yaml_key_pos(const rt_yaml_node *map, int i, const char **file, int *line, int *col);

/* Typed scalar readers. On failure: "file:line:col: <what>: expected ..., got '<text>'".
 * get_int accepts decimal and 0x hex integers that fit int64 (not "1.5", not "1e3");
 * get_double accepts decimal numbers (1, -2.5, .5, 1e3) and 0x hex integers, finite only;
 * get_string accepts any scalar (quoted or not). A map or sequence is an error for all three.
 * A NULL node gives "<what>: missing". */
int rt_yaml_get_double(const rt_yaml_node *n, const char *what, double *out, rt_err *err);
int rt_yaml_get_int(const rt_yaml_node *n, const char *what, int64_t *out, rt_err *err);
int rt_yaml_get_string(const rt_yaml_node *n, const char *what, const char **out, rt_err *err);
/* true/false, yes/no, on/off (case-insensitive), 1/0. */
int rt_yaml_get_bool(const rt_yaml_node *n, const char *what, int *out, rt_err *err);

/* Unknown-key check with suggestion: fails on the first key of map not in allowed[], with
 * "file:line:col: <what>: unknown key 'x' (did you mean 'y'?)" at the key's position. Fails too
 * when map is not a map ("<what>: expected a map"). */
int rt_yaml_check_keys(const rt_yaml_node *map, const char *what, const char *const *allowed,
                       int n_allowed, rt_err *err);

/* "map", "sequence" or "scalar", for messages. */
const char *rt_yaml_kind_name(rt_yaml_kind kind);
/* What a node is, for "got ..." in messages: "a map", "a sequence", "nothing" (an empty plain
 * scalar, YAML's null) or the scalar in quotes (cut after 60 characters). */
void rt_yaml_describe(const rt_yaml_node *n, char *buf, size_t len);

/* The number parsers behind the readers, for callers that infer a scalar's type. 0 or -1. */
int rt_yaml_parse_int(const char *s, int64_t *out);
int rt_yaml_parse_real(const char *s, double *out);

/* Reads a whole file into a NUL-terminated buffer (free it); refuses files over 64 MiB.
 * Errors name the path and the system's reason. */
int rt_yaml_read_file(const char *path, char **text, size_t *len, rt_err *err);

/* Tree building, for callers that merge or edit trees (includes, --set overrides). Nodes made
 * here refer to `file` without copying it: the caller keeps that string alive. All return NULL
 * or -1 when memory is short. map_put and seq_append take ownership of the
 * value on success only (on failure the caller still owns it); map_put replaces, and frees, an
 * existing value of the same key. */
rt_yaml_node *rt_yaml_new_map(const char *file, int line, int col);
rt_yaml_node *rt_yaml_new_scalar(const char *file, int line, int col, const char *text, int quoted);
int rt_yaml_map_put(rt_yaml_node *map, const char *key, int line, int col, rt_yaml_node *value);
int rt_yaml_seq_append(rt_yaml_node *seq, rt_yaml_node *item);

/* Deep copy of a node (and its subtree). The copy refers to file names of the source tree, so it
 * must not outlive it; free it with rt_yaml_free_node. Returns NULL when memory is short. */
rt_yaml_node *rt_yaml_clone(const rt_yaml_node *node);
/* Frees a node built by rt_yaml_clone or detached from a tree (not the tree's file strings). */
void rt_yaml_free_node(rt_yaml_node *node);

#endif
