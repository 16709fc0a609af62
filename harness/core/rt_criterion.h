/* rt_criterion: when the adaptive repetitions of one point have sampled enough. The stopping
 * criteria are registered by name in one table (the config's measure.stop names one), each a
 * quantity of the samples and a target for it; the limits every criterion runs under (min_reps,
 * max_reps, min_time_s, max_time_s) are applied here once, the same for all of them.
 *
 *   confidence  the median's distribution-free confidence interval (rt_stats_median_ci): its
 *               half-width relative to the median, against measure.target_rel_ci at
 *               measure.confidence. The rule rooftune always had.
 *   noise       the samples' relative standard deviation (stddev / mean, Bessel-corrected, from
 *               5 samples on), against measure.max_noise, as nvbench's stdrel criterion; and,
 *               as there, a point whose noise has settled above the target stops too: every 16
 *               samples, once 64 noise estimates exist, the last 64 are compared, and a relative
 *               spread below 5% means more samples will not bring the noise down. Such a point
 *               missed its target and is recorded noisy.
 *
 * A criterion sees every sample (the runner keeps them all) plus a state of its own that it
 * updates one sample at a time, so a criterion whose quantity is cheap to update does not
 * rescan the samples. */
#ifndef RT_CRITERION_H
#define RT_CRITERION_H

#include <stddef.h>

#include "rt_error.h"

/* The criteria's parameters (measure.*): each criterion reads its own. */
typedef struct rt_criterion_params {
    double target_rel_ci; /* confidence: stop once the median's relative CI is <= this; 0: never */
    double confidence;    /* confidence: the interval's level, in (0, 1) */
    double max_noise;     /* noise: stop once the relative standard deviation is <= this; 0:
                             never */
} rt_criterion_params;

/* The limits every criterion runs under; <= 0 means "no limit" for each of them. */
typedef struct rt_rep_limits {
    int min_reps;      /* a floor: never stop with fewer samples */
    int max_reps;      /* stop with this many */
    double min_time_s; /* a floor: never stop before this much measured time */
    double max_time_s; /* stop after this much measured time (once min_reps are in) */
} rt_rep_limits;

/* One stopping criterion. Every function is given the criterion's parameters, its state and the
 * samples so far (n of them, the newest last). */
typedef struct rt_criterion_ops {
    const char *name;       /* as measure.stop names it */
    const char *quantity;   /* what it measures, for messages: "the median's confidence interval" */
    const char *target_key; /* the config key of its target: "measure.target_rel_ci" */
    size_t state_size;      /* bytes of state (0: none) */
    /* Optional: a new point begins (the state is zeroed before this). */
    void (*reset)(void *state);
    /* Optional: samples[n - 1] has just been taken. */
    void (*add)(void *state, const double *samples, int n);
    /* The target; <= 0 means the criterion never stops a point (the limits alone do). */
    double (*target)(const rt_criterion_params *p);
    /* The quantity now; INFINITY while it cannot be estimated yet (too few samples). */
    double (*value)(const rt_criterion_params *p, const void *state, const double *samples, int n);
    /* Optional: 1 when more samples will not bring the quantity down (it settled above the
     * target): the point stops, missing its target. */
    int (*settled)(const rt_criterion_params *p, const void *state, int n);
    /* Optional: the fewest samples the quantity can be estimated from (0: any number). */
    int (*min_samples)(const rt_criterion_params *p);
} rt_criterion_ops;

/* The table of criteria, in the order the config's error messages list them. */
int rt_criterion_count(void);
const rt_criterion_ops *rt_criterion_at(int index);
/* The names, for the config's choice of measure.stop (a static table of rt_criterion_count()). */
const char *const *rt_criterion_names(int *n);

/* The fewest samples criterion `index` of the table can judge a point from, under p; 0 when any
 * number will do. A config whose max_reps is below it can never meet its target: every timed
 * point would be recorded noisy (rt_criterion_check_reps says so). */
int rt_criterion_min_samples(int index, const rt_criterion_params *p);
/* When max_reps (> 0) is below what criterion `index` needs, writes a warning naming both into
 * msg (the config keys to change) and returns 1; else 0. */
int rt_criterion_check_reps(int index, const rt_criterion_params *p, int max_reps, char *msg,
                            size_t len);

typedef struct rt_criterion rt_criterion;

/* A criterion of the table (index from rt_criterion_names) with its parameters, ready for a point;
 * ops may instead name one outside the table (a test's), with index -1. */
int rt_criterion_create(int index, const rt_criterion_ops *ops, const rt_criterion_params *p,
                        rt_criterion **out, rt_err *err);
void rt_criterion_free(rt_criterion *c);
const rt_criterion_ops *rt_criterion_ops_of(const rt_criterion *c);

/* A new point. */
void rt_criterion_reset(rt_criterion *c);
/* Takes samples[n - 1] into the state, then says whether sampling should stop. In order:
 *   n >= max_reps (when max_reps > 0)                                   -> stop
 *   n < min_reps, or measured time < min_time_s                         -> continue (floors)
 *   max_time_s > 0 and elapsed_s >= max_time_s                          -> stop
 *   the criterion has no target                                         -> continue, except that
 *       with no limit at all (max_reps <= 0 and max_time_s <= 0) it stops once min_reps (at
 *       least one) samples are in, rather than sampling forever
 *   the quantity <= its target, or the criterion says it settled       -> stop
 *   otherwise                                                           -> continue
 * A NaN sample or NULL samples with n > 0 also stop: more samples could not fix them. */
int rt_criterion_should_stop(rt_criterion *c, const rt_rep_limits *lim, const double *samples,
                             int n, double elapsed_s);
/* After sampling: whether the point reached the target over all n samples (1 also when the
 * criterion has none), and the quantity and target for the message of a point that did not. Takes
 * into the state the samples rt_criterion_should_stop was not asked about (the runner's loop ends
 * at max_reps without asking). */
int rt_criterion_met(rt_criterion *c, const double *samples, int n, double *value, double *target);

#endif
