#include "rt_sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"
#include "rt_progress.h"

int rt_sweep_begin(rt_sweep_run *sw, rt_measure_ctx *m, const rt_config *cfg, const rt_sweep *s,
                   const rt_measure_target *base, rt_run_summary *sum, struct rt_progress *progress,
                   FILE *log, rt_err *err)
{
    *sw = (rt_sweep_run){
        .m = m, .sum = sum, .s = s, .progress = progress, .log = log, .best = INFINITY};
    /* With pruning a pruned candidate uses no budget (as in replay): the search is created
     * without a budget of its own, may yield the whole space, and the sweep ends after `budget`
     * points that were not pruned. Pruning is per sweep (this kernel, matrix and problem point):
     * the tuning table keeps each kernel's best, so a kernel's candidates compete with its own. */
    sw->budget = rt_search_budget_for(&cfg->search, rt_space_size(s->space));
    rt_search_cfg search_cfg = cfg->search;
    if (cfg->search.prune_bound)
        search_cfg.budget = INT32_MAX;
    if (rt_search_create(&search_cfg, s->space, &sw->search, err) != 0)
        return -1;
    rt_prune_init(&sw->prune, cfg->search.prune_bound, cfg->search.stop_within);
    sw->tgt = *base;
    sw->tgt.prune = cfg->search.prune_bound ? &sw->prune : NULL;
    sw->tgt.sweep_best = &sw->best;
    return 0;
}

/* What every result teaches: the search its objective, the budget a point that ran, and the
 * stop rule its chance to end the sweep. */
static void learn(rt_sweep_run *sw, int64_t index, double objective, int ran)
{
    rt_search_report(sw->search, index, objective);
    sw->counted += ran;
    if (!sw->stopped && rt_prune_done(&sw->prune)) {
        sw->stopped = 1;
        sw->sum->stopped_within++;
        if (sw->log) {
            fprintf(sw->log,
                    "  %s %s: stopped, the best point (%.4g ms) is within %.3g of its roofline "
                    "bound (%.4g ms)\n",
                    sw->s->kernel->name, sw->s->matrix->name, sw->prune.best * 1e3,
                    sw->prune.stop_within, sw->prune.best_bound * 1e3);
            fflush(sw->log);
        }
    }
}

static void show_current(rt_sweep_run *sw, const rt_params *params)
{
    if (!sw->progress || !sw->progress->out)
        return;
    char current[256], shown[160];
    rt_params_to_json(params, shown, sizeof shown);
    snprintf(current, sizeof current, "%s %s %s", sw->s->kernel->name, sw->s->matrix->name, shown);
    rt_progress_begin(sw->progress, current, rt_clock_now());
}

/* The search's next candidate: those taken early for the lookahead first, in their order. */
static int next_candidate(rt_sweep_run *sw, int64_t *i)
{
    if (sw->n_peek > 0) {
        *i = sw->peek[0];
        memmove(sw->peek, sw->peek + 1, (size_t)(sw->n_peek - 1) * sizeof sw->peek[0]);
        sw->n_peek--;
        return 1;
    }
    return rt_search_next(sw->search, i);
}

void rt_sweep_lookahead(rt_sweep_run *sw, const rt_config *cfg)
{
    sw->lookahead = rt_search_ignores_results(&cfg->search) && !(cfg->search.max_time_s > 0) &&
                    sw->m->compile_ahead && sw->tgt.kernel->compile_ahead;
}

/* The lookahead's candidates after the one about to be measured: up to RT_MEASURE_UPCOMING taken
 * from the search (a strategy that ignores results proposes the same ones whenever it is asked),
 * the feasible ones handed to the measurement as upcoming. A candidate the run will not measure
 * (the store has it, its bound prunes it, the budget ends first) costs a compile on a pool thread,
 * nothing more. */
static void queue_lookahead(rt_sweep_run *sw)
{
    if (!sw->lookahead)
        return;
    while (sw->n_peek < RT_MEASURE_UPCOMING && rt_search_next(sw->search, &sw->peek[sw->n_peek]))
        sw->n_peek++;
    for (int k = 0; k < sw->n_peek; ++k) {
        rt_params params;
        int feasible = 0;
        rt_err ignored;
        if (rt_space_point(sw->s->space, sw->peek[k], &params, &feasible, NULL, 0, &ignored) == 0 &&
            feasible)
            rt_measure_upcoming(sw->m, &sw->tgt, &params);
    }
}

