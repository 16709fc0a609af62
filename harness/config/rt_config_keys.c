/* rt_config_keys: see rt_config_keys.h. The table, then the hooks of the keys no kind covers
 * (matrices, kernels, problem, counters, the measure and search rules), then the queries. */
#include "rt_config_keys.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_config_domain.h"
#include "rt_config_plots.h"
#include "rt_config_tree.h"
#include "rt_criterion.h"
#include "rt_expr.h"
#include "rt_ordering.h"
#include "rt_strategy_table.h"
#include "rt_strutil.h"

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))
/* Upper bound for repetition counts: whatever fits the int fields of rt_measure_cfg. */
#define MAX_REPS INT32_MAX

/* ---------------------------------------------------------------------------------------------
 * Choices */

static const char *const k_modes[] = {"hot", "cold"};
static const char *const k_prune_modes[] = {"none", "bound"};
static const char *const k_parallel_modes[] = {"none", "ranks", "gpus"};    /* rt_parallel_mode */
static const char *const k_kernel_parallel[] = {"search", "none", "ranks"}; /* rt_kernel_parallel */
static const char *const k_orderings[] = {"natural", "hilbert", "rcm", "random", "metis"};
static const char *const k_plot_types[] = {"line", "bars", "stacked", "box", "heatmap", "scaling"};

/* In the order of rt_measure_mode. */
static const char *const *measure_modes(int *n)
{
    *n = N_OF(k_modes);
    return k_modes;
}

static const char *const *prune_modes(int *n)
{
    *n = N_OF(k_prune_modes);
    return k_prune_modes;
}

static const char *const *kernel_parallel_modes(int *n)
{
    *n = N_OF(k_kernel_parallel);
    return k_kernel_parallel;
}

static const char *const *parallel_modes(int *n)
{
    *n = N_OF(k_parallel_modes);
    return k_parallel_modes;
}

static const char *const *plot_types(int *n)
{
    *n = N_OF(k_plot_types);
    return k_plot_types;
}

/* ---------------------------------------------------------------------------------------------
 * Hooks: matrices */

/* The keys a matrix read from a file takes: a file carries its own shape, so generator arguments
 * (keys beyond the table's) would be silently ignored; `seed` stays (ordering: random). */
static int matrix_file_keys(const char **names, int cap)
{
    const char *all[16];
    const int n = rt_config_key_names("matrices.#", all, N_OF(all));
    int kept = 0;
    for (int i = 0; i < n && kept < cap; ++i)
        if (strcmp(all[i], "generator") != 0)
            names[kept++] = all[i];
    return kept;
}

static int matrix_begin(const rt_cfg_ctx *cx, const rt_yaml_node *item, const char *path,
                        void *base, rt_err *err)
{
    (void)cx;
    rt_matrix_cfg *m = base;
    rt_params_init(&m->gen);
    const rt_yaml_node *gen = rt_yaml_map_get(item, "generator");
    const rt_yaml_node *file = rt_yaml_map_get(item, "file");
    if (gen && file) {
        const rt_yaml_node *second =
            gen->line > file->line || (gen->line == file->line && gen->col > file->col) ? gen
                                                                                        : file;
        return RT_CFG_FAIL(err, second, path, "has both generator: and file:; give exactly one");
    }
    if (file) {
        const char *names[16];
        const int n = matrix_file_keys(names, N_OF(names));
        return rt_yaml_check_keys(item, path, names, n, err);
    }
    if (!gen) {
        /* Before giving up, look for a misspelt generator:/file: among the other keys. */
        static const char *const sources[] = {"generator", "file"};
        for (int i = 0; i < item->n; ++i) {
            const char *hint = rt_suggest(item->keys[i], sources, 2);
            if (hint && strcmp(item->keys[i], "name") != 0) {
                rt_src_loc at;
                rt_cfg_loc_of_key(item, i, &at);
                return rt_cfg_fail_at(err, at.file, at.line, at.col, path,
                                      "unknown key '%s' (did you mean '%s'?)", item->keys[i], hint);
            }
        }
        return RT_CFG_FAIL(err, item, path,
                           "needs generator: NAME (with its arguments) or file: "
                           "PATH (a Matrix Market file)");
    }
    return 0;
}

