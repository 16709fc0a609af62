/* runner.inputs_ahead: a sweep's inputs and double-precision reference built ahead in a thread
 * (app/runner/rt_inputs_ahead.h), as parallel tuning's workers build the next sweep's: the same
 * numbers as the build a point does itself, bit for bit (the SpMM family, fp32 and fp64, both
 * layouts); a build ahead answers only for its own matrix, family and problem point; a family
 * whose inputs or reference fail gives the same message ahead as in place, and nothing leaks; a
 * build that polls for a stop is stopped by rt_inputs_ahead_free and by the caller's stop. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rt_inputs_ahead.h"
#include "rt_test.h"
#include "rt_walk.h"
#include "spmm_family.h"
#include "spmm_inputs.h"

static void band(rt_matrix_cfg *mc, rt_csr *m)
{
    rt_err err;
    memset(mc, 0, sizeof *mc);
    snprintf(mc->name, sizeof mc->name, "band");
    snprintf(mc->generator, sizeof mc->generator, "banded");
    rt_params_init(&mc->gen);
    static const char *const names[] = {"rows", "bandwidth", "seed"};
    static const int64_t values[] = {3000, 7, 5};
    for (int i = 0; i < 3; ++i)
        RT_CHECK(rt_params_set(&mc->gen, names[i], rt_value_int(values[i]), &err) == 0);
    RT_CHECK(rt_walk_build_matrix(mc, m, &err) == 0);
}

static void problem(rt_params *p, const char *prec, const char *layout, int64_t k)
{
    rt_err err;
    rt_params_init(p);
    RT_CHECK(rt_params_set(p, "K", rt_value_int(k), &err) == 0);
    RT_CHECK(rt_params_set(p, "precision", rt_value_str(prec), &err) == 0);
    RT_CHECK(rt_params_set(p, "layout", rt_value_str(layout), &err) == 0);
    RT_CHECK(rt_params_set(p, "seed", rt_value_int(7), &err) == 0);
}

static int same_doubles(const double *a, const double *b, int64_t n)
{
    return (a == NULL) == (b == NULL) && (!a || memcmp(a, b, (size_t)n * sizeof *a) == 0);
}

/* Ahead and in place: the same inputs (B, bit for bit), reference and scale. */
static void test_same_numbers(const rt_matrix_cfg *mc, const rt_csr *a)
{
    static const char *const precs[] = {"fp32", "fp64"}, *const layouts[] = {"row", "col"};
    const rt_family_desc *fam = rt_spmm_family();
    const rt_job job = rt_job_alone();
    for (int i = 0; i < 4; ++i) {
        rt_params p;
        problem(&p, precs[i / 2], layouts[i % 2], 16);
        char json[512];
        RT_CHECK(rt_params_to_json(&p, json, sizeof json) > 0);
        rt_err err;
        rt_inputs_set here, ahead;
        RT_CHECK(rt_inputs_build(&here, fam, mc, a, &p, json, &job, NULL, &err) == 0);
        rt_inputs_ahead *t = NULL;
        RT_CHECK(rt_inputs_ahead_start(fam, mc, a, &p, &job, NULL, &t, &err) == 0);
        RT_CHECK(rt_inputs_ahead_matches(t, fam, a, json));
        RT_CHECK(rt_inputs_ahead_matrix(t) == a);
        double begin = 0, end = 0;
        RT_CHECK(rt_inputs_ahead_take(t, &ahead, &begin, &end, &err) == 0);
        RT_CHECK(begin > 0 && end >= begin);
        rt_inputs_set again;
        RT_CHECK(rt_inputs_ahead_take(t, &again, &begin, &end, &err) != 0); /* once only */
        rt_inputs_ahead_free(t);
        RT_CHECK(ahead.family == fam && ahead.matrix == a && strcmp(ahead.problem, json) == 0);
        RT_CHECK_MSG(ahead.n_out == here.n_out && ahead.n_out == a->rows * 16, "n_out %lld",
                     (long long)ahead.n_out);
        RT_CHECK_MSG(same_doubles(ahead.reference, here.reference, here.n_out),
                     "%s %s: the reference built ahead differs", precs[i / 2], layouts[i % 2]);
        RT_CHECK(same_doubles(ahead.scale, here.scale, here.n_out));
        const rt_spmm_inputs *x = here.inputs, *y = ahead.inputs;
        const size_t bytes = (size_t)(x->b.rows * x->b.cols) * (x->prec == RT_FP32 ? 4 : 8);
        RT_CHECK(x->k == y->k && x->prec == y->prec && x->layout == y->layout &&
                 memcmp(x->b.data, y->b.data, bytes) == 0);
        RT_CHECK(ahead.output != NULL && ahead.output != here.output);
        rt_inputs_set_free(&here);
        rt_inputs_set_free(&ahead);
        RT_CHECK(ahead.inputs == NULL && ahead.reference == NULL);
    }
}

