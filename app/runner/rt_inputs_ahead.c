/* rt_inputs_ahead: see rt_inputs_ahead.h. */
#include "rt_inputs_ahead.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"
#include "rt_params.h"

void rt_inputs_set_free(rt_inputs_set *set)
{
    if (set->inputs && set->family)
        set->family->free_inputs(set->inputs);
    free(set->reference);
    free(set->scale);
    free(set->output);
    memset(set, 0, sizeof *set);
}

int rt_inputs_build(rt_inputs_set *set, const rt_family_desc *fam, const rt_matrix_cfg *mc,
                    const rt_csr *a, const rt_params *problem, const char *problem_json,
                    const rt_job *job, const rt_stop *stop, rt_err *err)
{
    memset(set, 0, sizeof *set);
    if (rt_family_make_inputs(fam, a, problem, job, stop, &set->inputs, err) != 0)
        return rt_err_prefix(err, "inputs for matrix '%s'", mc->name);
    set->family = fam;
    set->matrix = a;
    snprintf(set->problem, sizeof set->problem, "%s", problem_json);
    set->n_out = fam->output_elems(set->inputs);
    const size_t n = (size_t)(set->n_out > 0 ? set->n_out : 1);
    set->reference = malloc(n * sizeof(double));
    set->output = malloc(n * sizeof(double));
    int rc = 0;
    if (!set->reference || !set->output)
        rc = rt_err_set(err, "out of memory for the reference output (%lld values)",
                        (long long)set->n_out);
    else if (fam->reference(set->inputs, set->reference, err) != 0)
        rc = rt_err_prefix(err, "reference for matrix '%s'", mc->name);
    else if (fam->reference_scale && !(set->scale = malloc(n * sizeof(double))))
        rc = rt_err_set(err, "out of memory for the elementwise check (%lld values)",
                        (long long)set->n_out);
    else if (fam->reference_scale && fam->reference_scale(set->inputs, set->scale, err) != 0)
        rc = rt_err_prefix(err, "elementwise scale for matrix '%s'", mc->name);
    if (rc != 0)
        rt_inputs_set_free(set);
    return rc;
}

struct rt_inputs_ahead {
    const rt_family_desc *family;
    const rt_matrix_cfg *mc;
    const rt_csr *a;
    rt_params problem;
    char problem_json[512];
    rt_job job;
    rt_stop outer; /* the caller's stop (requested NULL: none) */
    pthread_t thread;
    pthread_mutex_t lock; /* guards cancel */
    int cancel;           /* rt_inputs_ahead_free: a family that polls stops */
    int joined, taken;
    /* written by the thread, read after the join */
    rt_inputs_set set;
    int rc;
    rt_err err;
    double begin, end;
};

static int cancelled(const void *ctx)
{
    rt_inputs_ahead *p = (rt_inputs_ahead *)ctx;
    pthread_mutex_lock(&p->lock);
    const int c = p->cancel;
    pthread_mutex_unlock(&p->lock);
    return c || rt_stop_requested(&p->outer);
}

static void *build(void *arg)
{
    rt_inputs_ahead *p = arg;
    rt_err_clear(&p->err);
    const rt_stop stop = {.requested = cancelled, .ctx = p};
    p->begin = rt_clock_epoch();
    p->rc = rt_inputs_build(&p->set, p->family, p->mc, p->a, &p->problem, p->problem_json, &p->job,
                            &stop, &p->err);
    p->end = rt_clock_epoch();
    return NULL;
}

int rt_inputs_ahead_start(const rt_family_desc *fam, const rt_matrix_cfg *mc, const rt_csr *a,
                          const rt_params *problem, const rt_job *job, const rt_stop *stop,
                          rt_inputs_ahead **out, rt_err *err)
{
    *out = NULL;
    rt_inputs_ahead *p = calloc(1, sizeof *p);
    if (!p)
        return rt_err_set(err, "out of memory building inputs for matrix '%s' ahead", mc->name);
    p->family = fam;
    p->mc = mc;
    p->a = a;
    p->problem = *problem;
    p->job = *job;
    if (stop)
        p->outer = *stop;
    if (rt_params_to_json(problem, p->problem_json, sizeof p->problem_json) < 0) {
        free(p);
        return rt_err_set(err, "inputs for matrix '%s' ahead: the problem point is too long",
                          mc->name);
    }
    pthread_mutex_init(&p->lock, NULL);
    const int rc = pthread_create(&p->thread, NULL, build, p);
    if (rc != 0) {
        pthread_mutex_destroy(&p->lock);
        free(p);
        return rt_err_set(err, "inputs for matrix '%s' ahead: no thread: %s", mc->name,
                          strerror(rc));
    }
    *out = p;
    return 0;
}

int rt_inputs_ahead_matches(const rt_inputs_ahead *p, const rt_family_desc *fam, const rt_csr *a,
                            const char *problem_json)
{
    return p && p->family == fam && p->a == a && strcmp(p->problem_json, problem_json) == 0;
}

const rt_csr *rt_inputs_ahead_matrix(const rt_inputs_ahead *p)
{
    return p->a;
}

static void join(rt_inputs_ahead *p)
{
    if (!p->joined) {
        pthread_join(p->thread, NULL);
        p->joined = 1;
    }
}

int rt_inputs_ahead_take(rt_inputs_ahead *p, rt_inputs_set *out, double *begin, double *end,
                         rt_err *err)
{
    if (p->taken) /* *out may be the set taken: left alone */
        return rt_err_set(err, "inputs for matrix '%s' ahead: taken twice", p->mc->name);
    join(p);
    memset(out, 0, sizeof *out);
    *begin = p->begin;
    *end = p->end;
    p->taken = 1;
    if (p->rc != 0) {
        *err = p->err;
        return -1;
    }
    *out = p->set;
    memset(&p->set, 0, sizeof p->set);
    return 0;
}

void rt_inputs_ahead_free(rt_inputs_ahead *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->cancel = 1;
    pthread_mutex_unlock(&p->lock);
    join(p);
    rt_inputs_set_free(&p->set);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
