#include "rt_space.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_expr.h"
#include "rt_strutil.h"

typedef struct space_dim {
    char name[RT_NAME_MAX];
    const rt_param_schema *schema;
    int64_t n;
    rt_value *values; /* owned */
    int from_config;
    rt_src_loc loc; /* where the config sets it (from_config only) */
} space_dim;

typedef struct space_constraint {
    rt_expr *expr;
    char text[512];
    char where[600]; /* "file:line:col" */
} space_constraint;

struct rt_space {
    char kernel[96];
    int n_dims;
    space_dim dims[RT_MAX_PARAMS];
    int64_t size;
    rt_params problem;
    int64_t rows, cols, nnz;
    int has_device;
    rt_device_info device;
    int n_constraints;
    space_constraint *constraints;
};

static const char *const matrix_fields[] = {"rows", "cols", "nnz"};
/* Room for the device field names in suggestion lists (rt_device_info has 17 numeric fields). */
#define MAX_DEVICE_FIELDS 64

static void format_loc(const rt_src_loc *loc, char *buf, size_t len)
{
    snprintf(buf, len, "%s:%d:%d", loc->file[0] ? loc->file : "(config)", loc->line, loc->col);
}

/* device.<field>: the table lives with the config checker (rt_config_device_value), so the
 * names a config may use and the names a space can evaluate are the same by construction. */
static int device_lookup(const rt_device_info *d, const char *field, double *value)
{
    return rt_config_device_value(d, field, value);
}

/* What a constraint sees while one point is evaluated. */
typedef struct lookup_ctx {
    const rt_space *space;
    const rt_params *point;
} lookup_ctx;

static int numeric_param(const rt_params *p, const char *name, double *value)
{
    const rt_value *v = p ? rt_params_get(p, name) : NULL;
    if (!v)
        return -1;
    /* A string that spells a number ("32") counts as that number; other strings are not values
     * a constraint can compute with. */
    const double d = rt_value_as_double(v);
    if (isnan(d))
        return -1;
    *value = d;
    return 0;
}

static int space_lookup(const char *name, void *vctx, double *value)
{
    const lookup_ctx *ctx = vctx;
    const rt_space *s = ctx->space;
    if (strncmp(name, "matrix.", 7) == 0) {
        const char *f = name + 7;
        if (strcmp(f, "rows") == 0)
            *value = (double)s->rows;
        else if (strcmp(f, "cols") == 0)
            *value = (double)s->cols;
        else if (strcmp(f, "nnz") == 0)
            *value = (double)s->nnz;
        else
            return -1;
        return 0;
    }
    if (strncmp(name, "device.", 7) == 0)
        return s->has_device ? device_lookup(&s->device, name + 7, value) : -1;
    /* Kernel parameters shadow problem parameters of the same name. */
    if (numeric_param(ctx->point, name, value) == 0)
        return 0;
    return numeric_param(&s->problem, name, value);
}

/* Checks, once at build time, that every identifier of a constraint will resolve at every point:
 * evaluation-time "unknown identifier" errors would otherwise surface only at the first point. */
typedef struct ident_check {
    const rt_space *space;
    rt_err *err;
} ident_check;

static int suggest_and_fail(ident_check *ic, const char *name)
{
    int n_device = 0;
    const char *const *device_names = rt_config_device_fields(&n_device);
    if (n_device > MAX_DEVICE_FIELDS)
        n_device = MAX_DEVICE_FIELDS;
    const char *cands[RT_MAX_PARAMS * 2 + MAX_DEVICE_FIELDS + 3];
    char dev_names[MAX_DEVICE_FIELDS][RT_NAME_MAX + 8];
    char mat_names[3][16];
    int n = 0;
    const rt_space *s = ic->space;
    for (int d = 0; d < s->n_dims; ++d)
        cands[n++] = s->dims[d].name;
    for (int i = 0; i < s->problem.n; ++i)
        cands[n++] = s->problem.item[i].name;
    for (int i = 0; i < 3; ++i) {
        snprintf(mat_names[i], sizeof mat_names[i], "matrix.%s", matrix_fields[i]);
        cands[n++] = mat_names[i];
    }
    if (s->has_device) {
        for (int i = 0; i < n_device; ++i) {
            snprintf(dev_names[i], sizeof dev_names[i], "device.%s", device_names[i]);
            cands[n++] = dev_names[i];
        }
    }
    const char *hint = rt_suggest(name, cands, n);
    /* "warp_size" for "device.warp_size" is the commonest slip; rt_suggest's edit distance is too
     * strict to see it. */
    char prefixed[RT_NAME_MAX + 16];
    double unused;
    if (!hint && s->has_device && device_lookup(&s->device, name, &unused) == 0) {
        snprintf(prefixed, sizeof prefixed, "device.%s", name);
        hint = prefixed;
    }
    for (int i = 0; !hint && i < 3; ++i)
        if (strcmp(name, matrix_fields[i]) == 0)
            hint = mat_names[i];
    char did_you_mean[2 * RT_NAME_MAX + 32] = "";
    if (hint)
        snprintf(did_you_mean, sizeof did_you_mean, " (did you mean '%s'?)", hint);
    if (strncmp(name, "device.", 7) == 0 && !s->has_device)
        rt_err_set(ic->err, "'%s' is used but no device information is available here", name);
    else
        rt_err_set(ic->err,
                   "unknown identifier '%s'%s; constraints may use the kernel's parameters, the "
                   "problem parameters, matrix.rows/cols/nnz and device.<field>",
                   name, did_you_mean);
    return 1;
}

