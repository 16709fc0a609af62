/* The right-hand-side experiment (configs/paper/sptrsv-rhs.yaml) and its six parts
 * (sptrsv-rhs-{1,8,32}-{forward,backward}.yaml, one device call's share each):
 *   - the parts hold the whole config's problem points between them, each exactly once, and
 *     its kernels and measurement (they include it), so their stores together are the whole;
 *   - the order that makes it finish: the single-GPU baselines first, in one abort group, the
 *     persistent solve (spanning the ranks) last, so a problem point builds its inputs once for
 *     the spread entries and once for the 4-rank job; cuSPARSE's option sets SpSM first, then SpSV
 *     in CSR, COO and sliced ELL last (the likely best before the slow ones), over the whole
 *     option space (48 sets);
 *   - early abort at 10x from the verification execution on (abort_reps 0), full medians of 6
 *     samples, and a point timeout above one sliced-ELL SpSV execution with 32 right-hand sides
 *     (32 solves of up to 8.36 s on lap3d27-70: results/baselines/h200-x4/sptrsv-scaling.db).
 *
 * Usage: test_sptrsv_rhs_configs SOURCE_ROOT */
#include <stdio.h>
#include <string.h>

#include "rt_config.h"
#include "rt_cuda_unavailable.h"
#include "rt_kernels.h"
#include "rt_problem.h"
#include "rt_space.h"
#include "rt_test.h"

#define N_PARTS 6
#define MAX_PTS 16

static const char *const k_parts[N_PARTS] = {"1-forward",  "1-backward", "8-forward",
                                             "8-backward", "32-forward", "32-backward"};

static int load(const char *root, const char *name, const rt_registry *reg, rt_config *cfg)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/configs/paper/%s.yaml", root, name);
    rt_err err;
    if (rt_config_load(path, NULL, 0, cfg, &err) != 0) {
        RT_CHECK_MSG(0, "%s: %s", name, err.msg);
        return -1;
    }
    if (rt_config_check(cfg, reg, &err) != 0) {
        RT_CHECK_MSG(0, "%s: %s", name, err.msg);
        rt_config_free(cfg);
        return -1;
    }
    return 0;
}

/* The config's problem points as JSON, appended to pts (n of them so far). */
static void problem_points(const rt_config *cfg, char pts[][256], int *n)
{
    for (int64_t i = 0; i < rt_problem_count(cfg) && *n < MAX_PTS; ++i) {
        rt_params p;
        rt_err err;
        RT_CHECK(rt_problem_point(cfg, i, &p, &err) == 0);
        RT_CHECK(rt_params_to_json(&p, pts[*n], sizeof pts[0]) > 0);
        ++*n;
    }
}

/* Kernels, groups, spreading and measurement, as the whole config has them. */
static void check_entries(const char *name, const rt_config *cfg)
{
    static const char *const kernels[] = {"sptrsv.cuda.supernodal", "sptrsv.cuda.cusparse",
                                          "sptrsv.cuda.persistent"};
    static const int parallel[] = {RT_KERNEL_PARALLEL_RANKS, RT_KERNEL_PARALLEL_RANKS,
                                   RT_KERNEL_PARALLEL_SEARCH};
    static const char *const group[] = {"baseline", "baseline", ""};
    RT_CHECK_MSG(cfg->n_kernels == 3, "%s: %d kernel entries", name, cfg->n_kernels);
    for (int i = 0; i < 3 && i < cfg->n_kernels; ++i) {
        const rt_kernel_cfg *k = &cfg->kernels[i];
        RT_CHECK_MSG(strcmp(k->name, kernels[i]) == 0 && k->parallel == parallel[i] &&
                         strcmp(k->abort_group, group[i]) == 0,
                     "%s: kernels[%d] is %s (parallel %d, group '%s')", name, i, k->name,
                     k->parallel, k->abort_group);
    }
    const rt_measure_cfg *m = &cfg->measure;
    RT_CHECK_MSG(m->abort_factor == 10 && m->abort_reps == 0 && m->min_reps == 6 &&
                     m->point_timeout_s > 32 * 8.36,
                 "%s: abort_factor %g, abort_reps %d, min_reps %d, point_timeout_s %g", name,
                 m->abort_factor, m->abort_reps, m->min_reps, m->point_timeout_s);
    RT_CHECK(cfg->search.parallel == RT_PARALLEL_NONE &&
             strcmp(cfg->search.strategy, "exhaustive") == 0);
}