/* A path relative to the config file that names it (absolute paths stay as they are). */
static int matrix_file(const rt_cfg_ctx *cx, const rt_yaml_node *n, const char *path, void *base,
                       rt_err *err)
{
    rt_matrix_cfg *m = base;
    char written[1024], dir[1024];
    if (rt_cfg_read_text(n, path, 0, written, sizeof written, err) != 0)
        return -1;
    const int dir_ok = rt_config_tree_base_dir(cx->tree, n, dir, sizeof dir) == 0;
    const int w = written[0] == '/' || !dir_ok || dir[0] == '\0'
                      ? snprintf(m->file, sizeof m->file, "%s", written)
                      : snprintf(m->file, sizeof m->file, "%s%s%s", dir,
                                 dir[strlen(dir) - 1] == '/' ? "" : "/", written);
    if (w < 0 || (size_t)w >= sizeof m->file)
        return RT_CFG_FAIL(err, n, path, "path is longer than %zu characters", sizeof m->file - 1);
    return 0;
}

static int matrix_ordering(const rt_cfg_ctx *cx, const rt_yaml_node *n, const char *path,
                           void *base, rt_err *err)
{
    (void)cx;
    rt_matrix_cfg *m = base;
    if (n->kind == RT_YAML_SCALAR && strncmp(n->scalar, "random:", 7) == 0) {
        int64_t seed;
        if (rt_yaml_parse_int(n->scalar + 7, &seed) != 0 || seed < 0)
            return RT_CFG_FAIL(err, n, path,
                               "expected random:SEED with an integer SEED >= 0, got '%s'",
                               n->scalar);
        return rt_cfg_read_text(n, path, 0, m->ordering, sizeof m->ordering, err);
    }
    return rt_cfg_read_choice(n, path, k_orderings, N_OF(k_orderings), NULL, m->ordering,
                              sizeof m->ordering, err);
}

static int matrix_metis_parts(const rt_cfg_ctx *cx, const rt_yaml_node *n, const char *path,
                              void *base, rt_err *err)
{
    (void)cx;
    const rt_matrix_cfg *m = base;
    if (strcmp(m->ordering, "metis") != 0)
        return RT_CFG_FAIL(err, n, path,
                           "applies only to ordering: metis (this matrix has "
                           "ordering: %s)",
                           m->ordering);
    return 0;
}

/* After the table's keys: metis_parts travels inside the ordering text ("metis:PARTS"), so that
 * rt_matrix_build and the store's ordering column carry it without a field of their own; every
 * other key is an argument of the generator (or `seed` for a file's random order), in the order
 * written; the registry check validates names and values against the generator's schema. */
static int matrix_args(const rt_cfg_ctx *cx, const rt_yaml_node *item, const char *path, void *base,
                       rt_err *err)
{
    (void)cx;
    rt_matrix_cfg *m = base;
    if (m->metis_parts > 0)
        snprintf(m->ordering, sizeof m->ordering, "metis:%" PRId64, m->metis_parts);
    for (int i = 0; i < item->n; ++i) {
        const rt_config_key *k = NULL;
        char key_path[80];
        if (snprintf(key_path, sizeof key_path, "matrices.#.%s", item->keys[i]) <
            (int)sizeof key_path)
            k = rt_config_key_find(key_path);
        if (k && k->kind != RT_KEY_CUSTOM_ARG)
            continue;
        char sub[96];
        snprintf(sub, sizeof sub, "%s.%s", path, item->keys[i]);
        rt_value v;
        if (rt_cfg_read_value(item->items[i], sub, &v, err) != 0)
            return -1;
        rt_src_loc at;
        rt_cfg_loc_of_key(item, i, &at);
        if (rt_params_set(&m->gen, item->keys[i], v, err) != 0)
            return rt_err_prefix(err, "%s:%d:%d: %s", at.file, at.line, at.col, sub);
        m->gen_locs[m->gen.n - 1] = at;
    }
    return 0;
}