static int check_identifier(const char *name, void *vctx)
{
    ident_check *ic = vctx;
    const rt_space *s = ic->space;
    if (strncmp(name, "matrix.", 7) == 0 || strncmp(name, "device.", 7) == 0) {
        double v;
        lookup_ctx lc = {s, NULL};
        return space_lookup(name, &lc, &v) == 0 ? 0 : suggest_and_fail(ic, name);
    }
    for (int d = 0; d < s->n_dims; ++d) {
        if (strcmp(s->dims[d].name, name) != 0)
            continue;
        if (s->dims[d].schema->kind == RT_V_STR) {
            rt_err_set(ic->err,
                       "'%s' is a string parameter; constraints compute with numbers "
                       "only (restrict its values in params instead)",
                       name);
            return 1;
        }
        return 0;
    }
    const rt_value *pv = rt_params_get(&s->problem, name);
    if (pv) {
        if (pv->kind == RT_V_STR && isnan(rt_value_as_double(pv))) {
            rt_err_set(ic->err,
                       "problem parameter '%s' is a string (\"%s\"); constraints compute "
                       "with numbers only",
                       name, pv->s);
            return 1;
        }
        return 0;
    }
    return suggest_and_fail(ic, name);
}

/* Converts a config value to the schema's kind when that is lossless (4.0 -> 4 for an integer
 * parameter, 2 -> 2.0 for a real one), so points compare and serialise the same however the user
 * wrote them. Anything else is left for rt_param_check to reject. */
static rt_value normalise(const rt_param_schema *s, const rt_value *v)
{
    if (s->kind == RT_V_INT && v->kind == RT_V_REAL && v->r == floor(v->r) && fabs(v->r) < 9.0e15)
        return rt_value_int((int64_t)v->r);
    if (s->kind == RT_V_REAL && v->kind == RT_V_INT)
        return rt_value_real((double)v->i);
    return *v;
}

static int add_dim_from_config(rt_space *s, const rt_param_domain *dom,
                               const rt_param_schema *schema, rt_err *err)
{
    char where[600];
    format_loc(&dom->loc, where, sizeof where);
    if (dom->n_values <= 0 || !dom->values)
        return rt_err_set(err,
                          "%s: parameter '%s' of kernel %s has no values (empty list or "
                          "range); give at least one value",
                          where, dom->name, s->kernel);
    space_dim *d = &s->dims[s->n_dims];
    d->values = malloc((size_t)dom->n_values * sizeof *d->values);
    if (!d->values)
        return rt_err_set(err, "%s: out of memory for the %d values of '%s'", where, dom->n_values,
                          dom->name);
    for (int i = 0; i < dom->n_values; ++i)
        d->values[i] = normalise(schema, &dom->values[i]);
    snprintf(d->name, sizeof d->name, "%s", schema->name);
    d->schema = schema;
    d->n = dom->n_values;
    d->from_config = 1;
    d->loc = dom->loc;
    s->n_dims++;
    return 0;
}

static int add_dim_default(rt_space *s, const rt_param_schema *schema, rt_err *err)
{
    space_dim *d = &s->dims[s->n_dims];
    d->values = malloc(sizeof *d->values);
    if (!d->values)
        return rt_err_set(err, "out of memory for the default of '%s'", schema->name);
    if (rt_param_default(schema, &d->values[0], err) != 0) {
        free(d->values);
        d->values = NULL;
        return rt_err_prefix(err, "kernel %s", s->kernel);
    }
    snprintf(d->name, sizeof d->name, "%s", schema->name);
    d->schema = schema;
    d->n = 1;
    s->n_dims++;
    return 0;
}