/* cuSPARSE's option sets in the order the exhaustive search visits them: every SpSM before every
 * SpSV, and SpSV's formats CSR, COO, then sliced ELL. */
static void check_cusparse_order(const char *name, const rt_config *cfg, const rt_registry *reg)
{
    const rt_kernel_cfg *kc = &cfg->kernels[1];
    const rt_kernel_desc *kd = rt_registry_find_kernel(reg, kc->name);
    const rt_family_desc *fam = kd ? rt_registry_find_family(reg, kd->family) : NULL;
    RT_CHECK(kd && fam);
    if (!kd || !fam)
        return;
    rt_params given, problem;
    rt_err err;
    RT_CHECK(rt_problem_point(cfg, 0, &given, &err) == 0 &&
             rt_problem_for_family(fam, &given, &problem, &err) == 0);
    rt_space *space = NULL;
    RT_CHECK_MSG(rt_space_build(kc, kd, &problem, 0, 0, 0, NULL, &space, &err) == 0, "%s: %s", name,
                 err.msg);
    if (!space)
        return;
    RT_CHECK_MSG(rt_space_size(space) == 48, "%s: %lld cuSPARSE option sets", name,
                 (long long)rt_space_size(space));
    static const char *const rank_of[] = {"spsm", "spsv csr", "spsv coo", "spsv sell"};
    int last = 0;
    for (int64_t i = 0; i < rt_space_size(space); ++i) {
        rt_params p;
        int feasible = 1;
        char why[256];
        RT_CHECK(rt_space_point(space, i, &p, &feasible, why, sizeof why, &err) == 0);
        const rt_value *api = rt_params_get(&p, "api"), *fmt = rt_params_get(&p, "format");
        if (!api || !fmt)
            continue;
        char key[32];
        snprintf(key, sizeof key, "%s %s", api->s, fmt->s);
        int r = 0;
        for (int j = 1; j < 4; ++j)
            if (strcmp(key, rank_of[j]) == 0)
                r = j;
        RT_CHECK_MSG(r >= last, "%s: option set %lld (%s) comes after %s", name, (long long)i, key,
                     rank_of[last]);
        last = r > last ? r : last;
    }
    RT_CHECK_MSG(last == 3, "%s: sliced-ELL SpSV never comes", name);
    rt_space_free(space);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_sptrsv_rhs_configs SOURCE_ROOT\n");
        return 2;
    }
    rt_registry reg;
    rt_err err;
    rt_registry_init(&reg);
    RT_CHECK_MSG(rt_kernels_register_builtin(&reg, &err) == 0 &&
                     rt_cuda_register_unavailable(&reg, "the test reads schemas only", &err) == 0,
                 "%s", err.msg);
    rt_config whole;
    char want[MAX_PTS][256], got[MAX_PTS][256];
    int n_want = 0, n_got = 0;
    if (load(argv[1], "sptrsv-rhs", &reg, &whole) == 0) {
        problem_points(&whole, want, &n_want);
        check_entries("sptrsv-rhs", &whole);
        check_cusparse_order("sptrsv-rhs", &whole, &reg);
        rt_config_free(&whole);
    }
    RT_CHECK_MSG(n_want == 6, "the whole config has %d problem points", n_want);
    for (int i = 0; i < N_PARTS; ++i) {
        char name[64];
        snprintf(name, sizeof name, "sptrsv-rhs-%s", k_parts[i]);
        rt_config part;
        if (load(argv[1], name, &reg, &part) != 0)
            continue;
        const int before = n_got;
        problem_points(&part, got, &n_got);
        RT_CHECK_MSG(n_got - before == 1, "%s: %d problem points", name, n_got - before);
        RT_CHECK_MSG(strcmp(part.name, name) == 0, "%s: experiment %s", name, part.name);
        check_entries(name, &part);
        check_cusparse_order(name, &part, &reg);
        rt_config_free(&part);
    }
    /* Every problem point of the whole in exactly one part. */
    RT_CHECK_MSG(n_got == n_want, "the parts hold %d problem points, the whole %d", n_got, n_want);
    for (int i = 0; i < n_want; ++i) {
        int times = 0;
        for (int j = 0; j < n_got; ++j)
            times += strcmp(want[i], got[j]) == 0;
        RT_CHECK_MSG(times == 1, "problem point %s is in %d parts", want[i], times);
    }
    rt_cuda_unregister_unavailable(&reg);
    return RT_TEST_RESULT();
}