/* A build ahead is for one matrix, family and problem point only. */
static void test_matches(const rt_matrix_cfg *mc, const rt_csr *a)
{
    const rt_family_desc *fam = rt_spmm_family();
    const rt_job job = rt_job_alone();
    rt_params p, q;
    problem(&p, "fp32", "row", 8);
    problem(&q, "fp64", "row", 8);
    char pj[512], qj[512];
    RT_CHECK(rt_params_to_json(&p, pj, sizeof pj) > 0 && rt_params_to_json(&q, qj, sizeof qj) > 0);
    rt_err err;
    rt_inputs_ahead *t = NULL;
    RT_CHECK(rt_inputs_ahead_start(fam, mc, a, &p, &job, NULL, &t, &err) == 0);
    const rt_csr other = *a; /* the same arrays, another matrix as the walk sees it */
    rt_family_desc copy = *fam;
    RT_CHECK(rt_inputs_ahead_matches(t, fam, a, pj));
    RT_CHECK(!rt_inputs_ahead_matches(t, fam, a, qj));
    RT_CHECK(!rt_inputs_ahead_matches(t, fam, &other, pj));
    RT_CHECK(!rt_inputs_ahead_matches(t, &copy, a, pj));
    RT_CHECK(!rt_inputs_ahead_matches(NULL, fam, a, pj));
    rt_inputs_ahead_free(t); /* never taken: freed whole */
    rt_inputs_ahead_free(NULL);
}

/* Families that fail: their inputs, or their reference after the inputs were built. */
static int no_inputs(const rt_csr *a, const rt_params *p, const rt_job *job, void **inputs,
                     rt_err *err)
{
    (void)a;
    (void)p;
    (void)job;
    *inputs = NULL;
    return rt_err_set(err, "no inputs today");
}

static int no_reference(const void *inputs, double *out, rt_err *err)
{
    (void)inputs;
    (void)out;
    return rt_err_set(err, "no reference today");
}

static void expect_failure(const rt_family_desc *fam, const rt_matrix_cfg *mc, const rt_csr *a,
                           const char *want)
{
    const rt_job job = rt_job_alone();
    rt_params p;
    problem(&p, "fp64", "col", 4);
    char json[512];
    RT_CHECK(rt_params_to_json(&p, json, sizeof json) > 0);
    rt_err here, ahead;
    rt_err_clear(&here);
    rt_err_clear(&ahead);
    rt_inputs_set set;
    RT_CHECK(rt_inputs_build(&set, fam, mc, a, &p, json, &job, NULL, &here) != 0);
    RT_CHECK(set.inputs == NULL && set.reference == NULL && set.family == NULL);
    rt_inputs_ahead *t = NULL;
    RT_CHECK(rt_inputs_ahead_start(fam, mc, a, &p, &job, NULL, &t, &ahead) == 0);
    double b, e;
    RT_CHECK(rt_inputs_ahead_take(t, &set, &b, &e, &ahead) != 0);
    rt_inputs_ahead_free(t);
    RT_CHECK_MSG(strcmp(here.msg, ahead.msg) == 0 && strstr(here.msg, want) &&
                     strstr(here.msg, "matrix 'band'"),
                 "in place '%s', ahead '%s'", here.msg, ahead.msg);
}

static void test_failures(const rt_matrix_cfg *mc, const rt_csr *a)
{
    rt_family_desc fam = *rt_spmm_family();
    fam.make_inputs_until = NULL;
    fam.make_inputs = no_inputs;
    expect_failure(&fam, mc, a, "no inputs today");
    fam = *rt_spmm_family();
    fam.reference = no_reference;
    expect_failure(&fam, mc, a, "no reference today"); /* the inputs built are freed (ASan) */
}

/* A family that builds until it is asked to stop (at most 20 s). */
static int polls(const rt_csr *a, const rt_params *p, const rt_job *job, const rt_stop *stop,
                 void **inputs, rt_err *err)
{
    (void)a;
    (void)p;
    (void)job;
    *inputs = NULL;
    const time_t until = time(NULL) + 20;
    while (!rt_stop_requested(stop) && time(NULL) < until) {
        const struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    return rt_err_set(err, rt_stop_requested(stop) ? "stopped" : "never stopped");
}

static int always(const void *ctx)
{
    (void)ctx;
    return 1;
}

static void test_stops(const rt_matrix_cfg *mc, const rt_csr *a)
{
    rt_family_desc fam = *rt_spmm_family();
    fam.make_inputs_until = polls;
    const rt_job job = rt_job_alone();
    rt_params p;
    problem(&p, "fp32", "row", 4);
    rt_err err;
    /* freed while it builds: it stops at once, not after 20 s */
    const time_t t0 = time(NULL);
    rt_inputs_ahead *t = NULL;
    RT_CHECK(rt_inputs_ahead_start(&fam, mc, a, &p, &job, NULL, &t, &err) == 0);
    rt_inputs_ahead_free(t);
    RT_CHECK_MSG(time(NULL) - t0 < 10, "freeing a build ahead waited %lld s",
                 (long long)(time(NULL) - t0));
    /* the caller's stop (a signal, in the runner) stops it too */
    const rt_stop stop = {.requested = always, .ctx = NULL};
    RT_CHECK(rt_inputs_ahead_start(&fam, mc, a, &p, &job, &stop, &t, &err) == 0);
    rt_inputs_set set;
    double b, e;
    RT_CHECK(rt_inputs_ahead_take(t, &set, &b, &e, &err) != 0);
    RT_CHECK_MSG(strstr(err.msg, "stopped") && !strstr(err.msg, "never"), "%s", err.msg);
    rt_inputs_ahead_free(t);
}

int main(void)
{
    rt_matrix_cfg mc;
    rt_csr a;
    band(&mc, &a);
    test_same_numbers(&mc, &a);
    test_matches(&mc, &a);
    test_failures(&mc, &a);
    test_stops(&mc, &a);
    rt_csr_free(&a);
    return RT_TEST_RESULT();
}