static int build_dims(rt_space *s, const rt_kernel_cfg *kcfg, const rt_kernel_desc *k, rt_err *err)
{
    char where[600];
    format_loc(&kcfg->loc, where, sizeof where);
    if (k->n_params > RT_MAX_PARAMS)
        return rt_err_set(err,
                          "%s: kernel %s has %d parameters, more than the %d a point can "
                          "hold",
                          where, k->name, k->n_params, RT_MAX_PARAMS);
    for (int i = 0; i < kcfg->n_params; ++i) {
        const rt_param_domain *dom = &kcfg->params[i];
        char pwhere[600];
        format_loc(&dom->loc, pwhere, sizeof pwhere);
        const rt_param_schema *schema = rt_kernel_find_param(k, dom->name);
        if (!schema) {
            const char *cands[RT_MAX_PARAMS];
            for (int j = 0; j < k->n_params; ++j)
                cands[j] = k->params[j].name;
            const char *hint = rt_suggest(dom->name, cands, k->n_params);
            return rt_err_set(err, "%s: kernel %s has no parameter '%s'%s%s%s", pwhere, k->name,
                              dom->name, hint ? " (did you mean '" : "", hint ? hint : "",
                              hint ? "'?)" : "");
        }
        for (int j = 0; j < i; ++j)
            if (strcmp(kcfg->params[j].name, dom->name) == 0)
                return rt_err_set(err, "%s: parameter '%s' of kernel %s is given twice", pwhere,
                                  dom->name, k->name);
        if (add_dim_from_config(s, dom, schema, err) != 0)
            return -1;
    }
    for (int j = 0; j < k->n_params; ++j) {
        int given = 0;
        for (int d = 0; d < s->n_dims; ++d)
            if (strcmp(s->dims[d].name, k->params[j].name) == 0)
                given = 1;
        if (!given && add_dim_default(s, &k->params[j], err) != 0)
            return -1;
    }

    s->size = 1;
    for (int d = 0; d < s->n_dims; ++d) {
        if (s->dims[d].n > RT_SPACE_MAX_POINTS / s->size) {
            char shape[512] = "";
            size_t o = 0;
            for (int e = 0; e < s->n_dims && o < sizeof shape; ++e) {
                if (s->dims[e].n == 1)
                    continue;
                const int w = snprintf(shape + o, sizeof shape - o, "%s%s: %" PRId64,
                                       o ? " x " : "", s->dims[e].name, s->dims[e].n);
                if (w < 0)
                    break;
                o += (size_t)w;
            }
            return rt_err_set(err,
                              "%s: the parameter space of kernel %s has more than %" PRId64
                              " points (%s); narrow the domains, add constraints that prune "
                              "whole values, or sample it with search: {strategy: random, "
                              "budget: 200}",
                              where, k->name, RT_SPACE_MAX_POINTS, shape);
        }
        s->size *= s->dims[d].n;
    }
    return 0;
}

static int build_constraints(rt_space *s, const rt_kernel_cfg *kcfg, rt_err *err)
{
    if (kcfg->n_constraints <= 0)
        return 0;
    s->constraints = calloc((size_t)kcfg->n_constraints, sizeof *s->constraints);
    if (!s->constraints)
        return rt_err_set(err, "out of memory for %d constraints", kcfg->n_constraints);
    for (int i = 0; i < kcfg->n_constraints; ++i) {
        space_constraint *c = &s->constraints[i];
        snprintf(c->text, sizeof c->text, "%s", kcfg->constraints[i]);
        if (kcfg->constraint_locs)
            format_loc(&kcfg->constraint_locs[i], c->where, sizeof c->where);
        else
            format_loc(&kcfg->loc, c->where, sizeof c->where);
        s->n_constraints = i + 1; /* so rt_space_free releases what was parsed */
        if (rt_expr_parse(c->text, &c->expr, err) != 0)
            return rt_err_prefix(err, "%s: constraint '%s' of kernel %s", c->where, c->text,
                                 s->kernel);
        ident_check ic = {s, err};
        if (rt_expr_identifiers(c->expr, check_identifier, &ic) != 0)
            return rt_err_prefix(err, "%s: constraint '%s' of kernel %s", c->where, c->text,
                                 s->kernel);
    }
    return 0;
}