static int matrix_unique(const rt_cfg_ctx *cx, const rt_yaml_node *item, const char *path,
                         void *base, rt_err *err)
{
    const rt_matrix_cfg *m = base;
    const int i = (int)(m - cx->cfg->matrices);
    for (int j = 0; j < i; ++j) {
        if (strcmp(cx->cfg->matrices[j].name, m->name) == 0) {
            char name_path[96];
            snprintf(name_path, sizeof name_path, "%s.name", path);
            return RT_CFG_FAIL(err, rt_yaml_map_get(item, "name"), name_path,
                               "'%s' is already the name of matrices[%d] (line %d); matrix names "
                               "must be unique",
                               m->name, j, cx->cfg->matrices[j].loc.line);
        }
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Hooks: problem, kernels, counters */

static int read_problem(const rt_cfg_ctx *cx, const rt_yaml_node *n, const char *path, void *base,
                        rt_err *err)
{
    (void)base;
    return rt_cfg_read_domains(n, path, &cx->cfg->problem, &cx->cfg->n_problem, err);
}

static int kernel_params(const rt_cfg_ctx *cx, const rt_yaml_node *n, const char *path, void *base,
                         rt_err *err)
{
    (void)cx;
    rt_kernel_cfg *k = base;
    return rt_cfg_read_domains(n, path, &k->params, &k->n_params, err);
}

/* A sequence of text items (a kernel's constraints, counters, user_kernels), read one way: seq->n
 * slots of item_size bytes into *items and, when locs is given, each item's location into *locs,
 * both allocated here; an error names the item (path[i]). The arrays are handed over before the
 * items are read, so the caller stores them (and frees them with its config) even on an error. */
static int read_text_seq(const rt_yaml_node *seq, const char *path, size_t item_size, void **items,
                         rt_src_loc **locs, int *n, rt_err *err)
{
    if (rt_cfg_expect_kind(seq, path, RT_YAML_SEQ, err) != 0)
        return -1;
    if (seq->n == 0)
        return 0;
    char *text = calloc((size_t)seq->n, item_size);
    rt_src_loc *at = locs ? calloc((size_t)seq->n, sizeof *at) : NULL;
    if (!text || (locs && !at)) {
        free(text);
        free(at);
        return RT_CFG_FAIL(err, seq, path, "out of memory");
    }
    *items = text;
    if (locs)
        *locs = at;
    *n = seq->n;
    for (int i = 0; i < seq->n; ++i) {
        char item_path[200];
        snprintf(item_path, sizeof item_path, "%s[%d]", path, i);
        if (at)
            rt_cfg_loc_of(seq->items[i], &at[i]);
        if (rt_cfg_read_text(seq->items[i], item_path, 0, text + (size_t)i * item_size, item_size,
                             err) != 0)
            return -1;
    }
    return 0;
}

static int kernel_constraints(const rt_cfg_ctx *cx, const rt_yaml_node *seq, const char *path,
                              void *base, rt_err *err)
{
    (void)cx;
    rt_kernel_cfg *k = base;
    void *items = NULL;
    const int rc = read_text_seq(seq, path, sizeof k->constraints[0], &items, &k->constraint_locs,
                                 &k->n_constraints, err);
    k->constraints = items;
    if (rc != 0)
        return -1;
    for (int i = 0; i < k->n_constraints; ++i) {
        const rt_yaml_node *c = seq->items[i];
        char cpath[200];
        snprintf(cpath, sizeof cpath, "%s[%d]", path, i);
        /* Syntax is checked here, without the registry, so `validate` catches it anywhere;
         * identifiers are checked against the kernel's schema by rt_config_check. */
        rt_expr *e;
        rt_err why;
        if (rt_expr_parse(k->constraints[i], &e, &why) != 0)
            return RT_CFG_FAIL(err, c, cpath, "syntax error: %s", why.msg);
        rt_expr_free(e);
    }
    return 0;
}

static int read_counters(const rt_cfg_ctx *cx, const rt_yaml_node *seq, const char *path,
                         void *base, rt_err *err)
{
    (void)base;
    rt_config *cfg = cx->cfg;
    void *items = NULL;
    const int rc =
        read_text_seq(seq, path, sizeof cfg->counters[0], &items, NULL, &cfg->n_counters, err);
    cfg->counters = items;
    if (rc != 0)
        return -1;
    for (int i = 0; i < cfg->n_counters; ++i) {
        char item_path[48];
        snprintf(item_path, sizeof item_path, "%s[%d]", path, i);
        for (int j = 0; j < i; ++j)
            if (strcmp(cfg->counters[j], cfg->counters[i]) == 0)
                return RT_CFG_FAIL(err, seq->items[i], item_path,
                                   "'%s' is listed twice (also "
                                   "counters[%d])",
                                   cfg->counters[i], j);
    }
    return 0;
}

/* user_kernels: kernel spec paths (kernels/user), each resolved here against the folder of the
 * file that names it, as a matrix's file is: the folder comes from the YAML tree in full, where
 * a location's file name (rt_src_loc) would cut a deep one. The app registers their kernels
 * before the check. */
static int read_user_kernels(const rt_cfg_ctx *cx, const rt_yaml_node *seq, const char *path,
                             void *base, rt_err *err)
{
    (void)base;
    rt_config *cfg = cx->cfg;
    void *items = NULL;
    const int rc = read_text_seq(seq, path, sizeof cfg->user_kernels[0], &items,
                                 &cfg->user_kernel_locs, &cfg->n_user_kernels, err);
    cfg->user_kernels = items;
    if (rc != 0)
        return rc;
    for (int i = 0; i < seq->n; ++i) {
        char written[sizeof cfg->user_kernels[0]], dir[sizeof cfg->user_kernels[0]];
        snprintf(written, sizeof written, "%s", cfg->user_kernels[i]);
        const int dir_ok = rt_config_tree_base_dir(cx->tree, seq->items[i], dir, sizeof dir) == 0;
        if (!dir_ok && written[0] != '/')
            return RT_CFG_FAIL(err, seq->items[i], path,
                               "the config's folder is longer than %zu characters", sizeof dir - 1);
        const int w =
            written[0] == '/' || dir[0] == '\0'
                ? snprintf(cfg->user_kernels[i], sizeof cfg->user_kernels[i], "%s", written)
                : snprintf(cfg->user_kernels[i], sizeof cfg->user_kernels[i], "%s%s%s", dir,
                           dir[strlen(dir) - 1] == '/' ? "" : "/", written);
        if (w < 0 || (size_t)w >= sizeof cfg->user_kernels[i])
            return RT_CFG_FAIL(err, seq->items[i], path,
                               "'%s' in the config's folder is longer than %zu characters", written,
                               sizeof cfg->user_kernels[i] - 1);
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Hooks: measure and search */

static int measure_finish(const rt_cfg_ctx *cx, const rt_yaml_node *map, const char *path,
                          void *base, rt_err *err)
{
    (void)path;
    (void)base;
    const rt_measure_cfg *m = &cx->cfg->measure;
    if (m->max_reps >= m->min_reps)
        return 0;
    const rt_yaml_node *max_n = rt_yaml_map_get(map, "max_reps");
    const rt_yaml_node *min_n = rt_yaml_map_get(map, "min_reps");
    if (max_n)
        return RT_CFG_FAIL(err, max_n, "measure.max_reps",
                           "must be >= measure.min_reps (%d), "
                           "got %d",
                           m->min_reps, m->max_reps);
    return RT_CFG_FAIL(err, min_n, "measure.min_reps",
                       "must be <= measure.max_reps (%d, the "
                       "default), got %d",
                       m->max_reps, m->min_reps);
}

/* The stop rule compares the best time with its bound: without pruning nothing would compute
 * bounds during the search, so it would silently never fire. */
static int search_stop_within(const rt_cfg_ctx *cx, const rt_yaml_node *n, const char *path,
                              void *base, rt_err *err)
{
    (void)base;
    const rt_search_cfg *s = &cx->cfg->search;
    if (s->stop_within > 0 && !s->prune_bound)
        return RT_CFG_FAIL(err, n, path,
                           "needs search.prune: bound (the stop rule reads the bounds pruning "
                           "computes)");
    return 0;
}

/* An abort factor below 1 would stop points faster than the best: 0 turns it off. */
static int measure_abort_factor(const rt_cfg_ctx *cx, const rt_yaml_node *n, const char *path,
                                void *base, rt_err *err)
{
    (void)base;
    const double f = cx->cfg->measure.abort_factor;
    if (f != 0 && !(f >= 1))
        return RT_CFG_FAIL(err, n, path,
                           "must be 0 (no early abort) or a factor >= 1 of the sweep's best time, "
                           "got %g",
                           f);
    return 0;
}

/* Parallel workers measure whole points while the search keeps several in flight: only the
 * strategies whose order does not depend on measured times (ignores_results in the strategy
 * table) give the same points as a serial run; the others steer by each result before they pick
 * the next point (rt_strategy.h). */
static int search_parallel(const rt_cfg_ctx *cx, const rt_yaml_node *n, const char *path,
                           void *base, rt_err *err)
{
    (void)base;
    const rt_search_cfg *s = &cx->cfg->search;
    const rt_strategy_info *info = rt_strategy_find(s->strategy);
    if (s->parallel == RT_PARALLEL_NONE || (info && info->ignores_results))
        return 0;
    char blind[256];
    rt_strategy_blind_names(blind, sizeof blind);
    return RT_CFG_FAIL(err, n, path,
                       "%s needs search.strategy %s (strategy %s picks each point from the "
                       "result of the one before, so it measures one point at a time)",
                       k_parallel_modes[s->parallel], blind, s->strategy);
}

/* search.options: numbers the chosen strategy's options table accepts (search.strategy is read
 * before, in table order); the strategy table checks each name and range. */
static int search_options(const rt_cfg_ctx *cx, const rt_yaml_node *map, const char *path,
                          void *base, rt_err *err)
{
    (void)base;
    rt_search_cfg *s = &cx->cfg->search;
    if (rt_cfg_expect_kind(map, path, RT_YAML_MAP, err) != 0)
        return -1;
    for (int i = 0; i < map->n; ++i) {
        char key_path[96];
        double value;
        rt_err why;
        snprintf(key_path, sizeof key_path, "%s.%s", path, map->keys[i]);
        if (rt_cfg_read_real(map->items[i], key_path, -HUGE_VAL, 1, HUGE_VAL, 1, "a number", &value,
                             err) != 0)
            return -1;
        if (rt_strategy_opts_set(&s->options, s->strategy, map->keys[i], value, &why) != 0)
            return RT_CFG_FAIL(err, map->items[i], key_path, "%s", why.msg);
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * The table */

#define CFG(field) .offset = offsetof(rt_config, field), .size = sizeof(((rt_config *)0)->field)
#define MAT(field)                                                                                 \
    .offset = offsetof(rt_matrix_cfg, field), .size = sizeof(((rt_matrix_cfg *)0)->field)
#define KER(field)                                                                                 \
    .offset = offsetof(rt_kernel_cfg, field), .size = sizeof(((rt_kernel_cfg *)0)->field)
#define PLOT(field)                                                                                \
    .offset = offsetof(rt_plot_cfg, field), .size = sizeof(((rt_plot_cfg *)0)->field)
#define ITEMS_OF(type, list, count, loc)                                                           \
    .kind = RT_KEY_ITEMS, .offset = offsetof(rt_config, list),                                     \
    .count_offset = offsetof(rt_config, count), .item_size = sizeof(type),                         \
    .item_loc_offset = offsetof(type, loc)
/* Keys with a value of their own, settable by --set; further fields (a destination, a check)
 * follow the fixed ones. RANGE: lo, whether lo is excluded, hi, whether hi is excluded. */
#define INT_KEY(p, lo_, hi_, d, ...)                                                               \
    {                                                                                              \
        .path = p, .kind = RT_KEY_INT, .set = RT_SET_SELF, .min = lo_, .max = hi_, .def = d,       \
        __VA_ARGS__                                                                                \
    }
#define REAL_KEY(p, lo_, lo_x, hi_, hi_x, why, d, ...)                                             \
    {                                                                                              \
        .path = p, .kind = RT_KEY_REAL, .set = RT_SET_SELF, .lo = lo_, .lo_open = lo_x, .hi = hi_, \
        .hi_open = hi_x, .expected = why, .def = d, __VA_ARGS__                                    \
    }
#define CHOICE_KEY(p, kind_, choices_, d, ...)                                                     \
    {                                                                                              \
        .path = p, .kind = kind_, .set = RT_SET_SELF, .choices = choices_, .def = d, __VA_ARGS__   \
    }
#define TEXT_KEY(p, kind_, d, ...)                                                                 \
    {                                                                                              \
        .path = p, .kind = kind_, .set = RT_SET_SELF, .def = d, __VA_ARGS__                        \
    }
#define SECONDS_GT_0 "a number of seconds > 0"
#define NO_LIMIT     "(0 = always run to max_reps or max_time_s)"

static const rt_config_key k_keys[] = {
    {.path = "experiment",
     .kind = RT_KEY_MAP,
     .missing = "missing: every config needs experiment: {name: ...}"},
    TEXT_KEY("experiment.name", RT_KEY_NAME, NULL, CFG(name),
             .missing = "missing: name the experiment (letters, digits, '_', '.', '-')"),
    TEXT_KEY("experiment.description", RT_KEY_TEXT, "", CFG(description),
             .flags = RT_KEYF_EMPTY_OK),
    {.path = "include", .kind = RT_KEY_TREE},
    TEXT_KEY("machine", RT_KEY_TEXT, "auto", CFG(machine)),

    {.path = "matrices",
     ITEMS_OF(rt_matrix_cfg, matrices, n_matrices, loc),
     .flags = RT_KEYF_OPEN,
     .set = RT_SET_ITEM_ANY,
     .begin = matrix_begin,
     .finish = matrix_args,
     .unique = matrix_unique},
    {.path = "matrices.#.name",
     .kind = RT_KEY_NAME,
     MAT(name),
     .missing = "missing 'name' (each matrix needs a unique name)"},
    {.path = "matrices.#.generator",
     .kind = RT_KEY_TEXT,
     MAT(generator),
     .has_loc = 1,
     .loc_offset = offsetof(rt_matrix_cfg, source_loc)},
    {.path = "matrices.#.file",
     .kind = RT_KEY_CUSTOM,
     .read = matrix_file,
     MAT(file),
     .has_loc = 1,
     .loc_offset = offsetof(rt_matrix_cfg, source_loc)},
    {.path = "matrices.#.ordering",
     .kind = RT_KEY_CUSTOM,
     .read = matrix_ordering,
     .def = "natural",
     MAT(ordering)},
    {.path = "matrices.#.seed", .kind = RT_KEY_CUSTOM_ARG},
    {.path = "matrices.#.metis_parts",
     .kind = RT_KEY_INT,
     .min = 2,
     .max = RT_ORDERING_METIS_MAX_PARTS,
     MAT(metis_parts),
     .check = matrix_metis_parts},

    {.path = "problem", .kind = RT_KEY_CUSTOM, .set = RT_SET_ANY, .read = read_problem},

    {.path = "kernels", ITEMS_OF(rt_kernel_cfg, kernels, n_kernels, loc)},
    TEXT_KEY("kernels.#.name", RT_KEY_TEXT, NULL, KER(name), .has_loc = 1,
             .loc_offset = offsetof(rt_kernel_cfg, name_loc),
             .missing = "missing 'name' (a kernel from `rooftune list`)"),
    {.path = "kernels.#.params", .kind = RT_KEY_CUSTOM, .set = RT_SET_ANY, .read = kernel_params},
    {.path = "kernels.#.constraints",
     .kind = RT_KEY_CUSTOM,
     .set = RT_SET_ITEMS,
     .read = kernel_constraints},
    CHOICE_KEY("kernels.#.parallel", RT_KEY_ENUM, kernel_parallel_modes, "search", KER(parallel)),
    TEXT_KEY("kernels.#.abort_group", RT_KEY_NAME, NULL, KER(abort_group), .has_loc = 1,
             .loc_offset = offsetof(rt_kernel_cfg, abort_group_loc)),

    {.path = "measure", .kind = RT_KEY_MAP, .finish = measure_finish},
    CHOICE_KEY("measure.mode", RT_KEY_ENUM, measure_modes, "hot", CFG(measure.mode)),
    INT_KEY("measure.warmup", 0, MAX_REPS, "2", CFG(measure.warmup)),
    INT_KEY("measure.min_reps", 1, MAX_REPS, "5", CFG(measure.min_reps)),
    INT_KEY("measure.max_reps", 1, MAX_REPS, "100", CFG(measure.max_reps)),
    REAL_KEY("measure.max_time_s", 0, 1, INFINITY, 1, SECONDS_GT_0, "2.0", CFG(measure.max_time_s)),
    REAL_KEY("measure.target_rel_ci", 0, 0, 1, 1, "a relative width >= 0 and < 1 " NO_LIMIT, "0.02",
             CFG(measure.target_rel_ci)),
    REAL_KEY("measure.confidence", 0, 1, 1, 1, "a probability > 0 and < 1 (e.g. 0.95)", "0.95",
             CFG(measure.confidence)),
    REAL_KEY("measure.point_timeout_s", 0, 1, INFINITY, 1, SECONDS_GT_0, "30",
             CFG(measure.point_timeout_s)),
    CHOICE_KEY("measure.stop", RT_KEY_ENUM, rt_criterion_names, "confidence", CFG(measure.stop)),
    REAL_KEY("measure.max_noise", 0, 0, 1, 1,
             "a relative standard deviation >= 0 and < 1 " NO_LIMIT, "0.005",
             CFG(measure.max_noise)),
    REAL_KEY("measure.min_time_s", 0, 0, INFINITY, 1, "a number of seconds >= 0", "0",
             CFG(measure.min_time_s)),
    REAL_KEY("measure.abort_factor", 0, 0, INFINITY, 1, "0 or a factor >= 1", "0",
             CFG(measure.abort_factor), .check = measure_abort_factor),
    INT_KEY("measure.abort_reps", 0, MAX_REPS, "1", CFG(measure.abort_reps)),
    REAL_KEY("measure.compile_timeout_s", 0, 0, INFINITY, 1, "a number of seconds >= 0", "0",
             CFG(measure.compile_timeout_s)),
    TEXT_KEY("measure.energy", RT_KEY_FLAG, NULL, CFG(measure.energy)),
    INT_KEY("measure.compile_ahead", 0, 64, "2", CFG(measure.compile_ahead)),

    {.path = "search", .kind = RT_KEY_MAP},
    /* The strategy table names the strategies (harness/search/rt_strategy_list.h). */
    CHOICE_KEY("search.strategy", RT_KEY_WORD, rt_strategy_names, "exhaustive",
               CFG(search.strategy)),
    INT_KEY("search.budget", 0, INT32_MAX, "0", CFG(search.budget)),
    INT_KEY("search.seed", 0, INT64_MAX, "1", CFG(search.seed)),
    REAL_KEY("search.max_time_s", 0, 0, INFINITY, 1, "seconds >= 0", "0", CFG(search.max_time_s)),
    CHOICE_KEY("search.prune", RT_KEY_ENUM, prune_modes, "none", CFG(search.prune_bound)),
    REAL_KEY("search.stop_within", 0, 0, INFINITY, 1, "a fraction >= 0", "0",
             CFG(search.stop_within), .check = search_stop_within),
    CHOICE_KEY("search.parallel", RT_KEY_ENUM, parallel_modes, "none", CFG(search.parallel),
               .check = search_parallel),
    INT_KEY("search.workers", 0, 4096, "0", CFG(search.workers)),
    {.path = "search.options", .kind = RT_KEY_CUSTOM, .set = RT_SET_ANY, .read = search_options},

    {.path = "counters", .kind = RT_KEY_CUSTOM, .set = RT_SET_ITEMS, .read = read_counters},
    {.path = "user_kernels", .kind = RT_KEY_CUSTOM, .set = RT_SET_ITEMS, .read = read_user_kernels},

    {.path = "plots",
     ITEMS_OF(rt_plot_cfg, plots, n_plots, loc),
     .finish = rt_cfg_plot_finish,
     .unique = rt_cfg_plot_unique},
    CHOICE_KEY("plots.#.type", RT_KEY_WORD, plot_types, "line", PLOT(type)),
    TEXT_KEY("plots.#.x", RT_KEY_TEXT, NULL, PLOT(x), .check = rt_cfg_plot_check_x),
    TEXT_KEY("plots.#.y", RT_KEY_TEXT, NULL, PLOT(y)),
    TEXT_KEY("plots.#.series", RT_KEY_TEXT, NULL, PLOT(series), .flags = RT_KEYF_EMPTY_OK,
             .check = rt_cfg_plot_check_series),
    TEXT_KEY("plots.#.title", RT_KEY_TEXT, NULL, PLOT(title), .flags = RT_KEYF_EMPTY_OK),
    TEXT_KEY("plots.#.name", RT_KEY_NAME, NULL, PLOT(name)),
    TEXT_KEY("plots.#.logx", RT_KEY_FLAG, NULL, PLOT(logx)),
    TEXT_KEY("plots.#.logy", RT_KEY_FLAG, NULL, PLOT(logy)),
    TEXT_KEY("plots.#.baseline", RT_KEY_TEXT, NULL, PLOT(baseline),
             .check = rt_cfg_plot_check_baseline),
    {.path = "plots.#.stack",
     .kind = RT_KEY_CUSTOM,
     .set = RT_SET_SELF | RT_SET_ITEMS,
     .read = rt_cfg_plot_read_stack},
    {.path = "plots.#.where",
     .kind = RT_KEY_CUSTOM,
     .set = RT_SET_ANY,
     .read = rt_cfg_plot_read_where},

    {.path = "expect", .kind = RT_KEY_MAP},
    REAL_KEY("expect.min_efficiency", 0, 0, 1, 0, "a fraction between 0 and 1", NULL,
             CFG(expect_min_efficiency)),
};

_Static_assert(sizeof(rt_measure_mode) == sizeof(int), "ENUM keys fill an int");
_Static_assert(sizeof(rt_parallel_mode) == sizeof(int), "ENUM keys fill an int");
_Static_assert(sizeof(rt_kernel_parallel) == sizeof(int), "ENUM keys fill an int");

/* ---------------------------------------------------------------------------------------------
 * Queries */

const rt_config_key *rt_config_keys(int *n)
{
    *n = N_OF(k_keys);
    return k_keys;
}

const rt_config_key *rt_config_key_find(const char *path)
{
    for (int i = 0; i < N_OF(k_keys); ++i)
        if (strcmp(k_keys[i].path, path) == 0)
            return &k_keys[i];
    return NULL;
}

const char *rt_config_key_name(const rt_config_key *k)
{
    const char *dot = strrchr(k->path, '.');
    return dot ? dot + 1 : k->path;
}

int rt_config_key_under(const rt_config_key *k, const char *prefix)
{
    const size_t len = strlen(prefix);
    if (len == 0)
        return strchr(k->path, '.') == NULL;
    return strncmp(k->path, prefix, len) == 0 && k->path[len] == '.' &&
           strchr(k->path + len + 1, '.') == NULL;
}

int rt_config_key_names(const char *prefix, const char **names, int cap)
{
    int n = 0;
    for (int i = 0; i < N_OF(k_keys) && n < cap; ++i)
        if (rt_config_key_under(&k_keys[i], prefix))
            names[n++] = rt_config_key_name(&k_keys[i]);
    return n;
}

int rt_config_key_set_patterns(char (*out)[RT_CONFIG_PATTERN_MAX], int cap)
{
    static const struct {
        unsigned flag;
        const char *suffix;
    } forms[] = {
        {RT_SET_SELF, ""}, {RT_SET_ITEMS, ".#"}, {RT_SET_ANY, ".**"}, {RT_SET_ITEM_ANY, ".#.**"}};
    int n = 0;
    for (int i = 0; i < N_OF(k_keys); ++i) {
        for (int f = 0; f < N_OF(forms); ++f) {
            if (!(k_keys[i].set & forms[f].flag))
                continue;
            if (n >= cap)
                return -1;
            snprintf(out[n++], RT_CONFIG_PATTERN_MAX, "%s%s", k_keys[i].path, forms[f].suffix);
        }
    }
    return n;
}

/* A bound as the docs write it: integers without a fraction, others as %g. */
static void bound_text(double v, char *buf, size_t len)
{
    snprintf(buf, len, "%g", v);
}

void rt_config_key_type_text(const rt_config_key *k, char *buf, size_t len)
{
    char lo[32], hi[32];
    buf[0] = '\0';
    switch (k->kind) {
    case RT_KEY_INT:
        if (k->max >= INT32_MAX)
            snprintf(buf, len, "integer >= %" PRId64, k->min);
        else
            snprintf(buf, len, "integer from %" PRId64 " to %" PRId64, k->min, k->max);
        break;
    case RT_KEY_REAL:
        bound_text(k->lo, lo, sizeof lo);
        bound_text(k->hi, hi, sizeof hi);
        if (isinf(k->hi))
            snprintf(buf, len, "number %s %s", k->lo_open ? ">" : ">=", lo);
        else
            snprintf(buf, len, "number in %c%s, %s%c", k->lo_open ? '(' : '[', lo, hi,
                     k->hi_open ? ')' : ']');
        break;
    case RT_KEY_ENUM:
    case RT_KEY_WORD: {
        int n = 0;
        const char *const *c = k->choices(&n);
        size_t used = 0;
        for (int i = 0; i < n && used < len; ++i)
            used += (size_t)snprintf(buf + used, len - used, "%s`%s`",
                                     i == 0       ? ""
                                     : i == n - 1 ? " or "
                                                  : ", ",
                                     c[i]);
        break;
    }
    case RT_KEY_TEXT: snprintf(buf, len, "string"); break;
    case RT_KEY_NAME: snprintf(buf, len, "string of `[A-Za-z0-9_.-]`"); break;
    case RT_KEY_FLAG: snprintf(buf, len, "boolean"); break;
    case RT_KEY_MAP: snprintf(buf, len, "map"); break;
    case RT_KEY_ITEMS: snprintf(buf, len, "list of maps"); break;
    case RT_KEY_TREE:
    case RT_KEY_CUSTOM:
    case RT_KEY_CUSTOM_ARG: break; /* their shape is their hook's: the docs describe it in words */
    }
}
