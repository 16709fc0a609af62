#include "rt_config.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_config_tree.h"
#include "rt_expr.h"
#include "rt_ordering.h"
#include "rt_strutil.h"
#include "rt_yaml.h"

/* A sweep axis longer than this is almost certainly a typo in a range (a missing step); the
 * limit turns a silent multi-hour run into an immediate error. */
#define MAX_DOMAIN_VALUES 100000
/* Upper bound for repetition counts: whatever fits the int fields of rt_measure_cfg. */
#define MAX_REPS INT32_MAX

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *const k_top_keys[] = {"experiment", "include", "machine", "matrices",
                                         "problem",    "kernels", "measure", "search",
                                         "counters",   "plots",   "expect",  "user_kernels"};
static const char *const k_experiment_keys[] = {"name", "description"};
static const char *const k_matrix_keys[] = {"name", "generator", "file", "ordering", "metis_parts"};
/* A matrix read from a file takes no generator arguments; `seed` drives ordering: random. */
static const char *const k_file_matrix_keys[] = {"name", "file", "ordering", "seed", "metis_parts"};
static const char *const k_orderings[] = {"natural", "hilbert", "rcm", "random", "metis"};
static const char *const k_kernel_keys[] = {"name", "params", "constraints"};
static const char *const k_domain_keys[] = {"range", "pow2"};
static const char *const k_measure_keys[] = {"mode",       "warmup",         "min_reps",
                                             "max_reps",   "max_time_s",     "target_rel_ci",
                                             "confidence", "point_timeout_s"};
static const char *const k_modes[] = {"hot", "cold"};
static const char *const k_search_keys[] = {"strategy",   "budget", "seed",
                                            "max_time_s", "prune",  "stop_within"};
static const char *const k_prune_modes[] = {"none", "bound"};
static const char *const k_strategies[] = {"exhaustive", "random",   "anneal", "genetic", "diffevo",
                                           "ils",        "basinhop", "pso",    "bayes"};
static const char *const k_plot_keys[] = {"type", "x",    "y",        "series", "title", "name",
                                          "logx", "logy", "baseline", "stack",  "where"};
static const char *const k_plot_types[] = {"line", "bars", "stacked", "box", "heatmap", "scaling"};
static const char *const k_expect_keys[] = {"min_efficiency"};

/* What --set may name (see rt_config_tree.h for the pattern syntax). Open-ended sections
 * (problem, kernel params, generator arguments) take any key; the typed conversion checks them. */
static const rt_config_path_pattern k_set_patterns[] = {
    "experiment.name",
    "experiment.description",
    "machine",
    "matrices.#.**",
    "problem.**",
    "kernels.#.name",
    "kernels.#.params.**",
    "kernels.#.constraints.#",
    "measure.mode",
    "measure.warmup",
    "measure.min_reps",
    "measure.max_reps",
    "measure.max_time_s",
    "measure.target_rel_ci",
    "measure.confidence",
    "measure.point_timeout_s",
    "search.strategy",
    "search.budget",
    "search.seed",
    "search.max_time_s",
    "search.prune",
    "search.stop_within",
    "counters.#",
    "plots.#.type",
    "plots.#.x",
    "plots.#.y",
    "plots.#.series",
    "plots.#.title",
    "plots.#.name",
    "plots.#.logx",
    "plots.#.logy",
    "plots.#.baseline",
    "plots.#.where.**",
    "plots.#.stack",
    "plots.#.stack.#",
    "expect.min_efficiency",
};

typedef struct conv {
    rt_config *cfg;
    const rt_config_tree *tree;
    rt_err *err;
} conv;

/* ------------------------------------------------------------------------------------------ */
/* Locations and messages */

static void loc_set(rt_src_loc *loc, const char *file, int line, int col)
{
    snprintf(loc->file, sizeof loc->file, "%s", file);
    loc->line = line;
    loc->col = col;
}

static void loc_of(const rt_yaml_node *n, rt_src_loc *loc)
{
    loc_set(loc, n->file, n->line, n->col);
}

static void loc_of_key(const rt_yaml_node *map, int i, rt_src_loc *loc)
{
    const char *file;
    int line, col;
    rt_yaml_key_pos(map, i, &file, &line, &col);
    loc_set(loc, file, line, col);
}

void rt_src_loc_format(const rt_src_loc *loc, char *buf, size_t len)
{
    snprintf(buf, len, "%s:%d:%d", loc->file, loc->line, loc->col);
}

