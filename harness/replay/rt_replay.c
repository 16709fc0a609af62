#include "rt_replay.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double slowest_valid(const rt_recorded *r)
{
    double worst = 0;
    for (int64_t i = 0; i < r->n_points; ++i)
        if (isfinite(r->time[i]) && r->time[i] > worst)
            worst = r->time[i];
    return worst;
}

double rt_replay_random_best(const rt_recorded *r, int64_t budget)
{
    const int64_t n = r->n_points;
    if (budget >= n)
        budget = n;
    if (budget < 1 || n < 1)
        return NAN;
    double *t = malloc((size_t)n * sizeof *t);
    if (!t)
        return NAN;
    const double worst = slowest_valid(r);
    for (int64_t i = 0; i < n; ++i)
        t[i] = isfinite(r->time[i]) ? r->time[i] : worst;
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    /* P(the minimum is the i-th smallest, 1-based) = C(n-i, b-1) / C(n, b); p_1 = b/n and
     * p_{i+1} = p_i (n-i-b+1)/(n-i). */
    double p = (double)budget / (double)n, expect = 0;
    for (int64_t i = 1; i <= n - budget + 1; ++i) {
        expect += p * t[i - 1];
        p *= (double)(n - i - budget + 1) / (double)(n - i);
    }
    free(t);
    return expect;
}

void rt_replay_score(const rt_recorded *r, int64_t budget, const double *best, int repeats,
                     rt_replay_result *out)
{
    const double worst = slowest_valid(r);
    const double opt = rt_recorded_optimum(r, NULL);
    double sum = 0, frac = 0;
    for (int k = 0; k < repeats; ++k) {
        const double b = isfinite(best[k]) ? best[k] : worst;
        sum += b;
        frac += b > 0 ? opt / b : 0;
    }
    out->budget = budget;
    out->repeats = repeats;
    out->mean_best = sum / repeats;
    out->frac_optimum = frac / repeats;
    out->optimum = opt;
    out->random_best = rt_replay_random_best(r, budget);
    const double span = out->random_best - opt;
    out->score = span > 0 ? (out->random_best - out->mean_best) / span : 1.0;
}

int rt_replay_once(const rt_recorded *r, const rt_strategy_args *args, int64_t budget,
                   const rt_prune *prune, int64_t *visited, int64_t cap, rt_replay_once_result *out,
                   rt_err *err)
{
    const int pruning = prune && prune->enabled;
    rt_strategy_args a = *args;
    /* With pruning, skipped candidates use no budget: the strategy may yield more. */
    a.budget = pruning ? 0 : budget;
    a.pass_infeasible = 0;
    rt_strategy *s = NULL;
    if (rt_strategy_create(&a, &r->grid, &s, err) != 0)
        return -1;
    rt_prune pr;
    rt_prune_init(&pr, pruning, pruning ? prune->stop_within : 0);
    int64_t i;
    out->evals = out->n_visited = 0;
    while (out->evals < budget && !rt_prune_done(&pr) && rt_strategy_next(s, &i) == 1) {
        const double bound = rt_recorded_bound(r, i);
        if (rt_prune_skip(&pr, bound)) {
            rt_strategy_report(s, i, INFINITY);
            continue;
        }
        const double t = rt_recorded_time(r, i);
        rt_prune_observe(&pr, t, bound);
        rt_strategy_report(s, i, t);
        if (visited && out->n_visited < cap)
            visited[out->n_visited] = i;
        out->n_visited++;
        out->evals++;
    }
    out->pruned = pr.pruned;
    out->best = INFINITY;
    rt_strategy_best(s, NULL, &out->best);
    rt_strategy_free(s);
    return 0;
}

int rt_replay_run(const rt_recorded *r, const char *strategy, const rt_strategy_opts *options,
                  int64_t budget, int repeats, uint64_t seed, const rt_prune *prune,
                  rt_replay_result *out, rt_err *err)
{
    if (repeats < 1)
        return rt_err_set(err, "replay: --repeats must be at least 1, not %d", repeats);
    if (budget < 1)
        return rt_err_set(err, "replay: --budget must be at least 1, not %lld", (long long)budget);
    double *best = malloc((size_t)repeats * sizeof *best);
    if (!best)
        return rt_err_set(err, "out of memory");
    double evals = 0, pruned = 0;
    for (int k = 0; k < repeats; ++k) {
        const rt_strategy_args args = {
            .name = strategy, .seed = seed + (uint64_t)k, .options = options};
        rt_replay_once_result once;
        if (rt_replay_once(r, &args, budget, prune, NULL, 0, &once, err) != 0) {
            free(best);
            return -1;
        }
        evals += (double)once.evals;
        pruned += (double)once.pruned;
        best[k] = once.best;
    }
    rt_replay_score(r, budget, best, repeats, out);
    out->mean_evals = evals / repeats;
    out->mean_pruned = pruned / repeats;
    free(best);
    return 0;
}
