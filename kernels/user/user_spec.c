#define _POSIX_C_SOURCE 200809L
#include "user_spec.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_strutil.h"
#include "rt_yaml.h"

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *const k_top_keys[] = {"family",    "summary",   "problem",
                                         "arguments", "reference", "tolerance",
                                         "flops",     "bytes",     "kernels"};
static const char *const k_problem_keys[] = {"default", "domain", "values"};
static const char *const k_array_keys[] = {"name", "type", "size", "init", "output"};
static const char *const k_scalar_keys[] = {"name", "type", "value"};
static const char *const k_init_keys[] = {"random", "constant", "file"};
static const char *const k_random_keys[] = {"seed", "min", "max"};
static const char *const k_reference_keys[] = {"kernel", "params", "host", "expected"};
static const char *const k_host_keys[] = {"source", "library", "function", "cflags"};
static const char *const k_tolerance_keys[] = {"normwise", "elementwise", "elementwise_abs"};
static const char *const k_kernel_keys[] = {"name",   "source",      "entry", "summary",
                                            "params", "grid",        "block", "shared_bytes",
                                            "bytes",  "constraints", "cflags"};
static const char *const k_param_keys[] = {"values", "range", "default"};

/* What a spec that fails says: "spec.yaml:12:5: arguments[2].type: ...". */
static int fail(rt_err *err, const rt_yaml_node *n, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(rt_err *err, const rt_yaml_node *n, const char *path, const char *fmt, ...)
{
    char what[RT_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return rt_err_set(err, "%s:%d:%d: %s: %s", n->file, n->line, n->col, path, what);
}

static void loc_of(const rt_yaml_node *n, rt_src_loc *loc)
{
    snprintf(loc->file, sizeof loc->file, "%s", n->file);
    loc->line = n->line;
    loc->col = n->col;
}

static int want_kind(const rt_yaml_node *n, rt_yaml_kind kind, const char *path, rt_err *err)
{
    if (n->kind == kind)
        return 0;
    char got[96];
    rt_yaml_describe(n, got, sizeof got);
    return fail(err, n, path, "expected %s, got %s",
                kind == RT_YAML_MAP ? "a map" : (kind == RT_YAML_SEQ ? "a list" : "a single value"),
                got);
}

static int want_keys(const rt_yaml_node *map, const char *path, const char *const *keys, int n,
                     rt_err *err)
{
    if (want_kind(map, RT_YAML_MAP, path, err) != 0)
        return -1;
    return rt_yaml_check_keys(map, path, keys, n, err);
}

static int get_text(const rt_yaml_node *n, const char *path, char *buf, size_t len, rt_err *err)
{
    if (want_kind(n, RT_YAML_SCALAR, path, err) != 0)
        return -1;
    if (n->scalar[0] == '\0')
        return fail(err, n, path, "is empty");
    if (strlen(n->scalar) >= len)
        return fail(err, n, path, "is longer than %zu characters", len - 1);
    snprintf(buf, len, "%s", n->scalar);
    return 0;
}

static int get_number(const rt_yaml_node *n, const char *path, double *out, rt_err *err)
{
    if (n->kind == RT_YAML_SCALAR && rt_yaml_parse_real(n->scalar, out) == 0)
        return 0;
    char got[96];
    rt_yaml_describe(n, got, sizeof got);
    return fail(err, n, path, "expected a number, got %s", got);
}

/* A C identifier: names become -D macros, C arguments and expression identifiers. */
static int is_identifier(const char *s)
{
    if (!(isalpha((unsigned char)*s) || *s == '_'))
        return 0;
    for (++s; *s; ++s)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return 0;
    return 1;
}

static int get_identifier(const rt_yaml_node *n, const char *path, char *buf, size_t len,
                          rt_err *err)
{
    if (get_text(n, path, buf, len, err) != 0)
        return -1;
    if (!is_identifier(buf))
        return fail(err, n, path,
                    "'%s' is not a name (letters, digits and '_', not starting with "
                    "a digit)",
                    buf);
    return 0;
}

/* A path written in the spec, relative to the spec's folder. */
static int get_path(const user_spec *s, const rt_yaml_node *n, const char *path, char *buf,
                    size_t len, rt_err *err)
{
    char written[USER_PATH_MAX];
    if (get_text(n, path, written, sizeof written, err) != 0)
        return -1;
    const int w = written[0] == '/' || s->dir[0] == '\0'
                      ? snprintf(buf, len, "%s", written)
                      : snprintf(buf, len, "%s/%s", s->dir, written);
    if (w < 0 || (size_t)w >= len)
        return fail(err, n, path, "the path is longer than %zu characters", len - 1);
    return 0;
}

/* A data file or library the spec names: it must be readable now, so `validate` says so. */
static int get_file(const user_spec *s, const rt_yaml_node *n, const char *path, char *buf,
                    size_t len, rt_err *err)
{
    if (get_path(s, n, path, buf, len, err) != 0)
        return -1;
    if (access(buf, R_OK) != 0)
        return fail(err, n, path, "cannot read '%s': %s", buf, strerror(errno));
    return 0;
}

static int read_source(const rt_yaml_node *n, const char *path, const char *file, char **text,
                       rt_err *err)
{
    size_t len;
    rt_err why;
    if (rt_yaml_read_file(file, text, &len, &why) != 0)
        return fail(err, n, path, "%s", why.msg);
    return 0;
}

static int get_flags(const rt_yaml_node *n, const char *path, char (*flags)[128], int *count,
                     rt_err *err)
{
    if (want_kind(n, RT_YAML_SEQ, path, err) != 0)
        return -1;
    if (n->n > USER_MAX_FLAGS)
        return fail(err, n, path, "%d flags (at most %d)", n->n, USER_MAX_FLAGS);
    for (int i = 0; i < n->n; ++i) {
        char sub[96];
        snprintf(sub, sizeof sub, "%s[%d]", path, i);
        if (get_text(n->items[i], sub, flags[i], 128, err) != 0)
            return -1;
        if (flags[i][0] != '-')
            return fail(err, n->items[i], sub,
                        "'%s' is not a compiler option (options start with "
                        "'-')",
                        flags[i]);
    }
    *count = n->n;
    return 0;
}

static int parse_expr(user_expr *e, const rt_yaml_node *n, const char *path, rt_err *err)
{
    if (n->kind != RT_YAML_SCALAR || n->scalar[0] == '\0') {
        char got[96];
        rt_yaml_describe(n, got, sizeof got);
        return fail(err, n, path, "expected an expression (a number or e.g. 'n * 4'), got %s", got);
    }
    rt_src_loc loc;
    loc_of(n, &loc);
    return user_expr_parse(e, n->scalar, &loc, path, err);
}

/* ---------------------------------------------------------------------------------------------
 * Problem parameters */

static int read_problem(user_spec *s, const rt_yaml_node *map, rt_err *err)
{
    if (want_kind(map, RT_YAML_MAP, "problem", err) != 0)
        return -1;
    if (map->n > USER_MAX_PROBLEM)
        return fail(err, map, "problem", "%d parameters (at most %d)", map->n, USER_MAX_PROBLEM);
    for (int i = 0; i < map->n; ++i) {
        user_problem_param *p = &s->problem[i];
        const rt_yaml_node *v = map->items[i];
        char path[96];
        snprintf(path, sizeof path, "problem.%s", map->keys[i]);
        loc_of(v, &p->loc);
        if (!is_identifier(map->keys[i]) || strlen(map->keys[i]) >= sizeof p->name)
            return fail(err, v, path, "'%s' is not a parameter name", map->keys[i]);
        if (strcmp(map->keys[i], "spec") == 0)
            return fail(err, v, path,
                        "'spec' is the family's own problem parameter (the spec's "
                        "identity); name yours differently");
        snprintf(p->name, sizeof p->name, "%s", map->keys[i]);
        const rt_yaml_node *def = v;
        if (v->kind == RT_YAML_MAP) {
            if (rt_yaml_check_keys(v, path, k_problem_keys, N_OF(k_problem_keys), err) != 0)
                return -1;
            def = rt_yaml_map_get(v, "default");
            if (!def)
                return fail(err, v, path,
                            "missing 'default' (the value when a config gives "
                            "none)");
            const rt_yaml_node *dom = rt_yaml_map_get(v, "domain");
            const rt_yaml_node *vals = rt_yaml_map_get(v, "values");
            if (dom && vals)
                return fail(err, vals, path, "give 'domain' or 'values', not both");
            if (dom && get_text(dom, path, p->domain, sizeof p->domain, err) != 0)
                return -1;
            if (vals) {
                if (want_kind(vals, RT_YAML_SEQ, path, err) != 0)
                    return -1;
                size_t used = 0;
                for (int j = 0; j < vals->n; ++j) {
                    double x;
                    if (get_number(vals->items[j], path, &x, err) != 0)
                        return -1;
                    const int w = snprintf(p->domain + used, sizeof p->domain - used, "%s%s",
                                           j ? "|" : "", vals->items[j]->scalar);
                    if (w < 0 || (size_t)w >= sizeof p->domain - used)
                        return fail(err, vals, path, "too many values to keep");
                    used += (size_t)w;
                }
            }
        }
        double x;
        int64_t iv;
        if (get_number(def, path, &x, err) != 0)
            return -1;
        p->kind = rt_yaml_parse_int(def->scalar, &iv) == 0 ? RT_V_INT : RT_V_REAL;
        snprintf(p->default_value, sizeof p->default_value, "%s", def->scalar);
        rt_param_schema *sc = &s->problem_schema[1 + i];
        *sc = (rt_param_schema){p->name,          p->kind, p->domain,
                                p->default_value, 0,       "problem parameter of the kernel spec"};
        rt_value dv;
        char why[256];
        if (rt_param_default(sc, &dv, err) != 0 || rt_param_check(sc, &dv, why, sizeof why) != 0)
            return fail(err, def, path, "the default fails its own domain: %s", why);
        s->n_problem = i + 1;
    }
    return 0;
}

/* The names an expression may use: problem parameters, plus a kernel's parameters. */
static int scope_names(const user_spec *s, const user_kernel_spec *k, const char **names)
{
    int n = 0;
    for (int i = 0; i < s->n_problem; ++i)
        names[n++] = s->problem[i].name;
    for (int i = 0; k && i < k->n_params; ++i)
        names[n++] = k->params[i].name;
    return n;
}

/* ---------------------------------------------------------------------------------------------
 * Arguments */

static int read_init(user_spec *s, const rt_yaml_node *n, const char *path, user_arg *a,
                     rt_err *err)
{
    if (want_keys(n, path, k_init_keys, N_OF(k_init_keys), err) != 0)
        return -1;
    if (n->n != 1)
        return fail(err, n, path, "give exactly one of random, constant or file");
    user_init *in = &a->init;
    const rt_yaml_node *v = n->items[0];
    char sub[128];
    snprintf(sub, sizeof sub, "%s.%s", path, n->keys[0]);
    if (strcmp(n->keys[0], "constant") == 0) {
        in->kind = USER_INIT_CONSTANT;
        return get_number(v, sub, &in->constant, err);
    }
    if (strcmp(n->keys[0], "file") == 0) {
        in->kind = USER_INIT_FILE;
        return get_file(s, v, sub, in->file, sizeof in->file, err);
    }
    in->kind = USER_INIT_RANDOM;
    in->lo = -1.0;
    in->hi = 1.0;
    if (a->type == USER_T_U8 || a->type == USER_T_U32) {
        in->lo = 0;
        in->hi = 100;
    }
    if (want_keys(v, sub, k_random_keys, N_OF(k_random_keys), err) != 0)
        return -1;
    const rt_yaml_node *seed = rt_yaml_map_get(v, "seed");
    if (!seed)
        return fail(err, v, sub, "missing 'seed' (random contents are reproducible)");
    int64_t sv;
    if (seed->kind != RT_YAML_SCALAR || rt_yaml_parse_int(seed->scalar, &sv) != 0 || sv < 0)
        return fail(err, seed, sub, "seed: expected an integer >= 0");
    in->seed = (uint64_t)sv;
    const rt_yaml_node *lo = rt_yaml_map_get(v, "min"), *hi = rt_yaml_map_get(v, "max");
    if ((lo && get_number(lo, sub, &in->lo, err) != 0) ||
        (hi && get_number(hi, sub, &in->hi, err) != 0))
        return -1;
    if (!(in->hi > in->lo))
        return fail(err, v, sub, "max (%g) must be above min (%g)", in->hi, in->lo);
    return 0;
}

static int read_argument(user_spec *s, const rt_yaml_node *n, int index, rt_err *err)
{
    user_arg *a = &s->args[index];
    char path[64];
    snprintf(path, sizeof path, "arguments[%d]", index);
    if (want_kind(n, RT_YAML_MAP, path, err) != 0)
        return -1;
    loc_of(n, &a->loc);
    /* Every key either kind takes first, so a misspelt one gets its suggestion. */
    static const char *const any_keys[] = {"name", "type", "size", "init", "output", "value"};
    if (rt_yaml_check_keys(n, path, any_keys, N_OF(any_keys), err) != 0)
        return -1;
    a->is_array = rt_yaml_map_get(n, "size") != NULL;
    if (!a->is_array && !rt_yaml_map_get(n, "value"))
        return fail(err, n, path, "an array needs 'size', a scalar 'value'");
    if (a->is_array ? rt_yaml_check_keys(n, path, k_array_keys, N_OF(k_array_keys), err)
                    : rt_yaml_check_keys(n, path, k_scalar_keys, N_OF(k_scalar_keys), err))
        return rt_err_prefix(err, "an %s", a->is_array ? "array (it has a size)" : "scalar");
    char sub[96];
    const rt_yaml_node *v = rt_yaml_map_get(n, "name");
    snprintf(sub, sizeof sub, "%s.name", path);
    if (!v)
        return fail(err, n, path, "missing 'name'");
    if (get_identifier(v, sub, a->name, sizeof a->name, err) != 0)
        return -1;
    for (int j = 0; j < index; ++j)
        if (strcmp(s->args[j].name, a->name) == 0)
            return fail(err, v, sub, "'%s' is already the name of arguments[%d]", a->name, j);
    v = rt_yaml_map_get(n, "type");
    snprintf(sub, sizeof sub, "%s.type", path);
    if (!v)
        return fail(err, n, path, "missing 'type' (float, double, int32, int64, uint32, uint8)");
    if (want_kind(v, RT_YAML_SCALAR, sub, err) != 0)
        return -1;
    if (user_type_parse(v->scalar, &a->type) != 0) {
        int nw;
        const char *const *words = user_type_words(&nw);
        const char *hint = rt_suggest(v->scalar, words, nw);
        return fail(err, v, sub,
                    "unknown type '%s'%s%s%s (float, double, int32, int64, uint32, "
                    "uint8)",
                    v->scalar, hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
    }
    const char *names[USER_MAX_PROBLEM];
    const int n_names = scope_names(s, NULL, names);
    if (!a->is_array) {
        snprintf(sub, sizeof sub, "%s.value", path);
        return parse_expr(&a->value, rt_yaml_map_get(n, "value"), sub, err);
    }
    snprintf(sub, sizeof sub, "%s.size", path);
    if (parse_expr(&a->size, rt_yaml_map_get(n, "size"), sub, err) != 0 ||
        user_expr_check_names(&a->size, names, n_names, 0, err) != 0)
        return -1;
    v = rt_yaml_map_get(n, "output");
    if (v && rt_yaml_get_bool(v, path, &a->output, err) != 0)
        return fail(err, v, path, "output: expected true or false");
    v = rt_yaml_map_get(n, "init");
    snprintf(sub, sizeof sub, "%s.init", path);
    if (v && read_init(s, v, sub, a, err) != 0)
        return -1;
    s->n_outputs += a->output;
    return 0;
}

static int read_arguments(user_spec *s, const rt_yaml_node *seq, rt_err *err)
{
    if (want_kind(seq, RT_YAML_SEQ, "arguments", err) != 0)
        return -1;
    if (seq->n == 0 || seq->n > USER_MAX_ARGS)
        return fail(err, seq, "arguments", "%d arguments (1 to %d)", seq->n, USER_MAX_ARGS);
    for (int i = 0; i < seq->n; ++i) {
        if (read_argument(s, seq->items[i], i, err) != 0)
            return -1;
        s->n_args = i + 1;
    }
    if (s->n_outputs == 0)
        return fail(err, seq, "arguments",
                    "no array is marked 'output: true': nothing would be "
                    "verified");
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Kernels */

/* values: [..] / range: [lo, hi] / a plain list; the first value is the default unless given. */
static int read_param(const rt_yaml_node *key_map, int i, const char *kpath, user_param *p,
                      rt_err *err)
{
    const rt_yaml_node *v = key_map->items[i];
    char path[160];
    snprintf(path, sizeof path, "%s.params.%s", kpath, key_map->keys[i]);
    loc_of(v, &p->loc);
    if (!is_identifier(key_map->keys[i]) || strlen(key_map->keys[i]) >= sizeof p->name)
        return fail(err, v, path, "'%s' is not a parameter name (it becomes a -D macro)",
                    key_map->keys[i]);
    snprintf(p->name, sizeof p->name, "%s", key_map->keys[i]);
    const rt_yaml_node *values = v, *range = NULL, *def = NULL;
    if (v->kind == RT_YAML_MAP) {
        if (rt_yaml_check_keys(v, path, k_param_keys, N_OF(k_param_keys), err) != 0)
            return -1;
        values = rt_yaml_map_get(v, "values");
        range = rt_yaml_map_get(v, "range");
        def = rt_yaml_map_get(v, "default");
        if ((values != NULL) == (range != NULL))
            return fail(err, v, path, "give 'values' or 'range'");
    }
    p->kind = RT_V_INT;
    if (range) {
        int64_t lo, hi;
        if (range->kind != RT_YAML_SEQ || range->n != 2 ||
            range->items[0]->kind != RT_YAML_SCALAR || range->items[1]->kind != RT_YAML_SCALAR ||
            rt_yaml_parse_int(range->items[0]->scalar, &lo) != 0 ||
            rt_yaml_parse_int(range->items[1]->scalar, &hi) != 0 || hi < lo)
            return fail(err, range, path, "range: expected [LO, HI], integers with LO <= HI");
        snprintf(p->domain, sizeof p->domain, "%lld..%lld", (long long)lo, (long long)hi);
        snprintf(p->default_value, sizeof p->default_value, "%lld", (long long)lo);
    } else {
        if (want_kind(values, RT_YAML_SEQ, path, err) != 0)
            return -1;
        if (values->n == 0)
            return fail(err, values, path, "no values");
        int words = 0;
        for (int j = 0; j < values->n; ++j) {
            const rt_yaml_node *x = values->items[j];
            int64_t iv;
            if (x->kind != RT_YAML_SCALAR || x->scalar[0] == '\0')
                return fail(err, x, path, "values must be integers or words");
            if (rt_yaml_parse_int(x->scalar, &iv) != 0) {
                if (!is_identifier(x->scalar))
                    return fail(err, x, path,
                                "'%s' is neither an integer nor a word (a -D value "
                                "must be one token)",
                                x->scalar);
                ++words;
            }
        }
        if (words && words != values->n)
            return fail(err, values, path, "mixes integers and words; give one kind");
        p->kind = words ? RT_V_STR : RT_V_INT;
        size_t used = 0;
        for (int j = 0; j < values->n; ++j) {
            const int w = snprintf(p->domain + used, sizeof p->domain - used, "%s%s", j ? "|" : "",
                                   values->items[j]->scalar);
            if (w < 0 || (size_t)w >= sizeof p->domain - used)
                return fail(err, values, path, "too many values to keep");
            used += (size_t)w;
        }
        snprintf(p->default_value, sizeof p->default_value, "%s", values->items[0]->scalar);
    }
    if (def) {
        if (want_kind(def, RT_YAML_SCALAR, path, err) != 0)
            return -1;
        snprintf(p->default_value, sizeof p->default_value, "%s", def->scalar);
    }
    return 0;
}

static int read_dims(const rt_yaml_node *n, const char *path, user_expr *dims, int *count,
                     rt_err *err)
{
    if (n->kind == RT_YAML_SCALAR) {
        *count = 1;
        return parse_expr(&dims[0], n, path, err);
    }
    if (want_kind(n, RT_YAML_SEQ, path, err) != 0)
        return -1;
    if (n->n < 1 || n->n > USER_MAX_DIMS)
        return fail(err, n, path, "expected 1 to 3 expressions (x, y, z), got %d", n->n);
    for (int d = 0; d < n->n; ++d) {
        char sub[160];
        snprintf(sub, sizeof sub, "%s[%d]", path, d);
        if (parse_expr(&dims[d], n->items[d], sub, err) != 0)
            return -1;
        *count = d + 1;
    }
    return 0;
}

static int check_kernel_name(const user_spec *s, const rt_yaml_node *v, const char *path,
                             user_kernel_spec *k, rt_err *err)
{
    const size_t flen = strlen(s->family);
    const char *name = k->name;
    if (strncmp(name, s->family, flen) != 0 || name[flen] != '.')
        return fail(err, v, path,
                    "'%s' must start with the family's name: %s.cuda.NAME or "
                    "%s.cpu.NAME",
                    name, s->family, s->family);
    const char *rest = name + flen + 1;
    if (strncmp(rest, "cuda.", 5) == 0)
        k->cuda = 1;
    else if (strncmp(rest, "cpu.", 4) == 0)
        k->cuda = 0;
    else
        return fail(err, v, path, "'%s': the part after '%s.' names the backend, cuda or cpu", name,
                    s->family);
    const char *impl = rest + (k->cuda ? 5 : 4);
    if (!is_identifier(impl))
        return fail(err, v, path, "'%s': the last part must be a name (letters, digits, '_')",
                    name);
    return 0;
}

static int read_kernel(user_spec *s, const rt_yaml_node *n, int index, rt_err *err)
{
    user_kernel_spec *k = &s->kernels[index];
    char path[160], sub[200];
    snprintf(path, sizeof path, "kernels[%d]", index);
    if (want_keys(n, path, k_kernel_keys, N_OF(k_kernel_keys), err) != 0)
        return -1;
    loc_of(n, &k->loc);
    static const char *const required[] = {"name", "source", "entry"};
    for (int i = 0; i < N_OF(required); ++i)
        if (!rt_yaml_map_get(n, required[i]))
            return fail(err, n, path, "missing '%s'", required[i]);
    const rt_yaml_node *v = rt_yaml_map_get(n, "name");
    snprintf(sub, sizeof sub, "%s.name", path);
    if (get_text(v, sub, k->name, sizeof k->name, err) != 0 ||
        check_kernel_name(s, v, sub, k, err) != 0)
        return -1;
    snprintf(path, sizeof path, "kernels[%d] (%s)", index, k->name);
    for (int j = 0; j < index; ++j)
        if (strcmp(s->kernels[j].name, k->name) == 0)
            return fail(err, v, path, "is already the name of kernels[%d]", j);
    v = rt_yaml_map_get(n, "source");
    snprintf(sub, sizeof sub, "%s.source", path);
    loc_of(v, &k->source_loc);
    if (get_path(s, v, sub, k->source, sizeof k->source, err) != 0 ||
        read_source(v, sub, k->source, &k->source_text, err) != 0)
        return -1;
    v = rt_yaml_map_get(n, "entry");
    snprintf(sub, sizeof sub, "%s.entry", path);
    loc_of(v, &k->entry_loc);
    if (get_identifier(v, sub, k->entry, sizeof k->entry, err) != 0)
        return -1;
    if ((v = rt_yaml_map_get(n, "summary")) &&
        get_text(v, path, k->summary, sizeof k->summary, err) != 0)
        return -1;

    if ((v = rt_yaml_map_get(n, "params"))) {
        snprintf(sub, sizeof sub, "%s.params", path);
        if (want_kind(v, RT_YAML_MAP, sub, err) != 0)
            return -1;
        if (v->n > USER_MAX_PARAMS)
            return fail(err, v, sub, "%d parameters (at most %d)", v->n, USER_MAX_PARAMS);
        for (int i = 0; i < v->n; ++i) {
            user_param *p = &k->params[i];
            if (read_param(v, i, path, p, err) != 0)
                return -1;
            for (int j = 0; j < s->n_problem; ++j)
                if (strcmp(s->problem[j].name, p->name) == 0)
                    return fail(err, v->items[i], sub,
                                "'%s' is also a problem parameter; a "
                                "kernel parameter needs a name of its own",
                                p->name);
            k->schema[i] = (rt_param_schema){
                p->name,          p->kind, p->domain,
                p->default_value, 1,       "tunable (a -D define of the kernel's source)"};
            rt_value dv;
            char why[256];
            if (rt_param_default(&k->schema[i], &dv, err) != 0 ||
                rt_param_check(&k->schema[i], &dv, why, sizeof why) != 0)
                return fail(err, v->items[i], sub,
                            "the default fails the parameter's own "
                            "values: %s",
                            why);
            k->n_params = i + 1;
        }
    }

    const char *names[USER_MAX_PROBLEM + USER_MAX_PARAMS];
    const int n_names = scope_names(s, k, names);
    const rt_yaml_node *grid = rt_yaml_map_get(n, "grid"), *block = rt_yaml_map_get(n, "block");
    if (k->cuda && (!grid || !block))
        return fail(err, n, path,
                    "a CUDA kernel needs 'grid' and 'block' (expressions over the "
                    "problem and the parameters)");
    if (!k->cuda && (grid || block || rt_yaml_map_get(n, "shared_bytes")))
        return fail(err, grid ? grid : (block ? block : rt_yaml_map_get(n, "shared_bytes")), path,
                    "a C kernel is called once per execution: grid, block and shared_bytes apply "
                    "to CUDA kernels only");
    if (k->cuda && rt_yaml_map_get(n, "cflags"))
        return fail(err, rt_yaml_map_get(n, "cflags"), path,
                    "cflags apply to C kernels (NVRTC takes the parameters as defines)");
    if (grid) {
        snprintf(sub, sizeof sub, "%s.grid", path);
        if (read_dims(grid, sub, k->grid, &k->n_grid, err) != 0)
            return -1;
        snprintf(sub, sizeof sub, "%s.block", path);
        if (read_dims(block, sub, k->block, &k->n_block, err) != 0)
            return -1;
        for (int d = 0; d < k->n_grid; ++d)
            if (user_expr_check_names(&k->grid[d], names, n_names, 1, err) != 0)
                return -1;
        for (int d = 0; d < k->n_block; ++d)
            if (user_expr_check_names(&k->block[d], names, n_names, 1, err) != 0)
                return -1;
    }
    if ((v = rt_yaml_map_get(n, "shared_bytes"))) {
        snprintf(sub, sizeof sub, "%s.shared_bytes", path);
        if (parse_expr(&k->shared_bytes, v, sub, err) != 0 ||
            user_expr_check_names(&k->shared_bytes, names, n_names, 1, err) != 0)
            return -1;
    }
    if ((v = rt_yaml_map_get(n, "bytes"))) {
        snprintf(sub, sizeof sub, "%s.bytes", path);
        if (parse_expr(&k->bytes, v, sub, err) != 0 ||
            user_expr_check_names(&k->bytes, names, n_names, 0, err) != 0)
            return -1;
    }
    if ((v = rt_yaml_map_get(n, "constraints"))) {
        snprintf(sub, sizeof sub, "%s.constraints", path);
        if (want_kind(v, RT_YAML_SEQ, sub, err) != 0)
            return -1;
        if (v->n > USER_MAX_CONSTRAINTS)
            return fail(err, v, sub, "%d constraints (at most %d)", v->n, USER_MAX_CONSTRAINTS);
        for (int i = 0; i < v->n; ++i) {
            char csub[220];
            snprintf(csub, sizeof csub, "%s.constraints[%d]", path, i);
            if (parse_expr(&k->constraints[i], v->items[i], csub, err) != 0)
                return -1;
            k->n_constraints = i + 1;
            if (user_expr_check_names(&k->constraints[i], names, n_names, 1, err) != 0)
                return -1;
        }
    }
    if ((v = rt_yaml_map_get(n, "cflags"))) {
        snprintf(sub, sizeof sub, "%s.cflags", path);
        if (get_flags(v, sub, k->cflags, &k->n_cflags, err) != 0)
            return -1;
    }
    /* Scalars and the spec's bytes may use parameters: every kernel must have the ones they use. */
    for (int i = 0; i < s->n_args; ++i)
        if (!s->args[i].is_array &&
            user_expr_check_names(&s->args[i].value, names, n_names, 0, err) != 0)
            return rt_err_prefix(err, "for %s", k->name);
    if (!k->bytes.expr && user_expr_check_names(&s->bytes, names, n_names, 0, err) != 0)
        return rt_err_prefix(err, "for %s (give it a bytes of its own)", k->name);
    return 0;
}

static int read_kernels(user_spec *s, const rt_yaml_node *seq, rt_err *err)
{
    if (want_kind(seq, RT_YAML_SEQ, "kernels", err) != 0)
        return -1;
    if (seq->n == 0 || seq->n > USER_MAX_KERNELS)
        return fail(err, seq, "kernels", "%d kernels (1 to %d)", seq->n, USER_MAX_KERNELS);
    for (int i = 0; i < seq->n; ++i) {
        s->n_kernels = i + 1;
        if (read_kernel(s, seq->items[i], i, err) != 0)
            return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Reference and tolerance */

static int read_reference(user_spec *s, const rt_yaml_node *n, rt_err *err)
{
    user_reference *r = &s->ref;
    if (want_keys(n, "reference", k_reference_keys, N_OF(k_reference_keys), err) != 0)
        return -1;
    loc_of(n, &r->loc);
    const rt_yaml_node *kernel = rt_yaml_map_get(n, "kernel"), *host = rt_yaml_map_get(n, "host"),
                       *expected = rt_yaml_map_get(n, "expected"),
                       *params = rt_yaml_map_get(n, "params");
    if ((kernel != NULL) + (host != NULL) + (expected != NULL) != 1)
        return fail(err, n, "reference",
                    "give exactly one of kernel (a C kernel of this spec), "
                    "host (a host function) or expected (stored outputs)");
    if (params && !kernel)
        return fail(err, params, "reference.params", "applies to reference.kernel only");
    rt_params_init(&r->params);
    if (kernel) {
        r->kind = USER_REF_KERNEL;
        char name[USER_KERNEL_NAME_MAX];
        if (get_text(kernel, "reference.kernel", name, sizeof name, err) != 0)
            return -1;
        r->kernel = -1;
        const char *names[USER_MAX_KERNELS];
        for (int i = 0; i < s->n_kernels; ++i) {
            names[i] = s->kernels[i].name;
            if (strcmp(names[i], name) == 0)
                r->kernel = i;
        }
        if (r->kernel < 0) {
            const char *hint = rt_suggest(name, names, s->n_kernels);
            return fail(err, kernel, "reference.kernel",
                        "no kernel of this spec is called '%s'%s%s%s", name,
                        hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
        }
        const user_kernel_spec *rk = &s->kernels[r->kernel];
        if (rk->cuda)
            return fail(err, kernel, "reference.kernel",
                        "%s is a CUDA kernel; the reference is computed on the host before any "
                        "GPU kernel runs, so name a C kernel (or store its output and use "
                        "reference.expected)",
                        name);
        if (params) {
            if (want_kind(params, RT_YAML_MAP, "reference.params", err) != 0)
                return -1;
            for (int i = 0; i < params->n; ++i) {
                char sub[96];
                snprintf(sub, sizeof sub, "reference.params.%s", params->keys[i]);
                const rt_param_schema *sc = NULL;
                for (int j = 0; j < rk->n_params; ++j)
                    if (strcmp(rk->params[j].name, params->keys[i]) == 0)
                        sc = &rk->schema[j];
                const rt_yaml_node *pv = params->items[i];
                if (!sc)
                    return fail(err, pv, sub, "%s has no parameter '%s'", name, params->keys[i]);
                int64_t iv;
                const rt_value val =
                    pv->kind == RT_YAML_SCALAR && rt_yaml_parse_int(pv->scalar, &iv) == 0
                        ? rt_value_int(iv)
                        : rt_value_str(pv->kind == RT_YAML_SCALAR ? pv->scalar : "");
                char why[256];
                if (rt_param_check(sc, &val, why, sizeof why) != 0)
                    return fail(err, pv, sub, "%s", why);
                if (rt_params_set(&r->params, params->keys[i], val, err) != 0)
                    return rt_err_prefix(err, "%s:%d:%d: %s", pv->file, pv->line, pv->col, sub);
            }
        }
        return 0;
    }
    if (host) {
        r->kind = USER_REF_HOST;
        if (want_keys(host, "reference.host", k_host_keys, N_OF(k_host_keys), err) != 0)
            return -1;
        const rt_yaml_node *src = rt_yaml_map_get(host, "source"),
                           *lib = rt_yaml_map_get(host, "library"),
                           *fn = rt_yaml_map_get(host, "function"),
                           *flags = rt_yaml_map_get(host, "cflags");
        if ((src != NULL) == (lib != NULL))
            return fail(err, host, "reference.host",
                        "give source (a C file built here) or "
                        "library (a shared object)");
        if (!fn)
            return fail(err, host, "reference.host",
                        "missing 'function' (it takes the "
                        "kernels' arguments)");
        if (get_identifier(fn, "reference.host.function", r->function, sizeof r->function, err) !=
            0)
            return -1;
        if (src &&
            (get_path(s, src, "reference.host.source", r->source, sizeof r->source, err) != 0 ||
             read_source(src, "reference.host.source", r->source, &r->source_text, err) != 0))
            return -1;
        if (lib &&
            get_file(s, lib, "reference.host.library", r->library, sizeof r->library, err) != 0)
            return -1;
        if (flags && get_flags(flags, "reference.host.cflags", r->cflags, &r->n_cflags, err) != 0)
            return -1;
        return 0;
    }
    r->kind = USER_REF_EXPECTED;
    if (want_kind(expected, RT_YAML_MAP, "reference.expected", err) != 0)
        return -1;
    for (int i = 0; i < expected->n; ++i) {
        char sub[96];
        snprintf(sub, sizeof sub, "reference.expected.%s", expected->keys[i]);
        int a = -1;
        for (int j = 0; j < s->n_args; ++j)
            if (strcmp(s->args[j].name, expected->keys[i]) == 0)
                a = j;
        if (a < 0 || !s->args[a].output)
            return fail(err, expected->items[i], sub, "'%s' is not an output array of this spec",
                        expected->keys[i]);
        if (get_file(s, expected->items[i], sub, r->expected[a], sizeof r->expected[a], err) != 0)
            return -1;
    }
    for (int j = 0; j < s->n_args; ++j)
        if (s->args[j].output && !r->expected[j][0])
            return fail(err, expected, "reference.expected",
                        "output '%s' has no file (every output needs one)", s->args[j].name);
    return 0;
}

static int read_tolerance(user_spec *s, const rt_yaml_node *n, rt_err *err)
{
    if (want_keys(n, "tolerance", k_tolerance_keys, N_OF(k_tolerance_keys), err) != 0)
        return -1;
    const rt_yaml_node *v;
    if ((v = rt_yaml_map_get(n, "normwise")) &&
        (get_number(v, "tolerance.normwise", &s->normwise, err) != 0 || !(s->normwise > 0)))
        return fail(err, v, "tolerance.normwise", "expected a number > 0");
    if ((v = rt_yaml_map_get(n, "elementwise"))) {
        if (get_number(v, "tolerance.elementwise", &s->elementwise_rel, err) != 0 ||
            !(s->elementwise_rel >= 0))
            return fail(err, v, "tolerance.elementwise", "expected a number >= 0");
        s->elementwise = 1;
    }
    if ((v = rt_yaml_map_get(n, "elementwise_abs"))) {
        if (get_number(v, "tolerance.elementwise_abs", &s->elementwise_abs, err) != 0 ||
            !(s->elementwise_abs >= 0))
            return fail(err, v, "tolerance.elementwise_abs", "expected a number >= 0");
        s->elementwise = 1;
    }
    return 0;
}

/* Without tolerance.normwise: the rounding of the outputs' narrowest floating type, enough for
 * short reductions; integer outputs must match exactly (a tiny bound, so 0 differences pass). */
static void default_tolerance(user_spec *s)
{
    int f32 = 0, f64 = 0;
    for (int i = 0; i < s->n_args; ++i)
        if (s->args[i].output) {
            f32 |= s->args[i].type == USER_T_F32;
            f64 |= s->args[i].type == USER_T_F64;
        }
    s->normwise = f32 ? 1e-5 : (f64 ? 1e-12 : 1e-15);
}

/* ---------------------------------------------------------------------------------------------
 * The spec's identity */

/* Folds v into h byte by byte (least significant first), so the identity is the same on every
 * host. */
static uint64_t fold_u64(uint64_t h, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; ++i)
        b[i] = (unsigned char)(v >> (8 * i));
    return rt_hash64(b, sizeof b, h);
}

/* A hash of a parsed YAML tree: its scalars' text and its shape, not how it was written
 * (comments, layout, flow or block style, quotes, the order of a map's keys). */
static uint64_t tree_hash(const rt_yaml_node *n)
{
    if (n->kind == RT_YAML_SCALAR)
        return rt_hash64(n->scalar, strlen(n->scalar), 's');
    if (n->kind == RT_YAML_SEQ) {
        uint64_t h = fold_u64('q', (uint64_t)n->n);
        for (int i = 0; i < n->n; ++i)
            h = fold_u64(h, tree_hash(n->items[i]));
        return h;
    }
    /* Keys in any order: each pair hashed on its own, the pairs summed. */
    uint64_t sum = 0;
    for (int i = 0; i < n->n; ++i)
        sum += rt_hash64(n->keys[i], strlen(n->keys[i]), tree_hash(n->items[i]));
    return fold_u64(fold_u64('m', (uint64_t)n->n), sum);
}

/* What the spec's kernels are given and must compute: the family's name, the arguments (types,
 * sizes, first contents, outputs) and the reference. Left out on purpose: where the spec lies
 * (a moved checkout compares equal), the kernels and their sources (an edited kernel keeps its
 * points comparable, with `compare` and the CI gate), the summary, the tolerance, the flops and
 * bytes models, and the problem parameters' defaults and domains (a point's problem carries its
 * own values). The contents of files the spec names are not read into it either. */
static const char *const k_identity_keys[] = {"family", "arguments", "reference"};

static void make_identity(user_spec *s, const rt_yaml_node *root)
{
    uint64_t h = 0;
    for (int i = 0; i < N_OF(k_identity_keys); ++i) {
        const rt_yaml_node *v = rt_yaml_map_get(root, k_identity_keys[i]);
        h = rt_hash64(k_identity_keys[i], strlen(k_identity_keys[i]), h);
        h = fold_u64(h, v ? tree_hash(v) : 0);
    }
    char hex[17];
    rt_hash_hex(h, hex);
    snprintf(s->identity, sizeof s->identity, "%s@%s", s->family, hex);
}

/* ---------------------------------------------------------------------------------------------
 * The whole spec */

static void hash_text(uint64_t *h, const char *text)
{
    if (text)
        *h = rt_hash64(text, strlen(text), *h);
}

static int convert(user_spec *s, const rt_yaml_node *root, rt_err *err)
{
    if (want_keys(root, "spec", k_top_keys, N_OF(k_top_keys), err) != 0)
        return -1;
    static const char *const required[] = {"family", "arguments", "reference", "kernels"};
    for (int i = 0; i < N_OF(required); ++i)
        if (!rt_yaml_map_get(root, required[i]))
            return rt_err_set(err, "%s:%d:%d: spec: missing '%s'", root->file, root->line,
                              root->col, required[i]);
    const rt_yaml_node *v = rt_yaml_map_get(root, "family");
    if (get_identifier(v, "family", s->family, sizeof s->family, err) != 0)
        return -1;
    if ((v = rt_yaml_map_get(root, "summary")) &&
        get_text(v, "summary", s->summary, sizeof s->summary, err) != 0)
        return -1;
    if ((v = rt_yaml_map_get(root, "problem")) && read_problem(s, v, err) != 0)
        return -1;
    /* flops and bytes before the kernels, which check that they have what bytes uses. */
    const char *names[USER_MAX_PROBLEM];
    const int n_names = scope_names(s, NULL, names);
    if ((v = rt_yaml_map_get(root, "flops")) &&
        (parse_expr(&s->flops, v, "flops", err) != 0 ||
         user_expr_check_names(&s->flops, names, n_names, 0, err) != 0))
        return -1;
    if ((v = rt_yaml_map_get(root, "bytes")) && parse_expr(&s->bytes, v, "bytes", err) != 0)
        return -1;
    if (read_arguments(s, rt_yaml_map_get(root, "arguments"), err) != 0 ||
        read_kernels(s, rt_yaml_map_get(root, "kernels"), err) != 0 ||
        read_reference(s, rt_yaml_map_get(root, "reference"), err) != 0)
        return -1;
    default_tolerance(s);
    if ((v = rt_yaml_map_get(root, "tolerance")) && read_tolerance(s, v, err) != 0)
        return -1;
    return 0;
}

int user_spec_load(const char *path, user_spec **out, rt_err *err)
{
    *out = NULL;
    if (strlen(path) >= USER_PATH_MAX)
        return rt_err_set(err, "%s: the spec's path is %zu characters (at most %d)", path,
                          strlen(path), USER_PATH_MAX - 1);
    user_spec *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory for the spec", path);
    snprintf(s->path, sizeof s->path, "%s", path);
    snprintf(s->dir, sizeof s->dir, "%s", path);
    char *slash = strrchr(s->dir, '/');
    if (slash)
        *(slash == s->dir ? slash + 1 : slash) = '\0';
    else
        s->dir[0] = '\0';
    char *text = NULL;
    size_t len = 0;
    rt_yaml_node *root = NULL;
    int rc = rt_yaml_read_file(path, &text, &len, err);
    if (rc == 0)
        rc = rt_yaml_load_buffer(text, len, path, &root, err);
    if (rc == 0)
        rc = convert(s, root, err);
    if (rc == 0) {
        /* The only value the parameter takes: a config that sets another fails validation. */
        make_identity(s, root);
        s->problem_schema[0] = (rt_param_schema){
            .name = "spec",
            .kind = RT_V_STR,
            .domain = s->identity,
            .default_value = s->identity,
            .help = "the kernel spec (user_kernels:) this family comes from: its family and a hash "
                    "of its arguments and reference"};
        uint64_t h = 0;
        hash_text(&h, text);
        for (int i = 0; i < s->n_kernels; ++i)
            hash_text(&h, s->kernels[i].source_text);
        hash_text(&h, s->ref.source_text);
        rt_hash_hex(h, s->hash);
    }
    rt_yaml_free(root);
    free(text);
    if (rc != 0) {
        user_spec_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

void user_spec_free(user_spec *s)
{
    if (!s)
        return;
    /* Every slot, not just the counted ones: a spec that failed half-way has parsed some. */
    for (int i = 0; i < USER_MAX_ARGS; ++i) {
        user_expr_free(&s->args[i].size);
        user_expr_free(&s->args[i].value);
    }
    for (int i = 0; i < USER_MAX_KERNELS; ++i) {
        user_kernel_spec *k = &s->kernels[i];
        free(k->source_text);
        for (int d = 0; d < USER_MAX_DIMS; ++d) {
            user_expr_free(&k->grid[d]);
            user_expr_free(&k->block[d]);
        }
        user_expr_free(&k->shared_bytes);
        user_expr_free(&k->bytes);
        for (int c = 0; c < USER_MAX_CONSTRAINTS; ++c)
            user_expr_free(&k->constraints[c]);
    }
    free(s->ref.source_text);
    user_expr_free(&s->flops);
    user_expr_free(&s->bytes);
    free(s);
}

const user_kernel_spec *user_spec_find_kernel(const user_spec *s, const char *name)
{
    for (int i = 0; i < s->n_kernels; ++i)
        if (strcmp(s->kernels[i].name, name) == 0)
            return &s->kernels[i];
    return NULL;
}

int user_spec_kernel_params(const user_kernel_spec *k, const rt_params *given, rt_params *out,
                            rt_err *err)
{
    rt_params_init(out);
    for (int i = 0; i < k->n_params; ++i) {
        const rt_value *v = given ? rt_params_get(given, k->params[i].name) : NULL;
        rt_value dv;
        if (!v) {
            if (rt_param_default(&k->schema[i], &dv, err) != 0)
                return rt_err_prefix(err, "%s", k->name);
            v = &dv;
        }
        if (rt_params_set(out, k->params[i].name, *v, err) != 0)
            return rt_err_prefix(err, "%s", k->name);
    }
    return 0;
}

void user_spec_defines(const rt_params *p, char (*text)[USER_DEFINE_MAX], const char **list)
{
    for (int i = 0; i < p->n; ++i) {
        const rt_value *v = &p->item[i].value;
        if (v->kind == RT_V_STR)
            snprintf(text[i], USER_DEFINE_MAX, "%s=%s", p->item[i].name, v->s);
        else
            snprintf(text[i], USER_DEFINE_MAX, "%s=%lld", p->item[i].name,
                     (long long)rt_value_as_double(v));
        list[i] = text[i];
    }
}
