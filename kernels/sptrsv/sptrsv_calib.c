#include "sptrsv_calib.h"

#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "rt_clock.h"
#include "sptrsv_block.h"

double sptrsv_calib_total_bytes(const sptrsv_factor *f, int64_t nrhs)
{
    double b = 0.0;
    for (int64_t s = 0; s < f->nsuper; ++s)
        b += sptrsv_block_bytes(f, s, nrhs);
    return b;
}

/* Repeats fn until at least min_s has passed (at least 2 times) and returns seconds per call. */
static double per_call(void (*fn)(void *), void *arg, double min_s)
{
    fn(arg); /* warm */
    int reps = 0;
    const double t0 = rt_clock_now();
    double t = t0;
    while (reps < 2 || t - t0 < min_s) {
        fn(arg);
        ++reps;
        t = rt_clock_now();
    }
    return (t - t0) / reps;
}

typedef struct solve_arg {
    const rt_sptrsv_inputs *in;
    double *x, *lsum;
} solve_arg;

static void run_solve(void *p)
{
    solve_arg *a = p;
    sptrsv_block_solve_all(&a->in->f, &a->in->dag, a->in->nrhs, a->in->b, a->x, a->lsum);
}

typedef struct stream_arg {
    const double *v;
    int64_t n;
    int team;
    double sink;
} stream_arg;

static void run_stream(void *p)
{
    stream_arg *a = p;
    double s = 0.0;
#pragma omp parallel for reduction(+ : s) num_threads(a->team) schedule(static)
    for (int64_t i = 0; i < a->n; ++i)
        s += a->v[i];
    a->sink += s;
}

typedef struct barrier_arg {
    int team;
} barrier_arg;

#define BARRIERS 256
static void run_barriers(void *p)
{
    const barrier_arg *a = p;
#pragma omp parallel num_threads(a->team)
    for (int k = 0; k < BARRIERS; ++k) {
#pragma omp barrier
    }
}

int sptrsv_calib_cpu(const rt_sptrsv_inputs *in, int team, sptrsv_costs *c, rt_err *err)
{
    memset(c, 0, sizeof *c);
    const size_t n = (size_t)(in->n * in->nrhs > 0 ? in->n * in->nrhs : 1);
    solve_arg sa = {in, malloc(n * sizeof(double)), malloc(n * sizeof(double))};
    if (!sa.x || !sa.lsum) {
        free(sa.x);
        free(sa.lsum);
        return rt_err_set(err, "sptrsv calibration: out of memory");
    }
    const double t_solve = per_call(run_solve, &sa, 0.01);
    free(sa.x);
    free(sa.lsum);
    c->unit_bps = sptrsv_calib_total_bytes(&in->f, in->nrhs) / t_solve;
    /* The peak: L's values (CHOLMOD's whole block storage) streamed by the team. */
    const int64_t nval = in->f.nval;
    stream_arg st = {in->f.val, nval, team, 0.0};
    const double t_stream = per_call(run_stream, &st, 0.01);
    c->peak_bps = nval > 0 ? 8.0 * (double)nval / t_stream : c->unit_bps;
    if (c->peak_bps < c->unit_bps)
        c->peak_bps = c->unit_bps;
    barrier_arg ba = {team};
    c->sync_s = per_call(run_barriers, &ba, 0.002) / BARRIERS;
    c->task_s = 0.0;
    return 0;
}
