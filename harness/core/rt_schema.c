#include "rt_schema.h"

#include <stdio.h>
#include <string.h>

static const rt_param_schema *find_schema(const rt_param_schema *schema, int n_schema,
                                          const char *name)
{
    for (int i = 0; i < n_schema; ++i)
        if (strcmp(schema[i].name, name) == 0)
            return &schema[i];
    return NULL;
}

/* The value a hook should use: the one set in p, or the schema default; checked against the
 * schema so a hook never sees an out-of-domain value. */
static int resolve(const rt_param_schema *schema, int n_schema, const char *owner,
                   const rt_params *p, const char *name, rt_vkind want, rt_value *out, rt_err *err)
{
    const rt_param_schema *s = find_schema(schema, n_schema, name);
    if (!s || s->kind != want)
        return rt_err_set(err, "%s: internal error: no %s parameter '%s' in its schema", owner,
                          want == RT_V_STR ? "string" : "integer", name);
    const rt_value *v = p ? rt_params_get(p, name) : NULL;
    if (v) {
        *out = *v;
    } else if (rt_param_default(s, out, err) != 0) {
        return rt_err_prefix(err, "%s", owner);
    }
    char why[256];
    if (rt_param_check(s, out, why, sizeof why) != 0)
        return rt_err_set(err, "%s: %s", owner, why);
    return 0;
}

int rt_schema_int(const rt_param_schema *schema, int n_schema, const char *owner,
                  const rt_params *p, const char *name, int64_t *out, rt_err *err)
{
    rt_value v;
    if (resolve(schema, n_schema, owner, p, name, RT_V_INT, &v, err) != 0)
        return -1;
    /* rt_param_check accepted it, so a real value here is integral. */
    *out = v.kind == RT_V_INT ? v.i : (int64_t)v.r;
    return 0;
}

int rt_schema_str(const rt_param_schema *schema, int n_schema, const char *owner,
                  const rt_params *p, const char *name, char *out, size_t outlen, rt_err *err)
{
    rt_value v;
    if (resolve(schema, n_schema, owner, p, name, RT_V_STR, &v, err) != 0)
        return -1;
    if (strlen(v.s) >= outlen)
        return rt_err_set(err, "%s: value of %s ('%s') is too long", owner, name, v.s);
    snprintf(out, outlen, "%s", v.s);
    return 0;
}
