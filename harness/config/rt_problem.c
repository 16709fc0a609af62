#include "rt_problem.h"

int64_t rt_problem_count(const rt_config *cfg)
{
    int64_t n = 1;
    for (int i = 0; i < cfg->n_problem; ++i)
        n *= cfg->problem[i].n_values > 0 ? cfg->problem[i].n_values : 1;
    return n;
}

int rt_problem_point(const rt_config *cfg, int64_t index, rt_params *out, rt_err *err)
{
    rt_params_init(out);
    for (int i = cfg->n_problem - 1; i >= 0; --i) {
        const rt_param_domain *d = &cfg->problem[i];
        if (d->n_values <= 0)
            continue;
        const int64_t k = index % d->n_values;
        index /= d->n_values;
        if (rt_params_set(out, d->name, d->values[k], err) != 0)
            return -1;
    }
    return 0;
}

int rt_problem_for_family(const rt_family_desc *fam, const rt_params *given, rt_params *out,
                          rt_err *err)
{
    rt_params_init(out);
    for (int i = 0; i < fam->n_problem_params; ++i) {
        const rt_param_schema *s = &fam->problem_params[i];
        const rt_value *v = rt_params_get(given, s->name);
        rt_value dv;
        if (!v) {
            if (rt_param_default(s, &dv, err) != 0)
                return -1;
            v = &dv;
        }
        char why[256];
        if (rt_param_check(s, v, why, sizeof why) != 0)
            return rt_err_set(err, "problem: %s", why);
        if (rt_params_set(out, s->name, *v, err) != 0)
            return -1;
    }
    return 0;
}
