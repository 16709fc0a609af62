/* rt_walk: see rt_walk.h. */
#include "rt_walk.h"

#include "rt_generators.h"
#include "rt_problem.h"

int rt_walk_build_matrix(const rt_matrix_cfg *mc, rt_csr *out, rt_err *err)
{
    const char *gen = mc->generator[0] ? mc->generator : NULL;
    const char *file = mc->file[0] ? mc->file : NULL;
    if (rt_matrix_build(gen, &mc->gen, file, mc->ordering[0] ? mc->ordering : NULL, out, err) !=
        0) {
        char loc[600];
        rt_src_loc_format(&mc->loc, loc, sizeof loc);
        return rt_err_prefix(err, "%s: matrix '%s'", loc, mc->name);
    }
    return 0;
}

static int stopped(const rt_walk_ops *ops, void *ctx)
{
    return ops->stopped && ops->stopped(ctx);
}

/* The kernels of one problem point of one matrix. */
static int walk_kernels(const rt_config *cfg, const rt_registry *reg, const rt_walk_ops *ops,
                        void *ctx, rt_sweep *s, const int64_t *shape, int with_space, rt_err *err)
{
    rt_params given;
    if (rt_problem_point(cfg, s->problem_index, &given, err) != 0)
        return -1;
    for (int ki = 0; ki < cfg->n_kernels && !stopped(ops, ctx); ++ki) {
        const rt_kernel_cfg *kc = &cfg->kernels[ki];
        const rt_kernel_desc *kd = rt_registry_find_kernel(reg, kc->name);
        if (!kd)
            return rt_err_set(err, "kernel '%s' is not registered", kc->name);
        if (ops->skip && ops->skip(ctx, s->matrix_index, s->problem_index, kd))
            continue;
        const rt_family_desc *fam = rt_registry_find_family(reg, kd->family);
        rt_params problem;
        if (rt_problem_for_family(fam, &given, &problem, err) != 0)
            return rt_err_prefix(err, "kernel %s", kd->name);
        s->kernel_index = ki;
        s->kernel_cfg = kc;
        s->kernel = kd;
        s->family = fam;
        s->problem = &problem;
        s->space = NULL;
        if (with_space &&
            rt_space_build(kc, kd, &problem, shape[0], shape[1], shape[2],
                           ops->device ? ops->device(ctx, kd) : NULL, &s->space, err) != 0)
            return -1;
        const int rc = ops->sweep(ctx, s, err);
        rt_space_free(s->space);
        s->space = NULL;
        if (rc != 0)
            return -1;
    }
    return 0;
}

int rt_walk(const rt_config *cfg, const rt_registry *reg, const rt_walk_ops *ops, void *ctx,
            rt_err *err)
{
    const int64_t nproblems = rt_problem_count(cfg);
    for (int mi = 0; mi < cfg->n_matrices && !stopped(ops, ctx); ++mi) {
        rt_sweep s = {.matrix_index = mi, .matrix = &cfg->matrices[mi]};
        int64_t shape[3] = {0, 0, 0};
        const int built = ops->matrix(ctx, mi, s.matrix, shape, err);
        if (built < 0)
            return -1;
        int rc = 0;
        for (int64_t pi = 0; pi < nproblems && rc == 0 && !stopped(ops, ctx); ++pi) {
            s.problem_index = pi;
            rc = walk_kernels(cfg, reg, ops, ctx, &s, shape, built == RT_WALK_MATRIX_OK, err);
            if (ops->problem_done)
                ops->problem_done(ctx);
        }
        if (ops->matrix_done)
            ops->matrix_done(ctx, mi);
        if (rc != 0)
            return -1;
    }
    return 0;
}

int rt_walk_next(const rt_config *cfg, const rt_registry *reg, const rt_sweep *s, rt_sweep *next,
                 rt_params *problem, rt_err *err)
{
    const int64_t nproblems = rt_problem_count(cfg);
    int mi = s->matrix_index, ki = s->kernel_index;
    int64_t pi = s->problem_index;
    if (cfg->n_kernels <= 0)
        return 0;
    for (;;) {
        if (++ki >= cfg->n_kernels) { /* the next problem point, then the next matrix */
            ki = 0;
            if (++pi >= nproblems) {
                pi = 0;
                if (++mi >= cfg->n_matrices)
                    return 0;
            }
        }
        const rt_kernel_desc *kd = rt_registry_find_kernel(reg, cfg->kernels[ki].name);
        if (!kd)
            return rt_err_set(err, "kernel '%s' is not registered", cfg->kernels[ki].name);
        if (kd->unavailable)
            continue;
        const rt_family_desc *fam = rt_registry_find_family(reg, kd->family);
        rt_params given;
        if (rt_problem_point(cfg, pi, &given, err) != 0 ||
            rt_problem_for_family(fam, &given, problem, err) != 0)
            return -1;
        *next = (rt_sweep){.matrix_index = mi,
                           .matrix = &cfg->matrices[mi],
                           .problem_index = pi,
                           .kernel_index = ki,
                           .kernel_cfg = &cfg->kernels[ki],
                           .kernel = kd,
                           .family = fam,
                           .problem = problem};
        return 1;
    }
}