int rt_sweep_next(rt_sweep_run *sw, int64_t *index, rt_params *params, rt_err *err)
{
    rt_measure_ctx *m = sw->m;
    for (;;) {
        if (m->stop || sw->stopped || sw->exhausted || sw->counted + sw->in_flight >= sw->budget)
            return 0;
        /* A point budget (--max-points) counts the points in flight as measured already. */
        if (m->opt->max_points > 0 &&
            m->new_points + sw->in_flight + sw->elsewhere >= m->opt->max_points)
            return 0;
        int64_t i;
        if (next_candidate(sw, &i) != 1) {
            sw->exhausted = 1;
            return 0;
        }
        int feasible = 1;
        char why[512] = "";
        if (rt_space_point(sw->s->space, i, params, &feasible, why, sizeof why, err) != 0)
            return -1;
        show_current(sw, params);
        double objective = INFINITY;
        const int64_t pruned_before = sw->prune.pruned;
        const int claimed =
            rt_measure_claim(m, &sw->tgt, params, feasible, why, &objective, sw->sum, err);
        if (claimed < 0)
            return -1;
        if (claimed == 1 || !feasible) {
            /* Stored (or a dry run), or infeasible: recorded here with its reason, not run. */
            if (claimed == 0 &&
                rt_measure_run(m, &sw->tgt, params, 0, why, &objective, sw->sum, err) != 0)
                return -1;
            rt_progress_done(sw->progress);
            learn(sw, i, objective, feasible && sw->prune.pruned == pruned_before);
            continue;
        }
        sw->in_flight++;
        *index = i;
        return 1;
    }
}

int rt_sweep_finished(const rt_sweep_run *sw)
{
    const rt_measure_ctx *m = sw->m;
    /* Without pruning every point in flight counts against the budget when it comes back (one
     * that does not, dropped or failed, stops the run); with it, a pruned one frees its place. */
    const int64_t spent = sw->counted + (sw->prune.enabled ? 0 : sw->in_flight);
    return m->stop || sw->stopped || sw->exhausted || spent >= sw->budget ||
           (m->opt->max_points > 0 &&
            m->new_points + sw->in_flight + sw->elsewhere >= m->opt->max_points);
}

int rt_sweep_measure(rt_sweep_run *sw, int64_t index, const rt_params *params, rt_err *err)
{
    double objective = INFINITY;
    const int64_t pruned_before = sw->prune.pruned;
    queue_lookahead(sw);
    if (rt_measure_run(sw->m, &sw->tgt, params, 1, "", &objective, sw->sum, err) != 0)
        return -1;
    sw->in_flight--;
    rt_progress_done(sw->progress);
    learn(sw, index, objective, sw->prune.pruned == pruned_before);
    return 0;
}

int rt_sweep_record(rt_sweep_run *sw, int64_t index, rt_measured *res, rt_err *err)
{
    if (rt_measure_record(sw->m, res, sw->sum, err) != 0)
        return -1;
    sw->in_flight--;
    rt_progress_done(sw->progress);
    const rt_point_record *rec = &res->rec;
    /* As a point measured here: only a verified point that kept its status teaches the pruning
     * and the best time; a pruned one used no budget. */
    if (rec->status == RT_POINT_OK) {
        rt_prune_observe(&sw->prune, res->objective, rec->bound_s);
        if (res->objective < sw->best)
            sw->best = res->objective;
        if (sw->tgt.group_best && res->objective < *sw->tgt.group_best)
            *sw->tgt.group_best = res->objective;
    }
    if (rec->status == RT_POINT_PRUNED)
        sw->prune.pruned++;
    learn(sw, index, res->objective, rec->status != RT_POINT_PRUNED);
    return 0;
}

void rt_sweep_drop(rt_sweep_run *sw, int64_t index)
{
    sw->in_flight--;
    rt_search_report(sw->search, index, INFINITY);
}

void rt_sweep_end(rt_sweep_run *sw)
{
    rt_search_free(sw->search);
    sw->search = NULL;
    if (sw->kept) {
        rt_space_free(sw->own.space);
        sw->own.space = NULL;
    }
}

int rt_sweep_begin_kept(rt_sweep_run **out, rt_measure_ctx *m, const rt_config *cfg, rt_sweep *s,
                        const rt_measure_target *base, rt_run_summary *sum,
                        struct rt_progress *progress, FILE *log, rt_err *err)
{
    *out = NULL;
    rt_sweep_run *sw = malloc(sizeof *sw);
    if (!sw)
        return rt_err_set(err, "out of memory for a sweep");
    if (rt_sweep_begin(sw, m, cfg, s, base, sum, progress, log, err) != 0) {
        free(sw);
        return -1;
    }
    sw->kept = 1;
    sw->own = *s;
    sw->own_problem = *s->problem;
    sw->own.problem = &sw->own_problem;
    sw->s = &sw->own;
    sw->tgt.problem = &sw->own_problem;
    s->space = NULL; /* the search holds the same space, now the sweep's */
    *out = sw;
    return 0;
}

void rt_sweep_own_group(rt_sweep_run *sw)
{
    if (!sw->tgt.group_best || sw->tgt.group_best == &sw->own_group_best)
        return;
    sw->own_group_best = *sw->tgt.group_best;
    sw->tgt.group_best = &sw->own_group_best;
}

void rt_sweep_free(rt_sweep_run *sw)
{
    if (!sw)
        return;
    rt_sweep_end(sw);
    free(sw);
}