int rt_space_build(const rt_kernel_cfg *kcfg, const rt_kernel_desc *kernel,
                   const rt_params *problem, int64_t rows, int64_t cols, int64_t nnz,
                   const rt_device_info *device, rt_space **out, rt_err *err)
{
    *out = NULL;
    if (!kcfg || !kernel)
        return rt_err_set(err, "rt_space_build: missing kernel config or kernel descriptor");
    if (kcfg->n_params < 0 || kcfg->n_constraints < 0 || (kcfg->n_params > 0 && !kcfg->params) ||
        (kcfg->n_constraints > 0 && !kcfg->constraints))
        return rt_err_set(err, "rt_space_build: kernel config of %s is malformed", kcfg->name);
    if (kcfg->n_params > RT_MAX_PARAMS) {
        char where[600];
        format_loc(&kcfg->loc, where, sizeof where);
        return rt_err_set(err,
                          "%s: kernel %s sets %d parameters, more than the %d a point can "
                          "hold",
                          where, kcfg->name, kcfg->n_params, RT_MAX_PARAMS);
    }
    rt_space *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "out of memory for the parameter space of %s", kernel->name);
    snprintf(s->kernel, sizeof s->kernel, "%s", kernel->name);
    if (problem)
        s->problem = *problem;
    else
        rt_params_init(&s->problem);
    s->rows = rows;
    s->cols = cols;
    s->nnz = nnz;
    if (device) {
        s->has_device = 1;
        s->device = *device;
    }
    if (build_dims(s, kcfg, kernel, err) != 0 || build_constraints(s, kcfg, err) != 0) {
        rt_space_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

int64_t rt_space_size(const rt_space *space)
{
    return space->size;
}

int rt_space_coords(const rt_space *space, int64_t index, int64_t *coords)
{
    if (index < 0 || index >= space->size)
        return -1;
    for (int d = space->n_dims - 1; d >= 0; --d) {
        coords[d] = index % space->dims[d].n;
        index /= space->dims[d].n;
    }
    return 0;
}

int rt_space_index(const rt_space *space, const int64_t *coords, int64_t *index)
{
    int64_t idx = 0;
    for (int d = 0; d < space->n_dims; ++d) {
        if (coords[d] < 0 || coords[d] >= space->dims[d].n)
            return -1;
        idx = idx * space->dims[d].n + coords[d];
    }
    *index = idx;
    return 0;
}

int rt_space_point(const rt_space *space, int64_t index, rt_params *out_params, int *feasible,
                   char *why, size_t whylen, rt_err *err)
{
    char scratch[8];
    if (!why) {
        why = scratch;
        whylen = sizeof scratch;
    }
    if (whylen)
        why[0] = '\0';
    *feasible = 0;
    int64_t coords[RT_MAX_PARAMS];
    if (rt_space_coords(space, index, coords) != 0)
        return rt_err_set(err,
                          "point %" PRId64 " is outside the space of kernel %s (0..%" PRId64 ")",
                          index, space->kernel, space->size - 1);
    rt_params_init(out_params);
    for (int d = 0; d < space->n_dims; ++d)
        if (rt_params_set(out_params, space->dims[d].name, space->dims[d].values[coords[d]], err) !=
            0)
            return -1;

    for (int d = 0; d < space->n_dims; ++d) {
        const rt_value *v = &space->dims[d].values[coords[d]];
        if (rt_param_check(space->dims[d].schema, v, why, whylen) != 0)
            return 0;
    }
    lookup_ctx ctx = {space, out_params};
    for (int i = 0; i < space->n_constraints; ++i) {
        const space_constraint *c = &space->constraints[i];
        double result = 0.0;
        if (rt_expr_eval(c->expr, space_lookup, &ctx, &result, err) != 0) {
            char point[1024];
            if (rt_params_to_json(out_params, point, sizeof point) < 0)
                snprintf(point, sizeof point, "(point %" PRId64 ")", index);
            return rt_err_prefix(err, "%s: constraint '%s' of kernel %s cannot be evaluated at %s",
                                 c->where, c->text, space->kernel, point);
        }
        if (result == 0.0) {
            snprintf(why, whylen, "constraint '%s' is false", c->text);
            return 0;
        }
    }
    *feasible = 1;
    return 0;
}

int rt_space_n_dims(const rt_space *space)
{
    return space->n_dims;
}

const char *rt_space_dim_name(const rt_space *space, int dim)
{
    return (dim >= 0 && dim < space->n_dims) ? space->dims[dim].name : NULL;
}

int64_t rt_space_dim_size(const rt_space *space, int dim)
{
    return (dim >= 0 && dim < space->n_dims) ? space->dims[dim].n : 0;
}

const rt_value *rt_space_dim_value(const rt_space *space, int dim, int64_t coord)
{
    if (dim < 0 || dim >= space->n_dims || coord < 0 || coord >= space->dims[dim].n)
        return NULL;
    return &space->dims[dim].values[coord];
}

void rt_space_free(rt_space *space)
{
    if (!space)
        return;
    for (int d = 0; d < space->n_dims; ++d)
        free(space->dims[d].values);
    for (int i = 0; i < space->n_constraints; ++i)
        rt_expr_free(space->constraints[i].expr);
    free(space->constraints);
    free(space);
}
