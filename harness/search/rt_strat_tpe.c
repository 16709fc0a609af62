/* tpe: a Tree-structured Parzen Estimator (Bergstra et al., "Algorithms for Hyper-Parameter
 * Optimization", NeurIPS 2011), with every parameter treated as categorical.
 *
 * Each step splits the measured points at the quantile `gamma` of their times: the fastest
 * ceil(gamma * n) are good, the rest (failed points included, as the slowest) bad. Per parameter,
 * a smoothed histogram of its values among the good points is l and among the bad points g:
 * p(v) = (count(v) + prior / K) / (points + prior) over the K values of the parameter, so a value
 * never seen keeps a little mass. The model is the product over parameters (factorised). The step
 * draws candidates from l, value by value, keeps those that are open (unmeasured and feasible;
 * an infeasible draw is tested once and counted as skipped, as for every strategy) and proposes
 * the one maximising l(x) / g(x); the first open draw wins a tie. When no draw is open the driver
 * yields the next point of the seed's random order. The first points are the driver's random
 * points.
 *
 * Values are categories, not positions: block sizes 16 and 32 are as far apart as 16 and 256, so a
 * space whose good values are scattered along a parameter (convolution_MI250X's block_size_x) is
 * modelled as easily as one whose good values are adjacent. */
#include <math.h>
#include <stdlib.h>

#include "rt_strategy_impl.h"

#define TPE_DRAWS_PER_CANDIDATE 8 /* draws tried per open candidate wanted */

typedef struct tpe_state {
    int n_init;
    double gamma;
    int candidates;
    double prior;
    int64_t offset[RT_MAX_PARAMS]; /* where each parameter's values start in the tables */
    double *good, *bad;            /* counts, then log-probabilities, per parameter and value */
    rt_strat_sample *order;        /* (objective, history position), sorted by objective */
    double *cum;                   /* l's cumulative distribution, per parameter and value */
} tpe_state;

static const rt_strategy_option tpe_options[] = {
    {"gamma", 0.1, 0.01, 0.5, 0,
     "share of the measured points (the fastest) that make the good model l; the rest make g"},
    {"init", 0, 0, 4096, 1,
     "random points before the model is used; 0: a tenth of the budget, between 4 and 10"},
    {"candidates", 64, 1, 65536, 1,
     "open points drawn from l per step; the one with the largest l(x)/g(x) is measured"},
    {"prior", 10, 0.01, 100, 0,
     "weight of the uniform prior in each parameter's histogram (spread over its values)"},
};

static void tpe_release(rt_strategy *s)
{
    tpe_state *st = s->state;
    if (!st)
        return;
    free(st->good);
    free(st->bad);
    free(st->cum);
    free(st->order);
    free(st);
    s->state = NULL;
}

static int tpe_init(rt_strategy *s, rt_err *err)
{
    tpe_state *st = calloc(1, sizeof *st);
    if (!st)
        return rt_err_set(err, "out of memory for strategy tpe");
    s->state = st;
    const int init = (int)rt_strat_option(s, "init");
    if (init > 0) {
        st->n_init = init;
    } else {
        const int64_t n0 = s->budget / 10;
        st->n_init = (int)(n0 < 4 ? 4 : (n0 > 10 ? 10 : n0));
    }
    st->gamma = rt_strat_option(s, "gamma");
    st->candidates = (int)rt_strat_option(s, "candidates");
    st->prior = rt_strat_option(s, "prior");
    int64_t total = 0;
    for (int d = 0; d < s->grid.n_dims; ++d) {
        st->offset[d] = total;
        total += s->grid.dim_size[d];
    }
    st->good = malloc((size_t)total * sizeof *st->good);
    st->bad = malloc((size_t)total * sizeof *st->bad);
    st->cum = malloc((size_t)total * sizeof *st->cum);
    if (!st->good || !st->bad || !st->cum) {
        tpe_release(s);
        return rt_err_set(err, "out of memory for strategy tpe");
    }
    return 0;
}

/* By objective (failed points last), ties by history position, so the split is deterministic.
 * The pairs carry the history position in .index. */
