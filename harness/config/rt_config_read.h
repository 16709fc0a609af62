/* rt_config_read: the typed readers every config key goes through (integers, reals, strings,
 * names, choices, booleans, parameter values) and the locations and messages they fail with:
 * "file:line:col: path: what was expected, got what". rt_config's key table
 * (rt_config_keys.h) calls them by a key's kind; section hooks call them for what they read
 * themselves. */
#ifndef RT_CONFIG_READ_H
#define RT_CONFIG_READ_H

#include <stddef.h>
#include <stdint.h>

#include "rt_config_types.h"
#include "rt_error.h"
#include "rt_params.h"
#include "rt_yaml.h"

struct rt_config_tree;

/* What every reader of a key may need beyond the node: the config being filled and the tree it
 * comes from (for the folder relative paths are resolved against). */
typedef struct rt_cfg_ctx {
    rt_config *cfg;
    const struct rt_config_tree *tree;
} rt_cfg_ctx;

void rt_cfg_loc_of(const rt_yaml_node *n, rt_src_loc *loc);
/* The location of the key (not the value) of entry i of a map. */
void rt_cfg_loc_of_key(const rt_yaml_node *map, int i, rt_src_loc *loc);

/* Sets err to "file:line:col: path: what" and returns -1. */
int rt_cfg_fail_at(rt_err *err, const char *file, int line, int col, const char *path,
                   const char *fmt, ...) __attribute__((format(printf, 6, 7)));
#define RT_CFG_FAIL(err, node, path, ...)                                                          \
    rt_cfg_fail_at(err, (node)->file, (node)->line, (node)->col, path, __VA_ARGS__)

/* "a list" for a sequence, else what rt_yaml_describe says ("'abc'", "a map"). */
void rt_cfg_describe(const rt_yaml_node *n, char *buf, size_t len);
int rt_cfg_expect_kind(const rt_yaml_node *n, const char *path, rt_yaml_kind kind, rt_err *err);
/* A map whose keys are all in allowed (with a "did you mean" for a near miss). */
int rt_cfg_check_keys(const rt_yaml_node *map, const char *path, const char *const *allowed, int n,
                      rt_err *err);

/* An integer in [lo, hi]. */
int rt_cfg_read_int(const rt_yaml_node *n, const char *path, int64_t lo, int64_t hi, int64_t *out,
                    rt_err *err);
/* A number in (lo, hi) or [lo, hi] per the inclusive flags; `expected` phrases the range. */
int rt_cfg_read_real(const rt_yaml_node *n, const char *path, double lo, int lo_incl, double hi,
                     int hi_incl, const char *expected, double *out, rt_err *err);
int rt_cfg_read_text(const rt_yaml_node *n, const char *path, int allow_empty, char *buf,
                     size_t len, rt_err *err);
/* One of choices; *index receives its position (may be NULL), buf its text (may be NULL). */
int rt_cfg_read_choice(const rt_yaml_node *n, const char *path, const char *const *choices,
                       int n_choices, int *index, char *buf, size_t len, rt_err *err);
int rt_cfg_read_bool(const rt_yaml_node *n, const char *path, int *out, rt_err *err);
/* A plain name (it ends up in file names and SQL rows): letters, digits, '_', '.', '-'. */
int rt_cfg_read_name(const rt_yaml_node *n, const char *path, char *buf, size_t len, rt_err *err);
int rt_cfg_is_name_char(char c);
/* A parameter value typed as written: quoted -> string, else integer, real or word. */
int rt_cfg_read_value(const rt_yaml_node *n, const char *path, rt_value *out, rt_err *err);

#endif
