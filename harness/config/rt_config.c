/* rt_config: see rt_config.h. Loading is the key table (rt_config_keys.h) walked over the YAML
 * tree: the table's defaults first, then every section's keys checked and read by their kind or
 * their hooks. */
#include "rt_config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_config_keys.h"
#include "rt_config_read.h"
#include "rt_config_tree.h"

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))
/* Keys under one section, and --set patterns of the whole table, at most. */
#define MAX_SECTION_KEYS 32
#define MAX_PATTERNS     96

void rt_src_loc_format(const rt_src_loc *loc, char *buf, size_t len)
{
    snprintf(buf, len, "%s:%d:%d", loc->file, loc->line, loc->col);
}

static void *field(void *base, size_t offset)
{
    return (char *)base + offset;
}

/* ------------------------------------------------------------------------------------------ */
/* Defaults */

/* Sets one key to its default (text read as the key reads a value), or a REAL key without one to
 * NAN ("not set"). A default that does not read is a bug of the table: the test of the table
 * loads every default. */
static int apply_default(const rt_config_key *k, void *base, rt_err *err)
{
    if (!k->def) {
        if (k->kind == RT_KEY_REAL)
            *(double *)field(base, k->offset) = NAN;
        return 0;
    }
    if (k->size == 0)
        return 0;
    int64_t i;
    double r;
    int n = 0, index = -1;
    switch (k->kind) {
    case RT_KEY_INT:
        if (rt_yaml_parse_int(k->def, &i) != 0)
            break;
        if (k->size == sizeof(int))
            *(int *)field(base, k->offset) = (int)i;
        else
            memcpy(field(base, k->offset), &i, sizeof i);
        return 0;
    case RT_KEY_REAL:
        if (rt_yaml_parse_real(k->def, &r) != 0)
            break;
        *(double *)field(base, k->offset) = r;
        return 0;
    case RT_KEY_ENUM: {
        const char *const *c = k->choices(&n);
        for (int j = 0; j < n && index < 0; ++j)
            if (strcmp(c[j], k->def) == 0)
                index = j;
        if (index < 0)
            break;
        *(int *)field(base, k->offset) = index;
        return 0;
    }
    case RT_KEY_TEXT:
    case RT_KEY_NAME:
    case RT_KEY_WORD:
    case RT_KEY_CUSTOM:
        if (strlen(k->def) >= k->size)
            break;
        memcpy(field(base, k->offset), k->def, strlen(k->def) + 1);
        return 0;
    default: break;
    }
    return rt_err_set(err, "config key %s: its default '%s' does not read as its kind", k->path,
                      k->def);
}

/* The defaults of the keys under prefix and of the map sections below it (not list items: each
 * item gets its own as it is read). */
