#include "rt_registry.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_strutil.h"

static int parse_number(const char *s, size_t len, double *out)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end = NULL;
    errno = 0;
    *out = strtod(buf, &end);
    return (errno == 0 && end && *end == '\0') ? 0 : -1;
}

int rt_param_check(const rt_param_schema *s, const rt_value *v, char *why, size_t whylen)
{
    char shown[2 * RT_STR_MAX];
    rt_value_format(v, shown, sizeof shown);
    if (s->kind == RT_V_STR && v->kind != RT_V_STR) {
        snprintf(why, whylen, "%s must be one of %s, not %s", s->name, s->domain, shown);
        return -1;
    }
    if (s->kind != RT_V_STR && v->kind == RT_V_STR) {
        snprintf(why, whylen, "%s must be a number, not %s", s->name, shown);
        return -1;
    }
    if (s->kind == RT_V_INT && v->kind == RT_V_REAL && v->r != floor(v->r)) {
        snprintf(why, whylen, "%s must be an integer, not %s", s->name, shown);
        return -1;
    }
    const char *d = s->domain ? s->domain : "";
    if (*d == '\0')
        return 0;
    const char *dots = strstr(d, "..");
    if (dots && !strchr(d, '|')) {
        double lo, hi;
        if (parse_number(d, (size_t)(dots - d), &lo) != 0 ||
            parse_number(dots + 2, strlen(dots + 2), &hi) != 0) {
            snprintf(why, whylen, "schema of %s has a malformed domain '%s'", s->name, d);
            return -1;
        }
        const double x = rt_value_as_double(v);
        if (!(x >= lo && x <= hi)) {
            snprintf(why, whylen, "%s = %s is outside its domain %s", s->name, shown, d);
            return -1;
        }
        return 0;
    }
    /* Alternatives separated by '|'. */
    const char *p = d;
    while (*p) {
        const char *bar = strchr(p, '|');
        const size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (v->kind == RT_V_STR) {
            if (strlen(v->s) == len && strncmp(v->s, p, len) == 0)
                return 0;
        } else {
            double x;
            if (parse_number(p, len, &x) == 0 && x == rt_value_as_double(v))
                return 0;
        }
        if (!bar)
            break;
        p = bar + 1;
    }
    snprintf(why, whylen, "%s = %s is not one of %s", s->name, shown, d);
    return -1;
}

int rt_param_default(const rt_param_schema *s, rt_value *out, rt_err *err)
{
    const char *t = s->default_value ? s->default_value : "";
    if (s->kind == RT_V_STR) {
        *out = rt_value_str(t);
        return 0;
    }
    double x;
    if (parse_number(t, strlen(t), &x) != 0)
        return rt_err_set(err, "parameter %s has no usable default ('%s')", s->name, t);
    *out = s->kind == RT_V_INT ? rt_value_int((int64_t)x) : rt_value_real(x);
    return 0;
}

void rt_registry_init(rt_registry *reg)
{
    memset(reg, 0, sizeof *reg);
}

int rt_registry_add_family(rt_registry *reg, const rt_family_desc *fam, rt_err *err)
{
    if (rt_registry_find_family(reg, fam->name))
        return rt_err_set(err, "family '%s' is registered twice", fam->name);
    if (reg->n_families >= RT_REGISTRY_MAX_FAMILIES)
        return rt_err_set(err, "too many kernel families (at most %d)", RT_REGISTRY_MAX_FAMILIES);
    reg->families[reg->n_families++] = fam;
    return 0;
}

int rt_family_has_inputs(const rt_family_desc *fam)
{
    return fam->make_inputs_ctx || fam->make_inputs_until || fam->make_inputs;
}

int rt_family_has_footprint(const rt_family_desc *fam)
{
    return fam->footprint_ctx || fam->footprint;
}

int rt_family_make_inputs(const rt_family_desc *fam, const rt_csr *a, const rt_params *problem,
                          const rt_job *job, const rt_stop *stop, void **inputs, rt_err *err)
{
    *inputs = NULL;
    if (rt_job_check(job, fam->name, err) != 0)
        return -1;
    if (fam->make_inputs_ctx)
        return fam->make_inputs_ctx(fam->ctx, a, problem, job, inputs, err);
    if (fam->make_inputs_until)
        return fam->make_inputs_until(a, problem, job, stop, inputs, err);
    if (fam->make_inputs)
        return fam->make_inputs(a, problem, job, inputs, err);
    return rt_err_set(err, "family '%s' builds no inputs", fam->name);
}

int rt_family_footprint(const rt_family_desc *fam, const rt_csr *a, const rt_params *problem,
                        const rt_job *job, rt_footprint *out, rt_err *err)
{
    if (rt_job_check(job, fam->name, err) != 0)
        return -1;
    if (fam->footprint_ctx)
        return fam->footprint_ctx(fam->ctx, a, problem, job, out, err);
    if (fam->footprint)
        return fam->footprint(a, problem, job, out, err);
    return rt_err_set(err, "family '%s' has no footprint estimate", fam->name);
}

int rt_registry_add_kernel(rt_registry *reg, const rt_kernel_desc *k, rt_err *err)
{
    if (!k->name || !k->family || !k->backend || !k->setup || !k->run || !k->output || !k->teardown)
        return rt_err_set(err, "kernel '%s' lacks a name, family, backend or required hook",
                          k->name ? k->name : "(unnamed)");
    if (rt_registry_find_kernel(reg, k->name))
        return rt_err_set(err, "kernel '%s' is registered twice", k->name);
    if (!rt_registry_find_family(reg, k->family))
        return rt_err_set(err, "kernel '%s' names unknown family '%s'", k->name, k->family);
    if (reg->n_kernels >= RT_REGISTRY_MAX_KERNELS)
        return rt_err_set(err, "too many kernels (at most %d)", RT_REGISTRY_MAX_KERNELS);
    for (int i = 0; i < k->n_params; ++i) {
        rt_value v;
        char why[256];
        if (rt_param_default(&k->params[i], &v, err) != 0)
            return rt_err_prefix(err, "kernel '%s'", k->name);
        if (rt_param_check(&k->params[i], &v, why, sizeof why) != 0)
            return rt_err_set(err, "kernel '%s': default of %s fails its own domain: %s", k->name,
                              k->params[i].name, why);
    }
    reg->kernels[reg->n_kernels++] = k;
    return 0;
}

const rt_kernel_desc *rt_registry_find_kernel(const rt_registry *reg, const char *name)
{
    for (int i = 0; i < reg->n_kernels; ++i)
        if (strcmp(reg->kernels[i]->name, name) == 0)
            return reg->kernels[i];
    return NULL;
}

const rt_family_desc *rt_registry_find_family(const rt_registry *reg, const char *name)
{
    for (int i = 0; i < reg->n_families; ++i)
        if (strcmp(reg->families[i]->name, name) == 0)
            return reg->families[i];
    return NULL;
}

const rt_param_schema *rt_kernel_find_param(const rt_kernel_desc *k, const char *name)
{
    for (int i = 0; i < k->n_params; ++i)
        if (strcmp(k->params[i].name, name) == 0)
            return &k->params[i];
    return NULL;
}

const char *rt_registry_suggest(const rt_registry *reg, const char *name)
{
    const char *names[RT_REGISTRY_MAX_KERNELS];
    for (int i = 0; i < reg->n_kernels; ++i)
        names[i] = reg->kernels[i]->name;
    return rt_suggest(name, names, reg->n_kernels);
}