static int cmp_sample(const void *a, const void *b)
{
    const rt_strat_sample *x = a, *y = b;
    if (x->obj != y->obj)
        return x->obj < y->obj ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int64_t tpe_propose(rt_strategy *s)
{
    tpe_state *st = s->state;
    const int64_t n = s->n_hist;
    if (n < st->n_init || n < 2)
        return -1;
    rt_strat_sample *order = realloc(st->order, (size_t)n * sizeof *order);
    if (!order)
        return -1;
    st->order = order;
    int64_t finite = 0;
    for (int64_t k = 0; k < n; ++k) {
        const double o = s->hist[k].obj;
        order[k].obj = isfinite(o) ? o : INFINITY;
        order[k].index = k;
        finite += isfinite(o);
    }
    if (finite == 0)
        return -1;
    qsort(order, (size_t)n, sizeof *order, cmp_sample);
    int64_t n_good = (int64_t)ceil(st->gamma * (double)n);
    if (n_good < 1)
        n_good = 1;
    if (n_good > finite)
        n_good = finite;
    if (n_good >= n)
        n_good = n - 1;
    const int64_t n_bad = n - n_good;

    /* The histograms, then log l and log g per parameter and value, and l's cumulative
     * distribution for drawing. */
    const int nd = s->grid.n_dims;
    for (int d = 0; d < nd; ++d)
        for (int64_t v = 0; v < s->grid.dim_size[d]; ++v)
            st->good[st->offset[d] + v] = st->bad[st->offset[d] + v] = 0;
    int64_t c[RT_MAX_PARAMS];
    for (int64_t k = 0; k < n; ++k) {
        rt_strat_coords(s, s->hist[order[k].index].index, c);
        double *counts = k < n_good ? st->good : st->bad;
        for (int d = 0; d < nd; ++d)
            counts[st->offset[d] + c[d]] += 1;
    }
    for (int d = 0; d < nd; ++d) {
        const int64_t K = s->grid.dim_size[d];
        const double base = st->prior / (double)K;
        double acc = 0;
        for (int64_t v = 0; v < K; ++v) {
            const int64_t o = st->offset[d] + v;
            const double pl = (st->good[o] + base) / ((double)n_good + st->prior);
            const double pg = (st->bad[o] + base) / ((double)n_bad + st->prior);
            acc += pl;
            st->cum[o] = acc;
            st->good[o] = log(pl);
            st->bad[o] = log(pg);
        }
    }

    /* Candidates drawn from l; the open one with the largest log l - log g. */
    int64_t chosen = -1;
    double chosen_score = -INFINITY;
    int found = 0;
    const int64_t max_draws = (int64_t)st->candidates * TPE_DRAWS_PER_CANDIDATE;
    for (int64_t t = 0; t < max_draws && found < st->candidates; ++t) {
        double score = 0;
        for (int d = 0; d < nd; ++d) {
            const int64_t K = s->grid.dim_size[d];
            const double *cum = st->cum + st->offset[d];
            const double u = rt_strat_unif(s) * cum[K - 1];
            int64_t v = 0;
            while (v < K - 1 && cum[v] <= u)
                ++v;
            c[d] = v;
            score += st->good[st->offset[d] + v] - st->bad[st->offset[d] + v];
        }
        const int64_t i = rt_strat_index(s, c);
        if (!rt_strat_open(s, i))
            continue;
        ++found;
        if (score > chosen_score) {
            chosen_score = score;
            chosen = i;
        }
    }
    return chosen >= 0 && rt_strat_take(s, chosen) ? chosen : -1;
}

const rt_strategy_ops rt_strat_tpe_ops = {
    {"tpe",
     "tree-structured Parzen estimator: the fastest share gamma of the measured points against "
     "the rest, a smoothed histogram of each parameter's values in each (values as categories, "
     "not positions); of candidates drawn from the fast points' model, the one with the largest "
     "ratio of the two models is measured; the first tenth of the budget (4 to 10 points) is "
     "random",
     tpe_options, RT_N_OPTIONS(tpe_options), RT_STRATEGY_DEFAULT_BUDGET, 0, 0, 0},
    tpe_init,
    tpe_propose,
    NULL,
    tpe_release};
