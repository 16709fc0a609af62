/* The stopping criteria of adaptive repetitions (rt_criterion.h) on synthetic sample streams:
 * the limits every criterion runs under, today's confidence rule, the nvbench-style noise rule
 * (its target and its settling rule), a criterion from outside the table, and the table itself. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rt_criterion.h"
#include "rt_stats.h"
#include "rt_test.h"

#define N_STREAM 400

static int index_of(const char *name)
{
    int n = 0;
    const char *const *names = rt_criterion_names(&n);
    for (int i = 0; i < n; ++i)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

/* A deterministic uniform number in [0, 1) (splitmix64). */
static double uniform(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

/* mean x (1 + spread x u), u uniform in [-1, 1). */
static void stream(double *x, int n, double mean, double spread, uint64_t seed)
{
    for (int i = 0; i < n; ++i)
        x[i] = mean * (1.0 + spread * (2.0 * uniform(&seed) - 1.0));
}

/* Feeds samples one at a time, as the runner does; returns how many were taken at the stop
 * (0 when the stream ran out first). elapsed is the sum of the samples. */
static int samples_taken(rt_criterion *c, const rt_rep_limits *lim, const double *x, int n)
{
    rt_criterion_reset(c);
    double elapsed = 0;
    for (int i = 1; i <= n; ++i) {
        elapsed += x[i - 1];
        if (rt_criterion_should_stop(c, lim, x, i, elapsed))
            return i;
    }
    return 0;
}

static rt_criterion *make(const char *name, const rt_criterion_params *p)
{
    rt_criterion *c = NULL;
    rt_err err;
    RT_CHECK_MSG(rt_criterion_create(index_of(name), NULL, p, &c, &err) == 0, "%s: %s", name,
                 err.msg);
    return c;
}

/* The limits around the confidence rule (the cases rt_stats_should_stop was tested with). */
static void test_confidence_limits(void)
{
    double tight[50], noisy[50];
    for (int i = 0; i < 50; ++i) {
        tight[i] = 1.0 + 0.001 * (i % 5);
        noisy[i] = 1.0 + (double)((i * 7919) % 50) / 25.0; /* spread over [1, 3) */
    }
    rt_criterion_params p = {.target_rel_ci = 0.01, .confidence = 0.95};
    rt_criterion *c = make("confidence", &p);
    if (!c)
        return;
#define STOP(x, n, min, max, elapsed, max_time)                                                    \
    (rt_criterion_reset(c),                                                                        \
     rt_criterion_should_stop(                                                                     \
         c, &(rt_rep_limits){.min_reps = (min), .max_reps = (max), .max_time_s = (max_time)}, x,   \
         n, elapsed))
    /* max_reps always wins. */
    RT_CHECK(STOP(noisy, 20, 5, 20, 0.0, 10.0) == 1);
    rt_criterion_free(c);
    p.target_rel_ci = 0.02;
    c = make("confidence", &p);
    /* min_reps is a floor, even past the time limit. */
    RT_CHECK(STOP(tight, 3, 5, 50, 100.0, 1.0) == 0);
    /* Out of time. */
    RT_CHECK(STOP(noisy, 10, 5, 50, 1.5, 1.0) == 1);
    /* Converged: tight samples, a 2% target. */
    RT_CHECK(STOP(tight, 10, 5, 50, 0.1, 1.0) == 1);
    /* Not converged: noisy samples, time left. */
    RT_CHECK(STOP(noisy, 10, 5, 50, 0.1, 1.0) == 0);
    /* Too few samples for any 95% interval: keep going even if tight. */
    RT_CHECK(STOP(tight, 5, 1, 50, 0.1, 1.0) == 0);
    /* No time limit and no max: the interval alone. */
    RT_CHECK(STOP(noisy, 40, 5, 0, 1e9, 0.0) == 0);
    RT_CHECK(STOP(tight, 40, 5, 0, 1e9, 0.0) == 1);
    /* Garbage stops rather than looping forever. */
    RT_CHECK(STOP(NULL, 10, 5, 50, 0.1, 1.0) == 1);
    const double nan_samples[] = {1, 1, NAN, 1, 1, 1, 1, 1};
    RT_CHECK(STOP(nan_samples, 8, 5, 50, 0.1, 1.0) == 1);
    /* n == 0 with min_reps 0 has nothing to judge yet. */
    RT_CHECK(STOP(NULL, 0, 0, 50, 0.0, 1.0) == 0);
    rt_criterion_free(c);

    /* A confidence level outside (0, 1) cannot give an interval: stop. */
    p.confidence = 7.0;
    c = make("confidence", &p);
    RT_CHECK(STOP(tight, 10, 5, 50, 0.1, 1.0) == 1);
    rt_criterion_free(c);

    /* No target: only count and time decide; with no limit at all, min_reps samples. */
    p = (rt_criterion_params){.target_rel_ci = 0.0, .confidence = 0.95};
    c = make("confidence", &p);
    RT_CHECK(STOP(tight, 30, 5, 50, 0.1, 1.0) == 0);
    RT_CHECK(STOP(noisy, 4, 5, 0, 1e9, 0.0) == 0);
    RT_CHECK(STOP(noisy, 5, 5, 0, 1e9, 0.0) == 1);
    RT_CHECK(STOP(noisy, 1, 0, 0, 1e9, 0.0) == 1);
    double v, t;
    RT_CHECK(rt_criterion_met(c, noisy, 30, &v, &t) == 1); /* no target: never noisy */
    rt_criterion_free(c);
#undef STOP
}

/* min_time_s is a floor for every criterion: a tight stream that would stop at once waits. */
static void test_min_time(void)
{
    double x[N_STREAM];
    stream(x, N_STREAM, 1e-3, 0.001, 11);
    const rt_criterion_params p = {.target_rel_ci = 0.02, .confidence = 0.95, .max_noise = 0.01};
    for (int k = 0; k < 2; ++k) {
        rt_criterion *c = make(k ? "noise" : "confidence", &p);
        if (!c)
            continue;
        const rt_rep_limits free_ = {.min_reps = 1, .max_reps = N_STREAM, .max_time_s = 10};
        const rt_rep_limits floor = {
            .min_reps = 1, .max_reps = N_STREAM, .min_time_s = 0.1, .max_time_s = 10};
        const int early = samples_taken(c, &free_, x, N_STREAM);
        const int late = samples_taken(c, &floor, x, N_STREAM);
        /* 0.1 s of 1 ms samples: the 100th sample (give or take the 0.1% spread). */
        RT_CHECK_MSG(early > 0 && early <= 6 && late >= 99 && late <= 101, "%s: %d then %d",
                     k ? "noise" : "confidence", early, late);
        rt_criterion_free(c);
    }
}

static void test_noise(void)
{
    double tight[N_STREAM], wide[N_STREAM], fading[N_STREAM];
    stream(tight, N_STREAM, 2e-3, 0.002, 1); /* relative stddev ~0.1% */
    stream(wide, N_STREAM, 2e-3, 0.5, 2);    /* ~29%, the same all along */
    /* A warm-up that fades: the first samples far off, then ever closer; the noise of all the
     * samples keeps falling (as 1/sqrt(n)) for hundreds of samples. */
    for (int i = 0; i < N_STREAM; ++i)
        fading[i] = 1e-3 * (1.0 + 5.0 / (1.0 + i) * ((i % 2) ? 1 : -1));
    const rt_criterion_params p = {.max_noise = 0.01};
    const rt_rep_limits lim = {.min_reps = 1, .max_reps = N_STREAM, .max_time_s = 100};
    rt_criterion *c = make("noise", &p);
    if (!c)
        return;
    double v, t;
    /* Below the target as soon as there is an estimate (5 samples). */
    const int n_tight = samples_taken(c, &lim, tight, N_STREAM);
    RT_CHECK_MSG(n_tight == 5, "tight stream stopped after %d samples", n_tight);
    RT_CHECK(rt_criterion_met(c, tight, n_tight, &v, &t) == 1 && v < 0.01 && t == 0.01);

    /* Far above the target but steady: the settling rule ends it once more than 64 estimates
     * exist (from sample 5 on: sample 69), at a multiple of 16 samples, long before max_reps;
     * the point missed its target. */
    const int n_wide = samples_taken(c, &lim, wide, N_STREAM);
    RT_CHECK_MSG(n_wide >= 80 && n_wide % 16 == 0 && n_wide <= 160,
                 "wide stream stopped after %d samples", n_wide);
    RT_CHECK(rt_criterion_met(c, wide, n_wide, &v, &t) == 0);
    RT_CHECK_MSG(fabs(v - 0.29) < 0.05, "the wide stream's noise is %g", v);

    /* A noise still falling fast is not settled: at 80 samples the last 64 estimates span a
     * factor of two, so the fading stream samples on; it never reaches 1% here either. */
    const int n_fading = samples_taken(c, &lim, fading, N_STREAM);
    RT_CHECK_MSG(n_fading == 0 || n_fading > 2 * 80, "a falling noise stopped after %d samples",
                 n_fading);
    RT_CHECK(rt_criterion_met(c, fading, n_fading ? n_fading : N_STREAM, &v, &t) == 0);

    /* The same streams under the confidence rule: the wide one runs to max_reps (its median
     * interval shrinks only as 1/sqrt(n)), where the noise rule gave up at 80. */
    const rt_criterion_params pc = {.target_rel_ci = 0.02, .confidence = 0.95};
    rt_criterion *ci = make("confidence", &pc);
    if (ci) {
        const int n_ci = samples_taken(ci, &lim, wide, N_STREAM);
        RT_CHECK_MSG(n_ci > 80, "confidence on the wide stream: %d samples", n_ci);
        RT_CHECK(samples_taken(ci, &lim, tight, N_STREAM) == 6); /* the first 95% interval */
        rt_criterion_free(ci);
    }

    /* The runner's loop ends at max_reps without asking about the last sample (the 2 x H100 GEMM
     * bar: min_reps = max_reps = 5, every point 'noisy' at a 0.4-1.9% noise against 2%): the
     * verdict still counts all five. */
    rt_criterion_reset(c);
    for (int i = 1; i <= 4; ++i)
        rt_criterion_should_stop(c, &lim, tight, i, 1.0);
    RT_CHECK_MSG(rt_criterion_met(c, tight, 5, &v, &t) == 1 && v < 0.01,
                 "five steady samples, four asked about: met %g against %g", v, t);

    /* Asking twice for the same n does not count the newest sample twice. */
    rt_criterion_reset(c);
    for (int i = 1; i <= 10; ++i) {
        rt_criterion_should_stop(c, &lim, wide, i, 1.0);
        rt_criterion_should_stop(c, &lim, wide, i, 1.0);
    }
    double twice;
    rt_criterion_met(c, wide, 10, &twice, &t);
    rt_criterion_reset(c);
    for (int i = 1; i <= 10; ++i)
        rt_criterion_should_stop(c, &lim, wide, i, 1.0);
    rt_criterion_met(c, wide, 10, &v, &t);
    RT_CHECK_MSG(twice == v, "asked twice: %g, once: %g", twice, v);
    rt_criterion_free(c);
}

/* A criterion from outside the table: stop at the first sample above a threshold. */
static double toy_target(const rt_criterion_params *p)
{
    (void)p;
    return 1.0;
}

static double toy_value(const rt_criterion_params *p, const void *state, const double *x, int n)
{
    (void)p;
    (void)state;
    return x[n - 1] > 5.0 ? 0.0 : 2.0;
}

static void test_outside_table(void)
{
    const rt_criterion_ops toy = {.name = "toy",
                                  .quantity = "the toy",
                                  .target_key = "measure.toy",
                                  .target = toy_target,
                                  .value = toy_value};
    const double x[] = {1, 2, 3, 9, 1, 1};
    const rt_criterion_params p = {0};
    rt_criterion *c = NULL;
    rt_err err;
    RT_CHECK(rt_criterion_create(-1, &toy, &p, &c, &err) == 0);
    if (c) {
        const rt_rep_limits lim = {.min_reps = 1, .max_reps = 6};
        RT_CHECK(samples_taken(c, &lim, x, 6) == 4);
        RT_CHECK(strcmp(rt_criterion_ops_of(c)->name, "toy") == 0);
        rt_criterion_free(c);
    }
    /* Garbage: an index out of the table, an ops without its functions. */
    RT_CHECK(rt_criterion_create(99, NULL, &p, &c, &err) != 0 && c == NULL &&
             rt_test_contains(err.msg, "not in the table"));
    const rt_criterion_ops broken = {.name = "broken"};
    RT_CHECK(rt_criterion_create(-1, &broken, &p, &c, &err) != 0 && c == NULL);
}

static void test_table(void)
{
    int n = 0;
    const char *const *names = rt_criterion_names(&n);
    RT_CHECK(n == rt_criterion_count() && n >= 2);
    for (int i = 0; i < n; ++i) {
        const rt_criterion_ops *ops = rt_criterion_at(i);
        RT_CHECK(ops && strcmp(ops->name, names[i]) == 0 && ops->quantity && ops->target_key &&
                 ops->target && ops->value);
        for (int j = 0; j < i; ++j)
            RT_CHECK(strcmp(names[j], names[i]) != 0);
    }
    RT_CHECK(rt_criterion_at(-1) == NULL && rt_criterion_at(n) == NULL);
}

/* The fewest samples each criterion can judge from, and the warning a config gets when its
 * max_reps is below that (every point would be recorded noisy: the 4 x H100 out-of-core GEMM
 * store's five samples against the median's 95% interval). */
static void test_min_samples(void)
{
    RT_CHECK(rt_stats_median_ci_min_samples(0.95) == 6);
    RT_CHECK(rt_stats_median_ci_min_samples(0.99) == 8);
    RT_CHECK(rt_stats_median_ci_min_samples(0.5) == 2);
    RT_CHECK(rt_stats_median_ci_min_samples(1.0) == 0 && rt_stats_median_ci_min_samples(0) == 0);
    /* Five samples: no interval at 95%; six: the widest one. */
    const double five[] = {1.0, 1.01, 0.99, 1.02, 0.98, 1.0};
    double lo, hi, rel;
    RT_CHECK(rt_stats_median_ci(five, 5, 0.95, &lo, &hi, &rel, NULL, NULL) == 0 && isinf(rel));
    RT_CHECK(rt_stats_median_ci(five, 6, 0.95, &lo, &hi, &rel, NULL, NULL) == 0 && isfinite(rel));

    int n = 0;
    const char *const *names = rt_criterion_names(&n);
    int confidence = -1, noise = -1;
    for (int i = 0; i < n; ++i) {
        if (strcmp(names[i], "confidence") == 0)
            confidence = i;
        if (strcmp(names[i], "noise") == 0)
            noise = i;
    }
    RT_CHECK(confidence >= 0 && noise >= 0);
    const rt_criterion_params p = {.target_rel_ci = 0.05, .confidence = 0.95, .max_noise = 0.02};
    RT_CHECK(rt_criterion_min_samples(confidence, &p) == 6);
    RT_CHECK(rt_criterion_min_samples(noise, &p) == 5);
    char msg[512] = "";
    RT_CHECK(rt_criterion_check_reps(confidence, &p, 5, msg, sizeof msg) == 1);
    RT_CHECK(strstr(msg, "measure.max_reps = 5") && strstr(msg, "at least 6"));
    RT_CHECK(rt_criterion_check_reps(confidence, &p, 6, msg, sizeof msg) == 0);
    RT_CHECK(rt_criterion_check_reps(confidence, &p, 0, msg, sizeof msg) == 0); /* no limit */
    RT_CHECK(rt_criterion_check_reps(noise, &p, 5, msg, sizeof msg) == 0);
    RT_CHECK(rt_criterion_check_reps(noise, &p, 4, msg, sizeof msg) == 1);
    /* A target of 0 never stops a point: nothing to warn about. */
    const rt_criterion_params never = {.target_rel_ci = 0, .confidence = 0.95};
    RT_CHECK(rt_criterion_check_reps(confidence, &never, 3, msg, sizeof msg) == 0);
}

int main(void)
{
    test_min_samples();
    test_confidence_limits();
    test_min_time();
    test_noise();
    test_outside_table();
    test_table();
    return RT_TEST_RESULT();
}
