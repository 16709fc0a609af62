/* rt_config_keys: every key a config may hold, in one table: its path, kind, range or choices,
 * default and where its value goes. rt_config reads a config through it, and everything else
 * about keys comes from it too:
 *
 *   the unknown-key check   a section's allowed keys are the table's keys under it, in order;
 *   --set                   the paths an override may name (rt_config_key_set_patterns);
 *   reading                 a key's kind picks its reader (rt_config_read.h) and its offset
 *                           the field it fills; a hook reads what no kind covers;
 *   defaults                a key's default is YAML text, read as the key would read it, before
 *                           the config's own values;
 *   the docs                docs/guides/config.md lists every key with its type and default,
 *                           which a test compares with this table (rt_config_key_type_text).
 *
 * A path is dotted; "#" stands for the items of a list ("plots.#.type"). Top-level keys and the
 * keys of map sections fill fields of rt_config; the keys of a list's items fill fields of the
 * item (rt_plot_cfg for "plots.#.*"). */
#ifndef RT_CONFIG_KEYS_H
#define RT_CONFIG_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "rt_config_types.h"
#include "rt_config_read.h"
#include "rt_error.h"
#include "rt_yaml.h"

typedef enum rt_key_kind {
    RT_KEY_MAP,        /* a section: a map of the keys listed under it */
    RT_KEY_ITEMS,      /* a list of maps, one item each: the keys listed under "path.#" */
    RT_KEY_TREE,       /* read by the config tree before the keys are (include:); listed here so the
                          key check knows it */
    RT_KEY_INT,        /* an integer in [lo, hi], into an int or an int64_t (size says which) */
    RT_KEY_REAL,       /* a number between lo and hi (open or closed bounds), into a double; without
                          a default it is NAN until given */
    RT_KEY_TEXT,       /* a string, into a char array (RT_KEYF_EMPTY_OK: "" allowed) */
    RT_KEY_NAME,       /* a plain name (letters, digits, '_', '.', '-'), into a char array */
    RT_KEY_ENUM,       /* one of choices(), its index into an int (an enum) */
    RT_KEY_WORD,       /* one of choices(), its text into a char array */
    RT_KEY_FLAG,       /* a boolean into an int: 1 true, -1 false, 0 when not given */
    RT_KEY_CUSTOM,     /* read by the key's read hook (none: by its section's finish hook) */
    RT_KEY_CUSTOM_ARG, /* an argument of a matrix's generator, read with the others by the item's
                          finish hook in the order written (listed for the checks and the docs) */
} rt_key_kind;

/* Flags */
#define RT_KEYF_EMPTY_OK 1u /* TEXT: "" is a value */
#define RT_KEYF_OPEN     2u /* ITEMS, MAP: other keys are allowed (the hooks check them) */

/* What --set may name at and below the key (a key with none cannot be overridden). */
#define RT_SET_SELF     1u /* the path itself: "measure.warmup" */
#define RT_SET_ITEMS    2u /* its list items: "counters.#" */
#define RT_SET_ANY      4u /* anything below it: "problem.**" */
#define RT_SET_ITEM_ANY 8u /* anything below its items: "matrices.#.**" */

/* A hook reads or checks the value at node n of the key at path (the path as messages name it,
 * "plots[2].baseline") into or against base: the rt_config, or for a list's item keys the item.
 * ITEMS keys' finish hooks get the whole list (base: the first item, n: the list node). */
typedef int (*rt_key_hook)(const rt_cfg_ctx *cx, const rt_yaml_node *n, const char *path,
                           void *base, rt_err *err);

typedef struct rt_config_key {
    const char *path;
    rt_key_kind kind;
    unsigned flags;
    unsigned set;                          /* RT_SET_* */
    int64_t min, max;                      /* INT: the range, inclusive */
    double lo, hi;                         /* REAL: the range */
    int lo_open, hi_open;                  /* REAL: the bounds are excluded */
    const char *expected;                  /* REAL: the range as the error message phrases it */
    const char *const *(*choices)(int *n); /* ENUM, WORD */
    const char *def;                       /* the default, as YAML text; NULL: none */
    const char *missing;                   /* non-NULL: the key is required; what the error adds */
    size_t offset, size;                   /* the field the value fills (size 0: none) */
    int has_loc;                           /* the node's location goes to loc_offset too */
    size_t loc_offset;
    /* ITEMS: the list's count field, the item size, and where each item keeps its location. */
    size_t count_offset, item_size, item_loc_offset;
    rt_key_hook read;   /* CUSTOM: reads the value */
    rt_key_hook check;  /* after the value is read: rules that involve other keys */
    rt_key_hook begin;  /* MAP, ITEMS (per item): before the keys are read */
    rt_key_hook finish; /* MAP, ITEMS (per item): after them (defaults that depend on others) */
    rt_key_hook unique; /* ITEMS: item n's value against the items before it (base: the item;
                           the list is reached through cx->cfg) */
} rt_config_key;

/* The table, in reading order (sections' keys in the order their check lists them). */
const rt_config_key *rt_config_keys(int *n);
/* The key at path (with "#" for list items), or NULL. */
const rt_config_key *rt_config_key_find(const char *path);
/* The last segment of a key's path ("warmup" for "measure.warmup"). */
const char *rt_config_key_name(const rt_config_key *k);
/* Whether k sits directly under the section at prefix ("" for the top level, "measure",
 * "plots.#"). */
int rt_config_key_under(const rt_config_key *k, const char *prefix);
/* The names of the keys directly under prefix, in table order, for the unknown-key check:
 * returns how many (at most cap). */
int rt_config_key_names(const char *prefix, const char **names, int cap);
/* The --set patterns of the whole table (rt_config_tree.h's syntax), into out (at most cap,
 * each of at most RT_CONFIG_PATTERN_MAX bytes): returns how many, or -1 when cap is too small. */
#define RT_CONFIG_PATTERN_MAX 64
int rt_config_key_set_patterns(char (*out)[RT_CONFIG_PATTERN_MAX], int cap);
/* The key's type as the docs' type column writes it: "integer >= 0", "number in (0, 1)",
 * "`hot` or `cold`", "string", ... */
void rt_config_key_type_text(const rt_config_key *k, char *buf, size_t len);

#endif
