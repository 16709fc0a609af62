/* rt_criterion: see rt_criterion.h. */
#include "rt_criterion.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_stats.h"

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---------------------------------------------------------------------------------------------
 * confidence: the median's relative confidence interval. It needs the order statistics of all
 * samples, so it keeps no state and sorts a copy each time (rt_stats_median_ci). */

static double confidence_target(const rt_criterion_params *p)
{
    return p->target_rel_ci;
}

static double confidence_value(const rt_criterion_params *p, const void *state,
                               const double *samples, int n)
{
    (void)state;
    double lo, hi, rel;
    /* Fewer samples than any interval at this level needs give INFINITY (keep sampling); a
     * failure (a NaN sample, a bad level) gives NAN, which compares false with every target. */
    if (n < 1 || rt_stats_median_ci(samples, n, p->confidence, &lo, &hi, &rel, NULL, NULL) != 0)
        return NAN;
    return rel;
}

static int confidence_min_samples(const rt_criterion_params *p)
{
    return rt_stats_median_ci_min_samples(p->confidence);
}

/* ---------------------------------------------------------------------------------------------
 * noise: the relative standard deviation, updated one sample at a time (Welford), and the last
 * NOISE_WINDOW estimates of it for the settling rule. */

#define NOISE_MIN_SAMPLES    5    /* fewer give no estimate worth comparing with a target */
#define NOISE_WINDOW         64   /* estimates the settling rule looks at */
#define NOISE_CHECK_EVERY    16   /* samples between two looks (the look scans the window) */
#define NOISE_SETTLED_SPREAD 0.05 /* their relative standard deviation below this: settled */

typedef struct noise_state {
    int n;
    double mean, m2;
    double window[NOISE_WINDOW]; /* a ring of the newest estimates */
    int n_estimates;             /* estimates made; the ring holds min(n_estimates, WINDOW) */
} noise_state;

static double noise_of(const noise_state *s)
{
    if (s->n < NOISE_MIN_SAMPLES || !(s->mean > 0))
        return INFINITY;
    return sqrt(s->m2 / (s->n - 1)) / s->mean;
}

static void noise_add(void *state, const double *samples, int n)
{
    noise_state *s = state;
    const double x = samples[n - 1];
    s->n++;
    const double d = x - s->mean;
    s->mean += d / s->n;
    s->m2 += d * (x - s->mean);
    const double noise = noise_of(s);
    if (isfinite(noise))
        s->window[s->n_estimates++ % NOISE_WINDOW] = noise;
}

static int noise_min_samples(const rt_criterion_params *p)
{
    (void)p;
    return NOISE_MIN_SAMPLES;
}

static double noise_target(const rt_criterion_params *p)
{
    return p->max_noise;
}

static double noise_value(const rt_criterion_params *p, const void *state, const double *samples,
                          int n)
{
    (void)p;
    (void)samples;
    (void)n;
    return noise_of(state);
}

static int noise_settled(const rt_criterion_params *p, const void *state, int n)
{
    (void)p;
    const noise_state *s = state;
    if (s->n_estimates <= NOISE_WINDOW || n % NOISE_CHECK_EVERY != 0)
        return 0;
    double mean = 0, m2 = 0;
    for (int i = 0; i < NOISE_WINDOW; ++i) {
        const double d = s->window[i] - mean;
        mean += d / (i + 1);
        m2 += d * (s->window[i] - mean);
    }
    const double spread = sqrt(m2 / (NOISE_WINDOW - 1));
    return mean > 0 && spread < NOISE_SETTLED_SPREAD * mean;
}

/* ---------------------------------------------------------------------------------------------
 * The table. A new criterion is one entry here (and its parameters in rt_criterion_params and
 * the config's key table). */

static const rt_criterion_ops k_criteria[] = {
    {.name = "confidence",
     .quantity = "the median's confidence interval",
     .target_key = "measure.target_rel_ci",
     .target = confidence_target,
     .value = confidence_value,
     .min_samples = confidence_min_samples},
    {.name = "noise",
     .quantity = "the samples' relative standard deviation",
     .target_key = "measure.max_noise",
     .state_size = sizeof(noise_state),
     .add = noise_add,
     .target = noise_target,
     .value = noise_value,
     .settled = noise_settled,
     .min_samples = noise_min_samples},
};

static const char *const k_names[] = {"confidence", "noise"};

_Static_assert(N_OF(k_names) == N_OF(k_criteria), "one name per criterion, in table order");

int rt_criterion_count(void)
{
    return N_OF(k_criteria);
}

const rt_criterion_ops *rt_criterion_at(int index)
{
    return index >= 0 && index < N_OF(k_criteria) ? &k_criteria[index] : NULL;
}

