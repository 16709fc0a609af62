/* rt_sweep: one sweep of a run (a kernel's space for one matrix and problem point) as a source of
 * points to measure: the search picks candidates under the budget rule, each is claimed (a point
 * the store holds hands its stored time back, a dry run only says what it would run, an infeasible
 * one is recorded with its reason) and the rest are handed out to be measured, here (serial runs,
 * rank 0 of a parallel one) or by a worker whose result comes back to be recorded here. Every
 * result teaches the search, the roofline pruning and the sweep's best time (early abort), and the
 * pruning's stop rule can end the sweep.
 *
 * Serial: while rt_sweep_next gives a candidate, rt_sweep_measure it. Parallel (rt_workers.h):
 * several candidates are in flight at once; the budget counts them, so a sweep never hands out
 * more than its budget, and a pruned result frees its place as it does in a serial run. */
#ifndef RT_SWEEP_H
#define RT_SWEEP_H

#include <stdint.h>
#include <stdio.h>

#include "rt_config.h"
#include "rt_measure.h"
#include "rt_prune.h"
#include "rt_run_types.h"
#include "rt_search.h"
#include "rt_walk.h"

struct rt_progress;

typedef struct rt_sweep_run {
    rt_measure_ctx *m;
    rt_run_summary *sum;
    const rt_sweep *s;
    rt_search *search;
    rt_prune prune;
    double best; /* the best verified time so far (INFINITY before any) */
    rt_measure_target tgt;
    int64_t budget;    /* points that ran (not pruned) the sweep may have */
    int64_t counted;   /* of those, done */
    int64_t in_flight; /* handed out, result not yet back */
    int exhausted;     /* the search has nothing more */
    int stopped;       /* the pruning's stop rule ended the sweep */
    /* Points in flight in another sweep still open (parallel tuning, rt_workers.h): a point
     * budget (--max-points) counts them as measured already, as it counts this sweep's. */
    int64_t elsewhere;
    struct rt_progress *progress;
    FILE *log;
    /* A kept sweep (rt_sweep_begin_kept) owns what the walk would reclaim before its last
     * points are back: its sweep (s points here), the sweep's problem point, its space, and, once
     * the walk has left the problem point, its abort group's best time. */
    int kept;
    rt_sweep own;
    rt_params own_problem;
    double own_group_best;
    /* Serial compile ahead (rt_sweep_lookahead): candidates taken from the search before their
     * turn, so the point measured now can queue their compiles; rt_sweep_next hands them out
     * first, in the search's order. */
    int lookahead;
    int64_t peek[RT_MEASURE_UPCOMING];
    int n_peek;
} rt_sweep_run;

/* Starts the sweep's search. base holds what the measurement needs besides the parameters (the
 * matrix share and its sizes, kernel, family, device, problem); the pruning, the best time and the
 * search are the sweep's own. */
int rt_sweep_begin(rt_sweep_run *sw, rt_measure_ctx *m, const rt_config *cfg, const rt_sweep *s,
                   const rt_measure_target *base, rt_run_summary *sum, struct rt_progress *progress,
                   FILE *log, rt_err *err);
/* The next candidate to measure: 1 with its index and parameters, 0 when the sweep hands out
 * nothing more for now (the budget with what is in flight, the search exhausted, the stop rule,
 * the run stopping), -1 on a run error. */
int rt_sweep_next(rt_sweep_run *sw, int64_t *index, rt_params *params, rt_err *err);
/* 1 when the sweep will hand out nothing more whatever comes back (the search exhausted, the stop
 * rule, the run stopping, the budget spent by points done or, without pruning, in flight, the
 * point budget reached); 0 when rt_sweep_next may still give a candidate (a pruned result frees
 * a place in the budget). */
int rt_sweep_finished(const rt_sweep_run *sw);
/* A serial run's compile ahead: from now on each point this sweep measures here queues the
 * compiles of the next RT_MEASURE_UPCOMING candidates of its search (rt_measure_upcoming), taken
 * early when the strategy's order ignores the results and the search has no time budget (a
 * candidate taken early must not pass its deadline); otherwise, with the pool off or a kernel
 * without a compile_ahead hook, nothing changes. Not for a sweep whose points go to workers. */
void rt_sweep_lookahead(rt_sweep_run *sw, const rt_config *cfg);
/* Measures a candidate rt_sweep_next gave, here, and records it. */
int rt_sweep_measure(rt_sweep_run *sw, int64_t index, const rt_params *params, rt_err *err);
/* Records a candidate a worker measured. */
int rt_sweep_record(rt_sweep_run *sw, int64_t index, rt_measured *res, rt_err *err);
/* A candidate whose result will not come (its worker was stopped first): a rerun measures it. */
void rt_sweep_drop(rt_sweep_run *sw, int64_t index);
void rt_sweep_end(rt_sweep_run *sw);

/* rt_sweep_begin for a sweep that may outlive the walk's step (parallel tuning with worker
 * processes: its last points still in flight while the next sweep is handed out): on the heap,
 * with its own copy of s and of s's problem point, and s->space taken from the walk (s->space
 * becomes NULL; the sweep frees it). base must not point into s otherwise. rt_sweep_free ends
 * and frees it. */
int rt_sweep_begin_kept(rt_sweep_run **out, rt_measure_ctx *m, const rt_config *cfg, rt_sweep *s,
                        const rt_measure_target *base, rt_run_summary *sum,
                        struct rt_progress *progress, FILE *log, rt_err *err);
/* The walk leaves the sweep's problem point while its last points are still in flight: its
 * abort group's best time becomes its own (the group's slot starts again for the next problem
 * point, whose sweeps are no longer compared with this one's points). */
void rt_sweep_own_group(rt_sweep_run *sw);
void rt_sweep_free(rt_sweep_run *sw);

#endif