static int fail_at(rt_err *err, const char *file, int line, int col, const char *path,
                   const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static int fail_at(rt_err *err, const char *file, int line, int col, const char *path,
                   const char *fmt, ...)
{
    char what[RT_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return rt_err_set(err, "%s:%d:%d: %s: %s", file, line, col, path, what);
}

#define FAIL(err, node, path, ...)                                                                 \
    fail_at(err, (node)->file, (node)->line, (node)->col, path, __VA_ARGS__)

static void describe(const rt_yaml_node *n, char *buf, size_t len)
{
    if (n->kind == RT_YAML_SEQ)
        snprintf(buf, len, "a list");
    else
        rt_yaml_describe(n, buf, len);
}

static int expect_kind(const rt_yaml_node *n, const char *path, rt_yaml_kind kind, rt_err *err)
{
    if (n->kind == kind)
        return 0;
    char got[96];
    describe(n, got, sizeof got);
    return FAIL(err, n, path, "expected %s, got %s",
                kind == RT_YAML_MAP   ? "a map"
                : kind == RT_YAML_SEQ ? "a list"
                                      : "a single value",
                got);
}

static int check_keys(const rt_yaml_node *map, const char *path, const char *const *allowed, int n,
                      rt_err *err)
{
    if (expect_kind(map, path, RT_YAML_MAP, err) != 0)
        return -1;
    return rt_yaml_check_keys(map, path, allowed, n, err);
}

/* ------------------------------------------------------------------------------------------ */
/* Typed scalars */

static int read_int(const rt_yaml_node *n, const char *path, int64_t lo, int64_t hi, int64_t *out,
                    rt_err *err)
{
    int64_t v;
    const int parsed = n->kind == RT_YAML_SCALAR && rt_yaml_parse_int(n->scalar, &v) == 0;
    if (parsed && v >= lo && v <= hi) {
        *out = v;
        return 0;
    }
    char got[96];
    describe(n, got, sizeof got);
    /* Upper bounds of 2^31 and beyond only guard the int fields: name them only when hit. */
    if (hi >= INT32_MAX && !(parsed && v > hi))
        return FAIL(err, n, path, "expected an integer >= %" PRId64 ", got %s", lo, got);
    return FAIL(err, n, path, "expected an integer between %" PRId64 " and %" PRId64 ", got %s", lo,
                hi, got);
}

/* A number in (lo, hi) or [lo, hi] per the inclusive flags; `expected` phrases the range. */
static int read_real(const rt_yaml_node *n, const char *path, double lo, int lo_incl, double hi,
                     int hi_incl, const char *expected, double *out, rt_err *err)
{
    double v;
    if (n->kind == RT_YAML_SCALAR && rt_yaml_parse_real(n->scalar, &v) == 0 &&
        (lo_incl ? v >= lo : v > lo) && (hi_incl ? v <= hi : v < hi)) {
        *out = v;
        return 0;
    }
    char got[96];
    describe(n, got, sizeof got);
    return FAIL(err, n, path, "expected %s, got %s", expected, got);
}

static int read_text(const rt_yaml_node *n, const char *path, int allow_empty, char *buf,
                     size_t len, rt_err *err)
{
    if (n->kind != RT_YAML_SCALAR || (!allow_empty && n->scalar[0] == '\0')) {
        char got[96];
        describe(n, got, sizeof got);
        return FAIL(err, n, path, "expected %s, got %s",
                    allow_empty ? "a string" : "a non-empty string", got);
    }
    if (strlen(n->scalar) >= len)
        return FAIL(err, n, path, "is longer than %zu characters", len - 1);
    snprintf(buf, len, "%s", n->scalar);
    return 0;
}

static int read_choice(const rt_yaml_node *n, const char *path, const char *const *choices,
                       int n_choices, char *buf, size_t len, rt_err *err)
{
    if (n->kind == RT_YAML_SCALAR) {
        for (int i = 0; i < n_choices; ++i) {
            if (strcmp(n->scalar, choices[i]) == 0) {
                snprintf(buf, len, "%s", choices[i]);
                return 0;
            }
        }
    }
    char list[256] = "";
    size_t used = 0;
    for (int i = 0; i < n_choices && used < sizeof list; ++i)
        used +=
            (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", choices[i]);
    char got[96];
    describe(n, got, sizeof got);
    const char *hint = n->kind == RT_YAML_SCALAR ? rt_suggest(n->scalar, choices, n_choices) : NULL;
    if (hint)
        return FAIL(err, n, path, "expected one of %s, got %s (did you mean '%s'?)", list, got,
                    hint);
    return FAIL(err, n, path, "expected one of %s, got %s", list, got);
}

static int read_bool(const rt_yaml_node *n, const char *path, int *out, rt_err *err)
{
    if (rt_yaml_get_bool(n, path, out, err) == 0)
        return 0;
    char got[96];
    describe(n, got, sizeof got);
    return FAIL(err, n, path, "expected true or false, got %s", got);
}

static int is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
}

/* Experiment, matrix and plot names end up in file names and SQL rows: keep them plain. */
static int valid_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; ++s)
        if (!is_name_char(*s))
            return 0;
    return 1;
}

static int read_name(const rt_yaml_node *n, const char *path, char *buf, size_t len, rt_err *err)
{
    if (read_text(n, path, 0, buf, len, err) != 0)
        return -1;
    if (!valid_name(buf))
        return FAIL(err, n, path, "'%s' may contain only letters, digits, '_', '.' and '-'", buf);
    return 0;
}

