#include "rt_params.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_json.h"

rt_value rt_value_int(int64_t i)
{
    rt_value v;
    memset(&v, 0, sizeof v);
    v.kind = RT_V_INT;
    v.i = i;
    v.r = (double)i;
    return v;
}

rt_value rt_value_real(double r)
{
    rt_value v;
    memset(&v, 0, sizeof v);
    v.kind = RT_V_REAL;
    v.r = r;
    /* The integer view saturates: converting a double outside int64's range (or NaN) is undefined
     * behaviour (found by fuzz.config with K: [1.2e45]). */
    if (r != r)
        v.i = 0;
    else if (r >= 9223372036854775808.0)
        v.i = INT64_MAX;
    else if (r < -9223372036854775808.0)
        v.i = INT64_MIN;
    else
        v.i = (int64_t)r;
    return v;
}

rt_value rt_value_str(const char *s)
{
    rt_value v;
    memset(&v, 0, sizeof v);
    v.kind = RT_V_STR;
    snprintf(v.s, sizeof v.s, "%s", s ? s : "");
    return v;
}

double rt_value_as_double(const rt_value *v)
{
    switch (v->kind) {
    case RT_V_INT: return (double)v->i;
    case RT_V_REAL: return v->r;
    case RT_V_STR: {
        char *end = NULL;
        const double d = strtod(v->s, &end);
        return (end && end != v->s && *end == '\0') ? d : NAN;
    }
    }
    return NAN;
}

int rt_value_format(const rt_value *v, char *buf, size_t len)
{
    switch (v->kind) {
    case RT_V_INT: return snprintf(buf, len, "%" PRId64, v->i);
    case RT_V_REAL:
        if (!isfinite(v->r))
            return snprintf(buf, len, "null");
        return snprintf(buf, len, "%.17g", v->r);
    case RT_V_STR: {
        char esc[2 * RT_STR_MAX];
        rt_json_escape_to(v->s, esc, sizeof esc);
        return snprintf(buf, len, "\"%s\"", esc);
    }
    }
    return snprintf(buf, len, "null");
}

int rt_value_equal(const rt_value *a, const rt_value *b)
{
    if (a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case RT_V_INT: return a->i == b->i;
    case RT_V_REAL: return a->r == b->r;
    case RT_V_STR: return strcmp(a->s, b->s) == 0;
    }
    return 0;
}

void rt_params_init(rt_params *p)
{
    memset(p, 0, sizeof *p);
}

int rt_params_set(rt_params *p, const char *name, rt_value value, rt_err *err)
{
    if (strlen(name) >= RT_NAME_MAX)
        return rt_err_set(err, "parameter name '%s' is longer than %d characters", name,
                          RT_NAME_MAX - 1);
    for (int k = 0; k < p->n; ++k) {
        if (strcmp(p->item[k].name, name) == 0) {
            p->item[k].value = value;
            return 0;
        }
    }
    if (p->n >= RT_MAX_PARAMS)
        return rt_err_set(err, "too many parameters (at most %d): cannot add '%s'", RT_MAX_PARAMS,
                          name);
    snprintf(p->item[p->n].name, RT_NAME_MAX, "%s", name);
    p->item[p->n].value = value;
    p->n++;
    return 0;
}

const rt_value *rt_params_get(const rt_params *p, const char *name)
{
    for (int k = 0; k < p->n; ++k)
        if (strcmp(p->item[k].name, name) == 0)
            return &p->item[k].value;
    return NULL;
}

int64_t rt_params_int(const rt_params *p, const char *name, int64_t fallback)
{
    const rt_value *v = rt_params_get(p, name);
    if (!v)
        return fallback;
    if (v->kind == RT_V_INT)
        return v->i;
    const double d = rt_value_as_double(v);
    return isfinite(d) ? (int64_t)d : fallback;
}

double rt_params_real(const rt_params *p, const char *name, double fallback)
{
    const rt_value *v = rt_params_get(p, name);
    if (!v)
        return fallback;
    const double d = rt_value_as_double(v);
    return isnan(d) ? fallback : d;
}

const char *rt_params_str(const rt_params *p, const char *name, const char *fallback)
{
    const rt_value *v = rt_params_get(p, name);
    return (v && v->kind == RT_V_STR) ? v->s : fallback;
}

int rt_params_merge(rt_params *dst, const rt_params *src, rt_err *err)
{
    for (int k = 0; k < src->n; ++k)
        if (rt_params_set(dst, src->item[k].name, src->item[k].value, err) != 0)
            return -1;
    return 0;
}

int rt_params_to_json(const rt_params *p, char *buf, size_t len)
{
    int order[RT_MAX_PARAMS];
    for (int k = 0; k < p->n; ++k)
        order[k] = k;
    /* Insertion sort by name: n is at most RT_MAX_PARAMS. */
    for (int a = 1; a < p->n; ++a) {
        const int key = order[a];
        int b = a - 1;
        while (b >= 0 && strcmp(p->item[order[b]].name, p->item[key].name) > 0) {
            order[b + 1] = order[b];
            --b;
        }
        order[b + 1] = key;
    }
    size_t o = 0;
    int w = snprintf(buf, len, "{");
    o = (w > 0 && (size_t)w < len) ? (size_t)w : len;
    for (int k = 0; k < p->n && o < len; ++k) {
        char val[2 * RT_STR_MAX + 8];
        rt_value_format(&p->item[order[k]].value, val, sizeof val);
        w = snprintf(buf + o, len - o, "%s\"%s\":%s", k ? "," : "", p->item[order[k]].name, val);
        o = (w > 0 && o + (size_t)w < len) ? o + (size_t)w : len;
    }
    if (o < len) {
        w = snprintf(buf + o, len - o, "}");
        o = (w > 0 && o + (size_t)w < len) ? o + (size_t)w : len;
    }
    return o < len ? (int)o : -1;
}