static int apply_defaults(const char *prefix, void *base, rt_err *err)
{
    int n = 0;
    const rt_config_key *keys = rt_config_keys(&n);
    for (int i = 0; i < n; ++i) {
        const rt_config_key *k = &keys[i];
        if (!rt_config_key_under(k, prefix))
            continue;
        if (k->kind == RT_KEY_MAP ? apply_defaults(k->path, base, err) != 0
                                  : apply_default(k, base, err) != 0)
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Reading */

static int read_key(const rt_cfg_ctx *cx, const rt_config_key *k, const rt_yaml_node *n,
                    const char *path, void *base, rt_err *err);

/* The keys of one section (prefix "" for the top, "measure", "plots.#"), read from map in table
 * order into base. sec is the section's own key (NULL for the top); path names the section in
 * messages ("config", "measure", "plots[2]"); in_items: the section is an item of a list, whose
 * missing keys are reported against the item. */
static int read_section(const rt_cfg_ctx *cx, const char *prefix, const rt_config_key *sec,
                        const rt_yaml_node *map, const char *path, int in_items, void *base,
                        rt_err *err)
{
    const char *names[MAX_SECTION_KEYS];
    const int n_names = rt_config_key_names(prefix, names, N_OF(names));
    if (sec && (sec->flags & RT_KEYF_OPEN)) {
        if (rt_cfg_expect_kind(map, path, RT_YAML_MAP, err) != 0)
            return -1;
    } else if (rt_cfg_check_keys(map, path, names, n_names, err) != 0) {
        return -1;
    }
    if (sec && sec->begin && sec->begin(cx, map, path, base, err) != 0)
        return -1;
    int n_keys = 0;
    const rt_config_key *keys = rt_config_keys(&n_keys);
    for (int i = 0; i < n_keys; ++i) {
        const rt_config_key *k = &keys[i];
        if (!rt_config_key_under(k, prefix))
            continue;
        const char *name = rt_config_key_name(k);
        char key_path[160];
        if (prefix[0])
            snprintf(key_path, sizeof key_path, "%s.%s", path, name);
        else
            snprintf(key_path, sizeof key_path, "%s", name);
        const rt_yaml_node *node = rt_yaml_map_get(map, name);
        if (!node) {
            if (k->missing)
                return RT_CFG_FAIL(err, map, in_items ? path : key_path, "%s", k->missing);
            continue;
        }
        if (k->kind == RT_KEY_TREE || k->kind == RT_KEY_CUSTOM_ARG ||
            (k->kind == RT_KEY_CUSTOM && !k->read))
            continue;
        if (read_key(cx, k, node, key_path, base, err) != 0)
            return -1;
    }
    if (sec && sec->finish && sec->finish(cx, map, path, base, err) != 0)
        return -1;
    return 0;
}

/* A list of maps: the array is allocated whole, then each item gets its defaults and its keys. */
static int read_items(const rt_cfg_ctx *cx, const rt_config_key *k, const rt_yaml_node *seq,
                      const char *path, void *base, rt_err *err)
{
    if (rt_cfg_expect_kind(seq, path, RT_YAML_SEQ, err) != 0)
        return -1;
    if (seq->n == 0)
        return 0;
    char *items = calloc((size_t)seq->n, k->item_size);
    if (!items)
        return RT_CFG_FAIL(err, seq, path, "out of memory");
    memcpy(field(base, k->offset), &items, sizeof items);
    *(int *)field(base, k->count_offset) = seq->n;
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s.#", k->path);
    for (int i = 0; i < seq->n; ++i) {
        void *item = items + (size_t)i * k->item_size;
        const rt_yaml_node *node = seq->items[i];
        char item_path[64];
        snprintf(item_path, sizeof item_path, "%s[%d]", path, i);
        rt_cfg_loc_of(node, field(item, k->item_loc_offset));
        if (apply_defaults(prefix, item, err) != 0 ||
            read_section(cx, prefix, k, node, item_path, 1, item, err) != 0 ||
            (k->unique && k->unique(cx, node, item_path, item, err) != 0))
            return -1;
    }
    return 0;
}

static int read_key(const rt_cfg_ctx *cx, const rt_config_key *k, const rt_yaml_node *n,
                    const char *path, void *base, rt_err *err)
{
    void *dest = field(base, k->offset);
    int64_t i = 0;
    int index = 0, flag = 0, n_choices = 0;
    int rc = 0;
    switch (k->kind) {
    case RT_KEY_MAP: return read_section(cx, k->path, k, n, path, 0, base, err);
    case RT_KEY_ITEMS: return read_items(cx, k, n, path, base, err);
    case RT_KEY_INT:
        rc = rt_cfg_read_int(n, path, k->min, k->max, &i, err);
        if (rc == 0 && k->size == sizeof(int))
            *(int *)dest = (int)i;
        else if (rc == 0)
            memcpy(dest, &i, sizeof i);
        break;
    case RT_KEY_REAL:
        rc = rt_cfg_read_real(n, path, k->lo, !k->lo_open, k->hi, !k->hi_open, k->expected, dest,
                              err);
        break;
    case RT_KEY_TEXT:
        rc = rt_cfg_read_text(n, path, (k->flags & RT_KEYF_EMPTY_OK) != 0, dest, k->size, err);
        break;
    case RT_KEY_NAME: rc = rt_cfg_read_name(n, path, dest, k->size, err); break;
    case RT_KEY_ENUM:
    case RT_KEY_WORD: {
        const char *const *choices = k->choices(&n_choices);
        const int is_enum = k->kind == RT_KEY_ENUM;
        rc = rt_cfg_read_choice(n, path, choices, n_choices, &index, is_enum ? NULL : dest,
                                is_enum ? 0 : k->size, err);
        if (rc == 0 && is_enum)
            *(int *)dest = index;
        break;
    }
    case RT_KEY_FLAG:
        /* Three-way: absent leaves the choice to the reader (0), true is 1, false -1. */
        rc = rt_cfg_read_bool(n, path, &flag, err);
        if (rc == 0)
            *(int *)dest = flag ? 1 : -1;
        break;
    case RT_KEY_CUSTOM: rc = k->read(cx, n, path, base, err); break;
    case RT_KEY_TREE:
    case RT_KEY_CUSTOM_ARG: break;
    }
    if (rc != 0)
        return -1;
    if (k->has_loc)
        rt_cfg_loc_of(n, field(base, k->loc_offset));
    return k->check ? k->check(cx, n, path, base, err) : 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Load and free */

int rt_config_load(const char *path, const char *const *overrides, int n_overrides, rt_config *cfg,
                   rt_err *err)
{
    memset(cfg, 0, sizeof *cfg);
    if (apply_defaults("", cfg, err) != 0)
        return -1;
    if (!path)
        return rt_err_set(err, "no config file given");
    if (strlen(path) >= sizeof cfg->path)
        return rt_err_set(err, "config path is longer than %zu characters", sizeof cfg->path - 1);
    snprintf(cfg->path, sizeof cfg->path, "%s", path);
    if (n_overrides < 0 || (n_overrides > 0 && !overrides))
        return rt_err_set(err, "rt_config_load: bad override list");
    /* What --set may name: the table's patterns. */
    char text[MAX_PATTERNS][RT_CONFIG_PATTERN_MAX];
    rt_config_path_pattern patterns[MAX_PATTERNS];
    const int n_patterns = rt_config_key_set_patterns(text, MAX_PATTERNS);
    if (n_patterns < 0)
        return rt_err_set(err, "rt_config_load: the key table has more than %d --set patterns",
                          MAX_PATTERNS);
    for (int i = 0; i < n_patterns; ++i)
        patterns[i] = text[i];
    rt_config_tree tree;
    if (rt_config_tree_load(path, overrides, n_overrides, patterns, n_patterns, &tree, err) != 0)
        return -1;
    const rt_cfg_ctx cx = {cfg, &tree};
    const int rc = read_section(&cx, "", NULL, tree.root, "config", 0, cfg, err);
    /* The text and hash outlive the tree; node locations were copied into cfg. */
    cfg->text = tree.text;
    tree.text = NULL;
    snprintf(cfg->hash, sizeof cfg->hash, "%s", tree.hash);
    rt_config_tree_free(&tree);
    if (rc != 0) {
        rt_config_free(cfg);
        return -1;
    }
    return 0;
}

static void free_domains(rt_param_domain *d, int n)
{
    for (int i = 0; d && i < n; ++i)
        free(d[i].values);
    free(d);
}

void rt_config_free(rt_config *cfg)
{
    if (!cfg)
        return;
    free(cfg->text);
    free(cfg->matrices);
    free_domains(cfg->problem, cfg->n_problem);
    for (int i = 0; cfg->kernels && i < cfg->n_kernels; ++i) {
        free_domains(cfg->kernels[i].params, cfg->kernels[i].n_params);
        free(cfg->kernels[i].constraints);
        free(cfg->kernels[i].constraint_locs);
    }
    free(cfg->kernels);
    free(cfg->counters);
    free(cfg->user_kernels);
    free(cfg->user_kernel_locs);
    free(cfg->plots);
    memset(cfg, 0, sizeof *cfg);
    cfg->expect_min_efficiency = NAN;
}
