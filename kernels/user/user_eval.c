#include "user_eval.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rt_strutil.h"

static int scope_lookup(const char *name, void *ctx, double *value)
{
    const user_scope *s = ctx;
    const rt_params *sets[2] = {s->params, s->problem};
    for (int i = 0; i < 2; ++i) {
        const rt_value *v = sets[i] ? rt_params_get(sets[i], name) : NULL;
        if (v && v->kind != RT_V_STR) {
            *value = rt_value_as_double(v);
            return 0;
        }
        if (v)
            return -1; /* a word cannot take part in arithmetic */
    }
    if (s->device && strncmp(name, "device.", 7) == 0)
        return rt_config_device_value(s->device, name + 7, value);
    return -1;
}

int user_eval(const user_expr *e, const user_scope *s, double *out, rt_err *err)
{
    if (!e->expr)
        return rt_err_set(err, "%s:%d:%d: %s: not given", e->loc.file, e->loc.line, e->loc.col,
                          e->what);
    if (rt_expr_eval(e->expr, scope_lookup, (void *)s, out, err) != 0)
        return rt_err_prefix(err, "%s:%d:%d: %s", e->loc.file, e->loc.line, e->loc.col, e->what);
    return 0;
}

int user_eval_int(const user_expr *e, const user_scope *s, int64_t lo, int64_t hi, int64_t *out,
                  rt_err *err)
{
    double v;
    if (user_eval(e, s, &v, err) != 0)
        return -1;
    if (v != floor(v) || v < (double)lo || v > (double)hi)
        return rt_err_set(err,
                          "%s:%d:%d: %s: '%s' gives %.17g; expected an integer from %lld to %lld",
                          e->loc.file, e->loc.line, e->loc.col, e->what, rt_expr_text(e->expr), v,
                          (long long)lo, (long long)hi);
    *out = (int64_t)v;
    return 0;
}

int user_expr_parse(user_expr *e, const char *text, const rt_src_loc *loc, const char *what,
                    rt_err *err)
{
    e->expr = NULL;
    e->loc = *loc;
    snprintf(e->what, sizeof e->what, "%s", what);
    if (rt_expr_parse(text, &e->expr, err) != 0)
        return rt_err_prefix(err, "%s:%d:%d: %s", loc->file, loc->line, loc->col, what);
    return 0;
}

void user_expr_free(user_expr *e)
{
    rt_expr_free(e->expr);
    e->expr = NULL;
}

typedef struct names_ctx {
    const char *const *names;
    int n;
    int allow_device;
    const char *unknown;
} names_ctx;

static int name_known(const char *name, void *ctx)
{
    names_ctx *c = ctx;
    for (int i = 0; i < c->n; ++i)
        if (strcmp(c->names[i], name) == 0)
            return 0;
    static const rt_device_info none;
    double unused;
    if (c->allow_device && strncmp(name, "device.", 7) == 0 &&
        rt_config_device_value(&none, name + 7, &unused) == 0)
        return 0;
    c->unknown = name;
    return 1;
}

int user_expr_check_names(const user_expr *e, const char *const *names, int n, int allow_device,
                          rt_err *err)
{
    if (!e->expr)
        return 0;
    names_ctx c = {names, n, allow_device, NULL};
    if (rt_expr_identifiers(e->expr, name_known, &c) == 0)
        return 0;
    char list[512] = "";
    size_t used = 0;
    for (int i = 0; i < n && used < sizeof list; ++i)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", names[i]);
    const char *hint = rt_suggest(c.unknown, names, n);
    return rt_err_set(err, "%s:%d:%d: %s: '%s' names nothing it may use%s%s%s (it may use: %s%s)",
                      e->loc.file, e->loc.line, e->loc.col, e->what, c.unknown,
                      hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "",
                      n > 0 ? list : "numbers only", allow_device ? ", device.<field>" : "");
}