/* Infers the kind of a value written in YAML: quoted -> string, else integer, real or word. */
static int read_value(const rt_yaml_node *n, const char *path, rt_value *out, rt_err *err)
{
    if (n->kind != RT_YAML_SCALAR || (!n->quoted && n->scalar[0] == '\0')) {
        char got[96];
        describe(n, got, sizeof got);
        return FAIL(err, n, path, "expected a value (a number or a word), got %s", got);
    }
    int64_t i;
    double r;
    if (!n->quoted && rt_yaml_parse_int(n->scalar, &i) == 0) {
        *out = rt_value_int(i);
        return 0;
    }
    if (!n->quoted && rt_yaml_parse_real(n->scalar, &r) == 0) {
        *out = rt_value_real(r);
        return 0;
    }
    if (strlen(n->scalar) >= RT_STR_MAX)
        return FAIL(err, n, path, "value is longer than %d characters", RT_STR_MAX - 1);
    *out = rt_value_str(n->scalar);
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Domains */

static int alloc_values(rt_param_domain *d, int64_t n, const rt_yaml_node *at, const char *path,
                        rt_err *err)
{
    if (n > MAX_DOMAIN_VALUES)
        return FAIL(err, at, path,
                    "expands to %" PRId64 " values (at most %d); check the bounds "
                    "and the step",
                    n, MAX_DOMAIN_VALUES);
    d->values = calloc((size_t)n, sizeof *d->values);
    if (!d->values)
        return FAIL(err, at, path, "out of memory for %" PRId64 " values", n);
    d->n_values = (int)n;
    return 0;
}

/* 32 and 32.0 are one point of the sweep; "32" (quoted, a string) is another. */
static int same_value(const rt_value *a, const rt_value *b)
{
    if (a->kind != RT_V_STR && b->kind != RT_V_STR)
        return rt_value_as_double(a) == rt_value_as_double(b);
    return rt_value_equal(a, b);
}

static int domain_list(const rt_yaml_node *node, const char *path, rt_param_domain *d, rt_err *err)
{
    d->kind = RT_DOMAIN_LIST;
    if (node->kind == RT_YAML_SCALAR) {
        if (alloc_values(d, 1, node, path, err) != 0)
            return -1;
        return read_value(node, path, &d->values[0], err);
    }
    if (node->n == 0)
        return FAIL(err, node, path, "the list is empty: give at least one value");
    if (alloc_values(d, node->n, node, path, err) != 0)
        return -1;
    for (int i = 0; i < node->n; ++i) {
        char item_path[320];
        snprintf(item_path, sizeof item_path, "%s[%d]", path, i);
        if (read_value(node->items[i], item_path, &d->values[i], err) != 0)
            return -1;
        for (int j = 0; j < i; ++j) {
            if (same_value(&d->values[j], &d->values[i])) {
                char shown[2 * RT_STR_MAX];
                rt_value_format(&d->values[i], shown, sizeof shown);
                return FAIL(err, node->items[i], item_path,
                            "value %s is listed twice (also at "
                            "%s[%d])",
                            shown, path, j);
            }
        }
    }
    return 0;
}

/* The numbers of a {range: [...]} or {pow2: [...]} list. */
static int bounds_list(const rt_yaml_node *seq, const char *path, int min_n, int max_n,
                       const char *shape, rt_err *err)
{
    if (seq->kind != RT_YAML_SEQ || seq->n < min_n || seq->n > max_n) {
        char got[96];
        if (seq->kind == RT_YAML_SEQ)
            snprintf(got, sizeof got, "a list of %d value%s", seq->n, seq->n == 1 ? "" : "s");
        else
            describe(seq, got, sizeof got);
        return FAIL(err, seq, path, "expected %s, got %s", shape, got);
    }
    return 0;
}

static int domain_range(const rt_yaml_node *seq, const char *path, rt_param_domain *d, rt_err *err)
{
    if (bounds_list(seq, path, 2, 3, "[lo, hi] or [lo, hi, step]", err) != 0)
        return -1;
    double v[3] = {0, 0, 1};
    int64_t iv[3] = {0, 0, 1};
    int integral = 1;
    static const char *const names[] = {"lo", "hi", "step"};
    for (int i = 0; i < seq->n; ++i) {
        char item_path[320];
        snprintf(item_path, sizeof item_path, "%s[%d] (%s)", path, i, names[i]);
        const rt_yaml_node *it = seq->items[i];
        if (read_real(it, item_path, -HUGE_VAL, 0, HUGE_VAL, 0, "a number", &v[i], err) != 0)
            return -1;
        integral &= rt_yaml_parse_int(it->scalar, &iv[i]) == 0;
    }
    d->kind = RT_DOMAIN_RANGE;
    d->lo = v[0];
    d->hi = v[1];
    d->step = v[2];
    if (!(v[2] > 0))
        return FAIL(err, seq, path, "step must be > 0, got %g", v[2]);
    if (v[0] > v[1])
        return FAIL(err, seq, path, "lo (%g) is greater than hi (%g)", v[0], v[1]);
    if (integral) {
        /* In double first: (hi - lo) in int64 may overflow for extreme bounds. */
        const double count = floor((v[1] - v[0]) / v[2]) + 1;
        if (count > MAX_DOMAIN_VALUES) /* fails with the "expands to" message */
            return alloc_values(d, (int64_t)fmin(count, 9e18), seq, path, err);
        const int64_t n = (iv[1] - iv[0]) / iv[2] + 1;
        if (alloc_values(d, n, seq, path, err) != 0)
            return -1;
        for (int64_t i = 0; i < n; ++i)
            d->values[i] = rt_value_int(iv[0] + i * iv[2]);
        return 0;
    }
    /* Real steps: a relative tolerance keeps hi in the range when (hi - lo) / step is integral
     * but rounds just below (0.1 steps). */
    const double span = (v[1] - v[0]) / v[2];
    const double count = floor(span + 1e-9 * (span > 1 ? span : 1)) + 1;
    if (alloc_values(d, (int64_t)fmin(count, 9e18), seq, path, err) != 0)
        return -1;
    for (int i = 0; i < d->n_values; ++i) {
        double x = v[0] + i * v[2];
        if (x > v[1])
            x = v[1];
        d->values[i] = rt_value_real(x);
    }
    return 0;
}

static int is_pow2_int(int64_t x)
{
    return x >= 1 && (x & (x - 1)) == 0;
}

static int domain_pow2(const rt_yaml_node *seq, const char *path, rt_param_domain *d, rt_err *err)
{
    if (bounds_list(seq, path, 2, 2, "[lo, hi]", err) != 0)
        return -1;
    int64_t b[2];
    static const char *const names[] = {"lo", "hi"};
    for (int i = 0; i < 2; ++i) {
        char item_path[320];
        snprintf(item_path, sizeof item_path, "%s[%d] (%s)", path, i, names[i]);
        const rt_yaml_node *it = seq->items[i];
        if (read_int(it, item_path, 1, INT64_MAX, &b[i], err) != 0)
            return -1;
        if (!is_pow2_int(b[i]))
            return FAIL(err, it, item_path, "bounds must be powers of two, got %" PRId64, b[i]);
    }
    d->kind = RT_DOMAIN_POW2;
    d->lo = (double)b[0];
    d->hi = (double)b[1];
    d->step = 0;
    if (b[0] > b[1])
        return FAIL(err, seq, path, "lo (%" PRId64 ") is greater than hi (%" PRId64 ")", b[0],
                    b[1]);
    int n = 0;
    for (int64_t x = b[0]; x <= b[1] && x > 0; x *= 2) {
        ++n;
        if (x > INT64_MAX / 2)
            break;
    }
    if (alloc_values(d, n, seq, path, err) != 0)
        return -1;
    int64_t x = b[0];
    for (int i = 0; i < n; ++i) {
        d->values[i] = rt_value_int(x);
        if (i + 1 < n)
            x *= 2;
    }
    return 0;
}

/* Entry i of map is "name: domain". */
static int read_domain(const rt_yaml_node *map, int i, const char *section, rt_param_domain *d,
                       rt_err *err)
{
    const char *name = map->keys[i];
    const rt_yaml_node *node = map->items[i];
    char path[320];
    snprintf(path, sizeof path, "%s.%s", section, name);
    loc_of_key(map, i, &d->loc);
    if (strlen(name) >= RT_NAME_MAX)
        return fail_at(err, d->loc.file, d->loc.line, d->loc.col, path,
                       "parameter name is longer than %d characters", RT_NAME_MAX - 1);
    snprintf(d->name, sizeof d->name, "%s", name);
    if (node->kind != RT_YAML_MAP)
        return domain_list(node, path, d, err);
    if (rt_yaml_check_keys(node, path, k_domain_keys, N_OF(k_domain_keys), err) != 0)
        return -1;
    if (node->n != 1)
        return FAIL(err, node, path,
                    "expected exactly one of {range: [lo, hi, step]} or "
                    "{pow2: [lo, hi]}, got %s",
                    node->n == 0 ? "an empty map" : "both");
    char sub[340];
    snprintf(sub, sizeof sub, "%s.%s", path, node->keys[0]);
    if (strcmp(node->keys[0], "range") == 0)
        return domain_range(node->items[0], sub, d, err);
    return domain_pow2(node->items[0], sub, d, err);
}

static int read_domains(const rt_yaml_node *map, const char *section, rt_param_domain **out,
                        int *n_out, rt_err *err)
{
    if (expect_kind(map, section, RT_YAML_MAP, err) != 0)
        return -1;
    if (map->n == 0)
        return 0;
    *out = calloc((size_t)map->n, sizeof **out);
    if (!*out)
        return FAIL(err, map, section, "out of memory");
    *n_out = map->n;
    for (int i = 0; i < map->n; ++i)
        if (read_domain(map, i, section, &(*out)[i], err) != 0)
            return -1;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Sections */

static int read_experiment(conv *cv, const rt_yaml_node *root)
{
    rt_config *cfg = cv->cfg;
    const rt_yaml_node *ex = rt_yaml_map_get(root, "experiment");
    if (!ex)
        return fail_at(cv->err, root->file, root->line, root->col, "experiment",
                       "missing: every config needs experiment: {name: ...}");
    if (check_keys(ex, "experiment", k_experiment_keys, N_OF(k_experiment_keys), cv->err) != 0)
        return -1;
    const rt_yaml_node *name = rt_yaml_map_get(ex, "name");
    if (!name)
        return FAIL(cv->err, ex, "experiment.name",
                    "missing: name the experiment "
                    "(letters, digits, '_', '.', '-')");
    if (read_name(name, "experiment.name", cfg->name, sizeof cfg->name, cv->err) != 0)
        return -1;
    const rt_yaml_node *desc = rt_yaml_map_get(ex, "description");
    if (desc && read_text(desc, "experiment.description", 1, cfg->description,
                          sizeof cfg->description, cv->err) != 0)
        return -1;
    return 0;
}

static int read_ordering(const rt_yaml_node *n, const char *path, char *buf, size_t len,
                         rt_err *err)
{
    if (n->kind == RT_YAML_SCALAR && strncmp(n->scalar, "random:", 7) == 0) {
        int64_t seed;
        if (rt_yaml_parse_int(n->scalar + 7, &seed) != 0 || seed < 0)
            return FAIL(err, n, path, "expected random:SEED with an integer SEED >= 0, got '%s'",
                        n->scalar);
        return read_text(n, path, 0, buf, len, err);
    }
    return read_choice(n, path, k_orderings, N_OF(k_orderings), buf, len, err);
}

static int read_matrix(conv *cv, const rt_yaml_node *item, int index, rt_matrix_cfg *m)
{
    char path[64];
    snprintf(path, sizeof path, "matrices[%d]", index);
    if (expect_kind(item, path, RT_YAML_MAP, cv->err) != 0)
        return -1;
    loc_of(item, &m->loc);
    snprintf(m->ordering, sizeof m->ordering, "natural");
    rt_params_init(&m->gen);
    const rt_yaml_node *gen = rt_yaml_map_get(item, "generator");
    const rt_yaml_node *file = rt_yaml_map_get(item, "file");
    if (gen && file) {
        const rt_yaml_node *second =
            gen->line > file->line || (gen->line == file->line && gen->col > file->col) ? gen
                                                                                        : file;
        return FAIL(cv->err, second, path, "has both generator: and file:; give exactly one");
    }
    /* A file carries its own shape: keys beyond these would be silently ignored otherwise. */
    if (file &&
        rt_yaml_check_keys(item, path, k_file_matrix_keys, N_OF(k_file_matrix_keys), cv->err) != 0)
        return -1;
    if (!gen && !file) {
        /* Before giving up, look for a misspelt generator:/file: among the other keys. */
        static const char *const sources[] = {"generator", "file"};
        for (int i = 0; i < item->n; ++i) {
            const char *hint = rt_suggest(item->keys[i], sources, 2);
            if (hint && strcmp(item->keys[i], "name") != 0) {
                rt_src_loc at;
                loc_of_key(item, i, &at);
                return fail_at(cv->err, at.file, at.line, at.col, path,
                               "unknown key '%s' (did you mean '%s'?)", item->keys[i], hint);
            }
        }
        return FAIL(cv->err, item, path,
                    "needs generator: NAME (with its arguments) or file: "
                    "PATH (a Matrix Market file)");
    }
    const rt_yaml_node *name = rt_yaml_map_get(item, "name");
    char sub[96];
    snprintf(sub, sizeof sub, "%s.name", path);
    if (!name)
        return FAIL(cv->err, item, path, "missing 'name' (each matrix needs a unique name)");
    if (read_name(name, sub, m->name, sizeof m->name, cv->err) != 0)
        return -1;
    const rt_yaml_node *ord = rt_yaml_map_get(item, "ordering");
    snprintf(sub, sizeof sub, "%s.ordering", path);
    if (ord && read_ordering(ord, sub, m->ordering, sizeof m->ordering, cv->err) != 0)
        return -1;
    /* metis_parts travels inside the ordering text ("metis:PARTS"), so that rt_matrix_build and
     * the store's ordering column carry it without a field of their own. */
    const rt_yaml_node *parts = rt_yaml_map_get(item, "metis_parts");
    if (parts) {
        snprintf(sub, sizeof sub, "%s.metis_parts", path);
        if (strcmp(m->ordering, "metis") != 0)
            return FAIL(cv->err, parts, sub,
                        "applies only to ordering: metis (this matrix has "
                        "ordering: %s)",
                        m->ordering);
        int64_t np;
        if (read_int(parts, sub, 2, RT_ORDERING_METIS_MAX_PARTS, &np, cv->err) != 0)
            return -1;
        snprintf(m->ordering, sizeof m->ordering, "metis:%" PRId64, np);
    }
    if (gen) {
        snprintf(sub, sizeof sub, "%s.generator", path);
        loc_of(gen, &m->source_loc);
        if (read_text(gen, sub, 0, m->generator, sizeof m->generator, cv->err) != 0)
            return -1;
    } else {
        snprintf(sub, sizeof sub, "%s.file", path);
        loc_of(file, &m->source_loc);
        char written[1024], dir[1024];
        if (read_text(file, sub, 0, written, sizeof written, cv->err) != 0)
            return -1;
        const int dir_ok = rt_config_tree_base_dir(cv->tree, file, dir, sizeof dir) == 0;
        const int n = written[0] == '/' || !dir_ok || dir[0] == '\0'
                          ? snprintf(m->file, sizeof m->file, "%s", written)
                          : snprintf(m->file, sizeof m->file, "%s%s%s", dir,
                                     dir[strlen(dir) - 1] == '/' ? "" : "/", written);
        if (n < 0 || (size_t)n >= sizeof m->file)
            return FAIL(cv->err, file, sub, "path is longer than %zu characters",
                        sizeof m->file - 1);
    }
    /* Every other key is an argument of the generator (or `seed` for a file's random order);
     * the registry check validates names and values against the generator's schema. */
    for (int i = 0; i < item->n; ++i) {
        int fixed = 0;
        for (int k = 0; k < N_OF(k_matrix_keys) && !fixed; ++k)
            fixed = strcmp(item->keys[i], k_matrix_keys[k]) == 0;
        if (fixed)
            continue;
        snprintf(sub, sizeof sub, "%s.%s", path, item->keys[i]);
        rt_value v;
        if (read_value(item->items[i], sub, &v, cv->err) != 0)
            return -1;
        rt_src_loc at;
        loc_of_key(item, i, &at);
        if (rt_params_set(&m->gen, item->keys[i], v, cv->err) != 0)
            return rt_err_prefix(cv->err, "%s:%d:%d: %s", at.file, at.line, at.col, sub);
        m->gen_locs[m->gen.n - 1] = at;
    }
    return 0;
}

static int read_matrices(conv *cv, const rt_yaml_node *seq)
{
    rt_config *cfg = cv->cfg;
    if (expect_kind(seq, "matrices", RT_YAML_SEQ, cv->err) != 0)
        return -1;
    if (seq->n == 0)
        return 0;
    cfg->matrices = calloc((size_t)seq->n, sizeof *cfg->matrices);
    if (!cfg->matrices)
        return FAIL(cv->err, seq, "matrices", "out of memory");
    cfg->n_matrices = seq->n;
    for (int i = 0; i < seq->n; ++i) {
        if (read_matrix(cv, seq->items[i], i, &cfg->matrices[i]) != 0)
            return -1;
        for (int j = 0; j < i; ++j) {
            if (strcmp(cfg->matrices[j].name, cfg->matrices[i].name) == 0) {
                char path[64];
                snprintf(path, sizeof path, "matrices[%d].name", i);
                return FAIL(cv->err, rt_yaml_map_get(seq->items[i], "name"), path,
                            "'%s' is already the name of matrices[%d] (line %d); matrix names "
                            "must be unique",
                            cfg->matrices[i].name, j, cfg->matrices[j].loc.line);
            }
        }
    }
    return 0;
}

static int read_constraints(conv *cv, const rt_yaml_node *seq, const char *kpath, rt_kernel_cfg *k)
{
    char path[160];
    snprintf(path, sizeof path, "%s.constraints", kpath);
    if (expect_kind(seq, path, RT_YAML_SEQ, cv->err) != 0)
        return -1;
    if (seq->n == 0)
        return 0;
    k->constraints = calloc((size_t)seq->n, sizeof *k->constraints);
    k->constraint_locs = calloc((size_t)seq->n, sizeof *k->constraint_locs);
    if (!k->constraints || !k->constraint_locs)
        return FAIL(cv->err, seq, path, "out of memory");
    k->n_constraints = seq->n;
    for (int i = 0; i < seq->n; ++i) {
        const rt_yaml_node *c = seq->items[i];
        char cpath[200];
        snprintf(cpath, sizeof cpath, "%s[%d]", path, i);
        loc_of(c, &k->constraint_locs[i]);
        if (read_text(c, cpath, 0, k->constraints[i], sizeof k->constraints[i], cv->err) != 0)
            return -1;
        /* Syntax is checked here, without the registry, so `validate` catches it anywhere;
         * identifiers are checked against the kernel's schema by rt_config_check. */
        rt_expr *e;
        rt_err why;
        if (rt_expr_parse(k->constraints[i], &e, &why) != 0)
            return FAIL(cv->err, c, cpath, "syntax error: %s", why.msg);
        rt_expr_free(e);
    }
    return 0;
}

static int read_kernel(conv *cv, const rt_yaml_node *item, int index, rt_kernel_cfg *k)
{
    char path[64];
    snprintf(path, sizeof path, "kernels[%d]", index);
    if (check_keys(item, path, k_kernel_keys, N_OF(k_kernel_keys), cv->err) != 0)
        return -1;
    loc_of(item, &k->loc);
    const rt_yaml_node *name = rt_yaml_map_get(item, "name");
    if (!name)
        return FAIL(cv->err, item, path, "missing 'name' (a kernel from `rooftune list`)");
    char sub[96];
    snprintf(sub, sizeof sub, "%s.name", path);
    loc_of(name, &k->name_loc);
    if (read_text(name, sub, 0, k->name, sizeof k->name, cv->err) != 0)
        return -1;
    const rt_yaml_node *params = rt_yaml_map_get(item, "params");
    snprintf(sub, sizeof sub, "%s.params", path);
    if (params && read_domains(params, sub, &k->params, &k->n_params, cv->err) != 0)
        return -1;
    const rt_yaml_node *cons = rt_yaml_map_get(item, "constraints");
    if (cons && read_constraints(cv, cons, path, k) != 0)
        return -1;
    return 0;
}

static int read_kernels(conv *cv, const rt_yaml_node *seq)
{
    rt_config *cfg = cv->cfg;
    if (expect_kind(seq, "kernels", RT_YAML_SEQ, cv->err) != 0)
        return -1;
    if (seq->n == 0)
        return 0;
    cfg->kernels = calloc((size_t)seq->n, sizeof *cfg->kernels);
    if (!cfg->kernels)
        return FAIL(cv->err, seq, "kernels", "out of memory");
    cfg->n_kernels = seq->n;
    for (int i = 0; i < seq->n; ++i)
        if (read_kernel(cv, seq->items[i], i, &cfg->kernels[i]) != 0)
            return -1;
    return 0;
}

static int read_measure(conv *cv, const rt_yaml_node *map)
{
    rt_measure_cfg *m = &cv->cfg->measure;
    rt_err *err = cv->err;
    if (check_keys(map, "measure", k_measure_keys, N_OF(k_measure_keys), err) != 0)
        return -1;
    const rt_yaml_node *n;
    int64_t v;
    if ((n = rt_yaml_map_get(map, "mode")) &&
        read_choice(n, "measure.mode", k_modes, N_OF(k_modes), m->mode, sizeof m->mode, err) != 0)
        return -1;
    if ((n = rt_yaml_map_get(map, "warmup"))) {
        if (read_int(n, "measure.warmup", 0, MAX_REPS, &v, err) != 0)
            return -1;
        m->warmup = (int)v;
    }
    if ((n = rt_yaml_map_get(map, "min_reps"))) {
        if (read_int(n, "measure.min_reps", 1, MAX_REPS, &v, err) != 0)
            return -1;
        m->min_reps = (int)v;
    }
    if ((n = rt_yaml_map_get(map, "max_reps"))) {
        if (read_int(n, "measure.max_reps", 1, MAX_REPS, &v, err) != 0)
            return -1;
        m->max_reps = (int)v;
    }
    if ((n = rt_yaml_map_get(map, "max_time_s")) &&
        read_real(n, "measure.max_time_s", 0, 0, HUGE_VAL, 0, "a number of seconds > 0",
                  &m->max_time_s, err) != 0)
        return -1;
    if ((n = rt_yaml_map_get(map, "target_rel_ci")) &&
        read_real(n, "measure.target_rel_ci", 0, 1, 1, 0,
                  "a relative width >= 0 and < 1 (0 = always run to max_reps or max_time_s)",
                  &m->target_rel_ci, err) != 0)
        return -1;
    if ((n = rt_yaml_map_get(map, "confidence")) &&
        read_real(n, "measure.confidence", 0, 0, 1, 0, "a probability > 0 and < 1 (e.g. 0.95)",
                  &m->confidence, err) != 0)
        return -1;
    if ((n = rt_yaml_map_get(map, "point_timeout_s")) &&
        read_real(n, "measure.point_timeout_s", 0, 0, HUGE_VAL, 0, "a number of seconds > 0",
                  &m->point_timeout_s, err) != 0)
        return -1;
    if (m->max_reps < m->min_reps) {
        const rt_yaml_node *max_n = rt_yaml_map_get(map, "max_reps");
        const rt_yaml_node *min_n = rt_yaml_map_get(map, "min_reps");
        if (max_n)
            return FAIL(err, max_n, "measure.max_reps",
                        "must be >= measure.min_reps (%d), "
                        "got %d",
                        m->min_reps, m->max_reps);
        return FAIL(err, min_n, "measure.min_reps",
                    "must be <= measure.max_reps (%d, the "
                    "default), got %d",
                    m->max_reps, m->min_reps);
    }
    return 0;
}

static int read_search(conv *cv, const rt_yaml_node *map)
{
    rt_search_cfg *s = &cv->cfg->search;
    rt_err *err = cv->err;
    if (check_keys(map, "search", k_search_keys, N_OF(k_search_keys), err) != 0)
        return -1;
    const rt_yaml_node *n;
    int64_t v;
    if ((n = rt_yaml_map_get(map, "strategy")) &&
        read_choice(n, "search.strategy", k_strategies, N_OF(k_strategies), s->strategy,
                    sizeof s->strategy, err) != 0)
        return -1;
    if ((n = rt_yaml_map_get(map, "budget"))) {
        if (read_int(n, "search.budget", 0, INT32_MAX, &v, err) != 0)
            return -1;
        s->budget = (int)v;
    }
    if ((n = rt_yaml_map_get(map, "seed"))) {
        if (read_int(n, "search.seed", 0, INT64_MAX, &v, err) != 0)
            return -1;
        s->seed = (uint64_t)v;
    }
    if ((n = rt_yaml_map_get(map, "max_time_s")) &&
        read_real(n, "search.max_time_s", 0, 1, INFINITY, 0, "seconds >= 0", &s->max_time_s, err) !=
            0)
        return -1;
    if ((n = rt_yaml_map_get(map, "prune"))) {
        char mode[8];
        if (read_choice(n, "search.prune", k_prune_modes, N_OF(k_prune_modes), mode, sizeof mode,
                        err) != 0)
            return -1;
        s->prune_bound = strcmp(mode, "bound") == 0;
    }
    if ((n = rt_yaml_map_get(map, "stop_within"))) {
        if (read_real(n, "search.stop_within", 0, 1, INFINITY, 0, "a fraction >= 0",
                      &s->stop_within, err) != 0)
            return -1;
        /* The stop rule compares the best time with its bound: without pruning nothing would
         * compute bounds during the search, so it would silently never fire. */
        if (s->stop_within > 0 && !s->prune_bound)
            return FAIL(err, n, "search.stop_within",
                        "needs search.prune: bound (the stop rule reads the bounds pruning "
                        "computes)");
    }
    return 0;
}

static int read_counters(conv *cv, const rt_yaml_node *seq)
{
    rt_config *cfg = cv->cfg;
    if (expect_kind(seq, "counters", RT_YAML_SEQ, cv->err) != 0)
        return -1;
    if (seq->n == 0)
        return 0;
    cfg->counters = calloc((size_t)seq->n, sizeof *cfg->counters);
    if (!cfg->counters)
        return FAIL(cv->err, seq, "counters", "out of memory");
    cfg->n_counters = seq->n;
    for (int i = 0; i < seq->n; ++i) {
        char path[48];
        snprintf(path, sizeof path, "counters[%d]", i);
        if (read_text(seq->items[i], path, 0, cfg->counters[i], sizeof cfg->counters[i], cv->err) !=
            0)
            return -1;
        for (int j = 0; j < i; ++j)
            if (strcmp(cfg->counters[j], cfg->counters[i]) == 0)
                return FAIL(cv->err, seq->items[i], path,
                            "'%s' is listed twice (also "
                            "counters[%d])",
                            cfg->counters[i], j);
    }
    return 0;
}

/* where: {FIELD: VALUE or [VALUES], ...}: the figure draws only the points that meet every
 * condition (a figure of one kernel among several in the run, say). The fields are resolved
 * against the store when the figure is drawn, as x and series are. */
static int read_plot_where(const rt_yaml_node *n, const char *path, rt_plot_cfg *p, rt_err *err)
{
    if (expect_kind(n, path, RT_YAML_MAP, err) != 0)
        return -1;
    if (n->n < 1 || n->n > RT_PLOT_WHERE_MAX)
        return FAIL(err, n, path, "expected 1 to %d fields to restrict, got %d", RT_PLOT_WHERE_MAX,
                    n->n);
    for (int i = 0; i < n->n; ++i) {
        rt_plot_where *w = &p->where[i];
        char field_path[128];
        snprintf(field_path, sizeof field_path, "%s.%s", path, n->keys[i]);
        if (n->keys[i][0] == '\0' || strlen(n->keys[i]) >= sizeof w->field)
            return FAIL(err, n->items[i], field_path, "a field name must have 1 to %zu characters",
                        sizeof w->field - 1);
        snprintf(w->field, sizeof w->field, "%s", n->keys[i]);
        const rt_yaml_node *v = n->items[i];
        const int one = v->kind == RT_YAML_SCALAR;
        if (!one && expect_kind(v, field_path, RT_YAML_SEQ, err) != 0)
            return -1;
        const int count = one ? 1 : v->n;
        if (count < 1 || count > RT_PLOT_WHERE_VALUES)
            return FAIL(err, v, field_path, "expected 1 to %d values, got %d", RT_PLOT_WHERE_VALUES,
                        count);
        for (int k = 0; k < count; ++k) {
            char item_path[160];
            snprintf(item_path, sizeof item_path, "%s[%d]", field_path, k);
            if (read_text(one ? v : v->items[k], item_path, 0, w->values[k], sizeof w->values[k],
                          err) != 0)
                return -1;
        }
        w->n_values = count;
    }
    p->n_where = n->n;
    return 0;
}

static int read_plot(conv *cv, const rt_yaml_node *item, int index, rt_plot_cfg *p)
{
    rt_err *err = cv->err;
    char path[48], sub[64];
    snprintf(path, sizeof path, "plots[%d]", index);
    if (check_keys(item, path, k_plot_keys, N_OF(k_plot_keys), err) != 0)
        return -1;
    loc_of(item, &p->loc);
    snprintf(p->type, sizeof p->type, "line");
    const rt_yaml_node *n;
#define PLOT_SUB(key) (snprintf(sub, sizeof sub, "%s.%s", path, key), sub)
    if ((n = rt_yaml_map_get(item, "type")) &&
        read_choice(n, PLOT_SUB("type"), k_plot_types, N_OF(k_plot_types), p->type, sizeof p->type,
                    err) != 0)
        return -1;
    /* Defaults agreed with the plot stage (docs/guides/figures.md): bars, stacked bars and box
     * plots group by matrix, scaling figures run over ranks, y is gflops (scaling: the median time;
     * heatmap: the metric family comm_bytes_<i>_<j>). A heat map draws one point's matrix, so it
     * has no x or series to group by. */
    const int heatmap = strcmp(p->type, "heatmap") == 0;
    const int scaling = strcmp(p->type, "scaling") == 0;
    if ((n = rt_yaml_map_get(item, "x"))) {
        if (heatmap)
            return FAIL(err, n, PLOT_SUB("x"),
                        "a heatmap has no x (y names its metric family, "
                        "e.g. comm_bytes for comm_bytes_<i>_<j>)");
        if (read_text(n, PLOT_SUB("x"), 0, p->x, sizeof p->x, err) != 0)
            return -1;
    } else if (scaling) {
        snprintf(p->x, sizeof p->x, "ranks");
    } else if (strcmp(p->type, "line") != 0 && !heatmap) {
        snprintf(p->x, sizeof p->x, "matrix");
    } else if (!heatmap) {
        return FAIL(err, item, path,
                    "missing 'x' (the column on the horizontal axis, e.g. "
                    "row_block or K)");
    }
    snprintf(p->y, sizeof p->y, "%s",
             scaling   ? "time_median_s"
             : heatmap ? "comm_bytes"
                       : "gflops");
    if ((n = rt_yaml_map_get(item, "y")) &&
        read_text(n, PLOT_SUB("y"), 0, p->y, sizeof p->y, err) != 0)
        return -1;
    if ((n = rt_yaml_map_get(item, "series"))) {
        if (heatmap)
            return FAIL(err, n, PLOT_SUB("series"),
                        "a heatmap has no series (it draws the "
                        "matrix of one point)");
        if (read_text(n, PLOT_SUB("series"), 1, p->series, sizeof p->series, err) != 0)
            return -1;
    }
    if ((n = rt_yaml_map_get(item, "baseline"))) {
        if (strcmp(p->type, "bars") != 0)
            return FAIL(err, n, PLOT_SUB("baseline"),
                        "only bars take a baseline (the series "
                        "value that speedups are relative to)");
        if (read_text(n, PLOT_SUB("baseline"), 0, p->baseline, sizeof p->baseline, err) != 0)
            return -1;
        if (!p->series[0])
            return FAIL(err, n, PLOT_SUB("baseline"),
                        "a baseline names a series value, so the "
                        "plot needs a series (e.g. series: kernel)");
    }
    if ((n = rt_yaml_map_get(item, "stack"))) {
        if (strcmp(p->type, "stacked") != 0)
            return FAIL(err, n, PLOT_SUB("stack"), "only stacked figures take a stack list");
        /* One value or a list of them, bottom segment first. */
        const int one = n->kind == RT_YAML_SCALAR;
        if (!one && expect_kind(n, PLOT_SUB("stack"), RT_YAML_SEQ, err) != 0)
            return -1;
        const int count = one ? 1 : n->n;
        if (count < 1 || count > RT_PLOT_STACK_MAX)
            return FAIL(err, n, PLOT_SUB("stack"), "expected 1 to %d values to stack, got %d",
                        RT_PLOT_STACK_MAX, count);
        for (int i = 0; i < count; ++i) {
            char item_path[80];
            snprintf(item_path, sizeof item_path, "%s.stack[%d]", path, i);
            if (read_text(one ? n : n->items[i], item_path, 0, p->stack[i], sizeof p->stack[i],
                          err) != 0)
                return -1;
            for (int j = 0; j < i; ++j)
                if (strcmp(p->stack[j], p->stack[i]) == 0)
                    return FAIL(err, one ? n : n->items[i], item_path,
                                "'%s' is listed twice (also stack[%d])", p->stack[i], j);
        }
        p->n_stack = count;
    } else if (strcmp(p->type, "stacked") == 0) {
        return FAIL(err, item, path,
                    "a stacked figure needs 'stack' (the values stacked in "
                    "each bar, e.g. [compute_s, comm_s])");
    }
    if ((n = rt_yaml_map_get(item, "where")) && read_plot_where(n, PLOT_SUB("where"), p, err) != 0)
        return -1;
    if ((n = rt_yaml_map_get(item, "title")) &&
        read_text(n, PLOT_SUB("title"), 1, p->title, sizeof p->title, err) != 0)
        return -1;
    /* Log axes are three-way: absent leaves the choice to the plot stage (0), true forces a
     * log axis (1), false forbids one (-1). */
    int flag;
    if ((n = rt_yaml_map_get(item, "logx"))) {
        if (read_bool(n, PLOT_SUB("logx"), &flag, err) != 0)
            return -1;
        p->logx = flag ? 1 : -1;
    }
    if ((n = rt_yaml_map_get(item, "logy"))) {
        if (read_bool(n, PLOT_SUB("logy"), &flag, err) != 0)
            return -1;
        p->logy = flag ? 1 : -1;
    }
    if ((n = rt_yaml_map_get(item, "name"))) {
        if (read_name(n, PLOT_SUB("name"), p->name, sizeof p->name, err) != 0)
            return -1;
    } else {
        /* The default stem must be a valid name too: replace what the x/y columns may hold. */
        if (p->x[0])
            snprintf(p->name, sizeof p->name, "%s-%s-%s", p->type, p->x, p->y);
        else
            snprintf(p->name, sizeof p->name, "%s-%s", p->type, p->y);
        for (char *c = p->name; *c; ++c)
            if (!is_name_char(*c))
                *c = '_';
    }
#undef PLOT_SUB
    return 0;
}

static int read_plots(conv *cv, const rt_yaml_node *seq)
{
    rt_config *cfg = cv->cfg;
    if (expect_kind(seq, "plots", RT_YAML_SEQ, cv->err) != 0)
        return -1;
    if (seq->n == 0)
        return 0;
    cfg->plots = calloc((size_t)seq->n, sizeof *cfg->plots);
    if (!cfg->plots)
        return FAIL(cv->err, seq, "plots", "out of memory");
    cfg->n_plots = seq->n;
    for (int i = 0; i < seq->n; ++i) {
        if (read_plot(cv, seq->items[i], i, &cfg->plots[i]) != 0)
            return -1;
        for (int j = 0; j < i; ++j) {
            if (strcmp(cfg->plots[j].name, cfg->plots[i].name) == 0) {
                char path[48];
                snprintf(path, sizeof path, "plots[%d].name", i);
                return FAIL(cv->err, seq->items[i], path,
                            "'%s' is already the name of "
                            "plots[%d]; give each plot its own name",
                            cfg->plots[i].name, j);
            }
        }
    }
    return 0;
}

static int read_expect(conv *cv, const rt_yaml_node *map)
{
    if (check_keys(map, "expect", k_expect_keys, N_OF(k_expect_keys), cv->err) != 0)
        return -1;
    const rt_yaml_node *n = rt_yaml_map_get(map, "min_efficiency");
    if (n && read_real(n, "expect.min_efficiency", 0, 1, 1, 1, "a fraction between 0 and 1",
                       &cv->cfg->expect_min_efficiency, cv->err) != 0)
        return -1;
    return 0;
}

/* user_kernels: kernel spec paths as written; the app resolves each against its file's folder. */
static int read_user_kernels(conv *cv, const rt_yaml_node *seq)
{
    rt_config *cfg = cv->cfg;
    if (expect_kind(seq, "user_kernels", RT_YAML_SEQ, cv->err) != 0)
        return -1;
    cfg->user_kernels = calloc((size_t)seq->n + 1, sizeof *cfg->user_kernels);
    cfg->user_kernel_locs = calloc((size_t)seq->n + 1, sizeof *cfg->user_kernel_locs);
    if (!cfg->user_kernels || !cfg->user_kernel_locs)
        return FAIL(cv->err, seq, "user_kernels", "out of memory");
    cfg->n_user_kernels = seq->n;
    for (int i = 0; i < seq->n; ++i) {
        char path[48];
        snprintf(path, sizeof path, "user_kernels[%d]", i);
        loc_of(seq->items[i], &cfg->user_kernel_locs[i]);
        if (read_text(seq->items[i], path, 0, cfg->user_kernels[i], sizeof cfg->user_kernels[i],
                      cv->err) != 0)
            return -1;
    }
    return 0;
}

static void set_defaults(rt_config *cfg)
{
    snprintf(cfg->machine, sizeof cfg->machine, "auto");
    snprintf(cfg->measure.mode, sizeof cfg->measure.mode, "hot");
    cfg->measure.warmup = 2;
    cfg->measure.min_reps = 5;
    cfg->measure.max_reps = 100;
    cfg->measure.max_time_s = 2.0;
    cfg->measure.target_rel_ci = 0.02;
    cfg->measure.confidence = 0.95;
    cfg->measure.point_timeout_s = 30;
    snprintf(cfg->search.strategy, sizeof cfg->search.strategy, "exhaustive");
    cfg->search.budget = 0;
    cfg->search.seed = 1;
    cfg->expect_min_efficiency = NAN;
}

static int convert(conv *cv, const rt_yaml_node *root)
{
    rt_config *cfg = cv->cfg;
    if (check_keys(root, "config", k_top_keys, N_OF(k_top_keys), cv->err) != 0)
        return -1;
    if (read_experiment(cv, root) != 0)
        return -1;
    const rt_yaml_node *n;
    if ((n = rt_yaml_map_get(root, "machine")) &&
        read_text(n, "machine", 0, cfg->machine, sizeof cfg->machine, cv->err) != 0)
        return -1;
    if ((n = rt_yaml_map_get(root, "matrices")) && read_matrices(cv, n) != 0)
        return -1;
    if ((n = rt_yaml_map_get(root, "problem")) &&
        read_domains(n, "problem", &cfg->problem, &cfg->n_problem, cv->err) != 0)
        return -1;
    if ((n = rt_yaml_map_get(root, "kernels")) && read_kernels(cv, n) != 0)
        return -1;
    if ((n = rt_yaml_map_get(root, "measure")) && read_measure(cv, n) != 0)
        return -1;
    if ((n = rt_yaml_map_get(root, "search")) && read_search(cv, n) != 0)
        return -1;
    if ((n = rt_yaml_map_get(root, "counters")) && read_counters(cv, n) != 0)
        return -1;
    if ((n = rt_yaml_map_get(root, "plots")) && read_plots(cv, n) != 0)
        return -1;
    if ((n = rt_yaml_map_get(root, "expect")) && read_expect(cv, n) != 0)
        return -1;
    if ((n = rt_yaml_map_get(root, "user_kernels")) && read_user_kernels(cv, n) != 0)
        return -1;
    return 0;
}

int rt_config_load(const char *path, const char *const *overrides, int n_overrides, rt_config *cfg,
                   rt_err *err)
{
    memset(cfg, 0, sizeof *cfg);
    set_defaults(cfg);
    if (!path)
        return rt_err_set(err, "no config file given");
    if (strlen(path) >= sizeof cfg->path)
        return rt_err_set(err, "config path is longer than %zu characters", sizeof cfg->path - 1);
    snprintf(cfg->path, sizeof cfg->path, "%s", path);
    if (n_overrides < 0 || (n_overrides > 0 && !overrides))
        return rt_err_set(err, "rt_config_load: bad override list");
    rt_config_tree tree;
    if (rt_config_tree_load(path, overrides, n_overrides, k_set_patterns, N_OF(k_set_patterns),
                            &tree, err) != 0)
        return -1;
    conv cv = {cfg, &tree, err};
    const int rc = convert(&cv, tree.root);
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
    free(cfg->plots);
    free(cfg->user_kernels);
    free(cfg->user_kernel_locs);
    memset(cfg, 0, sizeof *cfg);
    cfg->expect_min_efficiency = NAN;
}