const char *const *rt_criterion_names(int *n)
{
    *n = N_OF(k_names);
    return k_names;
}

int rt_criterion_min_samples(int index, const rt_criterion_params *p)
{
    const rt_criterion_ops *ops = rt_criterion_at(index);
    return ops && ops->min_samples && p ? ops->min_samples(p) : 0;
}

int rt_criterion_check_reps(int index, const rt_criterion_params *p, int max_reps, char *msg,
                            size_t len)
{
    const rt_criterion_ops *ops = rt_criterion_at(index);
    const int need = rt_criterion_min_samples(index, p);
    if (!ops || max_reps <= 0 || need <= max_reps || ops->target(p) <= 0)
        return 0;
    if (msg && len > 0)
        snprintf(msg, len,
                 "measure.max_reps = %d: the stopping criterion '%s' (%s) needs at least %d "
                 "samples, so no point can meet %s and every timed point will be recorded noisy "
                 "(raise measure.max_reps to %d, or choose another measure.stop)",
                 max_reps, ops->name, ops->quantity, need, ops->target_key, need);
    return 1;
}

struct rt_criterion {
    const rt_criterion_ops *ops;
    rt_criterion_params params;
    int n_added; /* samples taken into the state */
    void *state;
};

int rt_criterion_create(int index, const rt_criterion_ops *ops, const rt_criterion_params *p,
                        rt_criterion **out, rt_err *err)
{
    *out = NULL;
    if (!ops)
        ops = rt_criterion_at(index);
    if (!ops || !ops->name || !ops->target || !ops->value)
        return rt_err_set(err, "stopping criterion %d is not in the table (%d criteria)", index,
                          N_OF(k_criteria));
    rt_criterion *c = calloc(1, sizeof *c);
    if (!c)
        return rt_err_set(err, "out of memory for the stopping criterion %s", ops->name);
    c->ops = ops;
    c->params = *p;
    if (ops->state_size > 0 && !(c->state = calloc(1, ops->state_size))) {
        free(c);
        return rt_err_set(err, "out of memory for the stopping criterion %s", ops->name);
    }
    rt_criterion_reset(c);
    *out = c;
    return 0;
}

void rt_criterion_free(rt_criterion *c)
{
    if (!c)
        return;
    free(c->state);
    free(c);
}

const rt_criterion_ops *rt_criterion_ops_of(const rt_criterion *c)
{
    return c->ops;
}

void rt_criterion_reset(rt_criterion *c)
{
    c->n_added = 0;
    if (c->state)
        memset(c->state, 0, c->ops->state_size);
    if (c->ops->reset)
        c->ops->reset(c->state);
}

/* Takes the samples the state has not seen yet, once each however often it is asked. Returns 0,
 * or 1 at a NaN sample (it and the samples after it are not taken). */
static int take_samples(rt_criterion *c, const double *samples, int n)
{
    for (; c->n_added < n; ++c->n_added) {
        if (isnan(samples[c->n_added]))
            return 1;
        if (c->ops->add)
            c->ops->add(c->state, samples, c->n_added + 1);
    }
    return 0;
}

int rt_criterion_should_stop(rt_criterion *c, const rt_rep_limits *lim, const double *samples,
                             int n, double elapsed_s)
{
    if (n > 0 && !samples)
        return 1;
    if (take_samples(c, samples, n) != 0)
        return 1;
    if (lim->max_reps > 0 && n >= lim->max_reps)
        return 1;
    if (n < lim->min_reps || (lim->min_time_s > 0 && elapsed_s < lim->min_time_s))
        return 0;
    if (lim->max_time_s > 0.0 && elapsed_s >= lim->max_time_s)
        return 1;
    const double target = c->ops->target(&c->params);
    if (!(target > 0.0)) {
        /* With no count, time or target limit, nothing would ever end the loop. */
        const int unbounded = lim->max_reps <= 0 && !(lim->max_time_s > 0.0);
        return unbounded && n >= 1;
    }
    if (n < 1)
        return 0;
    const double value = c->ops->value(&c->params, c->state, samples, n);
    if (isnan(value))
        return 1; /* the quantity cannot be computed from these samples: more will not help */
    if (value <= target)
        return 1;
    return c->ops->settled && c->ops->settled(&c->params, c->state, n);
}

int rt_criterion_met(rt_criterion *c, const double *samples, int n, double *value, double *target)
{
    /* The loop may end without asking about its last sample (max_reps reached, a timeout): the
     * verdict is on every sample, so the state takes the ones it has not seen. */
    if (n > 0 && samples)
        (void)take_samples(c, samples, n);
    *target = c->ops->target(&c->params);
    *value = n > 0 && samples ? c->ops->value(&c->params, c->state, samples, n) : INFINITY;
    return !(*target > 0.0) || *value <= *target;
}
