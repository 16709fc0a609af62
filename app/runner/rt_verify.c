#include "rt_verify.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_comm.h"

/* |out - ref| over the element's bound; INFINITY for a non-finite output or a nonzero difference
 * where the bound is zero (an empty row must produce exact zeros). */
static double element_ratio(double out, double ref, double scale, double tolerance)
{
    if (!isfinite(out))
        return INFINITY;
    const double diff = fabs(out - ref);
    const double bound = RT_VERIFY_ELEMENT_FACTOR * tolerance * scale;
    if (diff <= bound)
        return bound > 0 ? diff / bound : 0.0;
    return bound > 0 ? diff / bound : INFINITY;
}

/* The comparison runs over chunks of this many elements, the chunks in parallel; their sums are
 * then added in chunk order, so the result does not depend on the number of threads. */
#define VERIFY_CHUNK (INT64_C(1) << 16)

typedef struct chunk_sums {
    double diff2, ref2, nonfinite, over, worst;
    int64_t worst_i;
} chunk_sums;

static void compare_chunk(const double *out, const double *ref, const double *scale, int64_t i0,
                          int64_t i1, double tolerance, chunk_sums *c)
{
    /* Locals, not c's fields: c could alias the arrays, which would keep the sums in memory. */
    double diff2 = 0.0, ref2 = 0.0, nonfinite = 0.0, over = 0.0, worst = -1.0;
    int64_t worst_i = -1;
    for (int64_t i = i0; i < i1; ++i) {
        const double o = out[i], f = ref[i];
        if (!isfinite(o)) {
            nonfinite += 1.0;
        } else {
            diff2 += (o - f) * (o - f);
            ref2 += f * f;
        }
        if (scale || !isfinite(o)) {
            const double ratio = scale ? element_ratio(o, f, scale[i], tolerance) : INFINITY;
            if (ratio > 1.0)
                over += 1.0;
            if (ratio > worst) {
                worst = ratio;
                worst_i = i;
            }
        }
    }
    *c = (chunk_sums){.diff2 = diff2,
                      .ref2 = ref2,
                      .nonfinite = nonfinite,
                      .over = over,
                      .worst = worst,
                      .worst_i = worst_i};
}

int rt_verify_output(struct rt_comm *comm, const double *out, const double *ref,
                     const double *scale, int64_t n, double tolerance, rt_verify_result *r,
                     rt_err *err)
{
    memset(r, 0, sizeof *r);
    r->tolerance = tolerance;
    r->elementwise = scale != NULL;
    const int64_t nchunks = n > 0 ? (n + VERIFY_CHUNK - 1) / VERIFY_CHUNK : 0;
    chunk_sums *part = malloc((size_t)(nchunks > 0 ? nchunks : 1) * sizeof *part);
    if (part) {
#pragma omp parallel for schedule(static)
        for (int64_t c = 0; c < nchunks; ++c) {
            const int64_t i0 = c * VERIFY_CHUNK;
            compare_chunk(out, ref, scale, i0, i0 + VERIFY_CHUNK < n ? i0 + VERIFY_CHUNK : n,
                          tolerance, &part[c]);
        }
    }
    /* In chunk order (serially, chunk by chunk, when the partials found no memory): the same sums
     * either way, and the first of equally bad elements is the one reported. */
    double diff2 = 0.0, ref2 = 0.0, nonfinite = 0.0, over = 0.0;
    double worst = -1.0;
    int64_t worst_i = -1;
    for (int64_t c = 0; c < nchunks; ++c) {
        chunk_sums one;
        const int64_t i0 = c * VERIFY_CHUNK;
        if (!part)
            compare_chunk(out, ref, scale, i0, i0 + VERIFY_CHUNK < n ? i0 + VERIFY_CHUNK : n,
                          tolerance, &one);
        const chunk_sums *cs = part ? &part[c] : &one;
        diff2 += cs->diff2;
        ref2 += cs->ref2;
        nonfinite += cs->nonfinite;
        over += cs->over;
        if (cs->worst > worst) {
            worst = cs->worst;
            worst_i = cs->worst_i;
        }
    }
    free(part);
    double g_diff2 = 0, g_ref2 = 0, g_nonfinite = 0, g_over = 0, g_worst = -1.0;
    if (rt_comm_sum_double(comm, diff2, &g_diff2, err) != 0 ||
        rt_comm_sum_double(comm, ref2, &g_ref2, err) != 0 ||
        rt_comm_sum_double(comm, nonfinite, &g_nonfinite, err) != 0 ||
        rt_comm_sum_double(comm, over, &g_over, err) != 0 ||
        rt_comm_max_double(comm, worst, &g_worst, err) != 0)
        return rt_err_set(err, "communication failed during verification");
    r->n_nonfinite = (int64_t)g_nonfinite;
    r->n_over = (int64_t)g_over;
    r->worst_ratio = g_worst;
    if (g_nonfinite > 0)
        r->rel_error = INFINITY;
    else
        r->rel_error = g_ref2 > 0 ? sqrt(g_diff2 / g_ref2) : sqrt(g_diff2);

    /* The lowest rank holding the worst element tells everyone what it was. */
    r->worst_rank = -1;
    r->worst_index = -1;
    if (g_worst < 0)
        return 0;
    const int me = rt_comm_world_rank(comm);
    const double mine = (worst_i >= 0 && worst == g_worst) ? (double)me : 1e9;
    double who = 1e9;
    if (rt_comm_min_double(comm, mine, &who, err) != 0)
        return rt_err_set(err, "communication failed during verification");
    const int from = (int)who;
    double detail[4] = {0, 0, 0, 0};
    if (me == from) {
        detail[0] = (double)worst_i;
        detail[1] = out[worst_i];
        detail[2] = ref[worst_i];
        detail[3] = scale ? scale[worst_i] : NAN;
    }
    if (rt_comm_bcast_bytes(comm, detail, sizeof detail, from, err) != 0)
        return rt_err_set(err, "communication failed during verification");
    r->worst_rank = from;
    r->worst_index = (int64_t)detail[0];
    r->worst_out = detail[1];
    r->worst_ref = detail[2];
    r->worst_scale = detail[3];
    return 0;
}

void rt_verify_poison(double *out, int64_t n)
{
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i)
        out[i] = NAN;
}

int rt_verify_passed(const rt_verify_result *r)
{
    if (r->n_nonfinite > 0 || !(r->rel_error <= r->tolerance))
        return 0;
    return !r->elementwise || r->n_over == 0;
}

void rt_verify_describe(const rt_verify_result *r, char *buf, size_t len)
{
    if (r->n_nonfinite > 0) {
        snprintf(buf, len,
                 "%lld output element(s) not finite (e.g. element %lld of rank %d is %g): the "
                 "kernel left them unwritten or overflowed",
                 (long long)r->n_nonfinite, (long long)r->worst_index, r->worst_rank, r->worst_out);
    } else if (!(r->rel_error <= r->tolerance)) {
        snprintf(buf, len, "relative error %.9g exceeds the tolerance %.9g", r->rel_error,
                 r->tolerance);
    } else if (r->elementwise && r->n_over > 0) {
        const double diff = fabs(r->worst_out - r->worst_ref);
        const double bound = RT_VERIFY_ELEMENT_FACTOR * r->tolerance * r->worst_scale;
        snprintf(buf, len,
                 "%lld element(s) over their elementwise bound (relative error %.3g passes "
                 "normwise): element %lld of rank %d is %.17g where the reference is %.17g, "
                 "|diff| %.9g over its bound %.9g = %g x tolerance %.9g x |A||B| %.9g",
                 (long long)r->n_over, r->rel_error, (long long)r->worst_index, r->worst_rank,
                 r->worst_out, r->worst_ref, diff, bound, RT_VERIFY_ELEMENT_FACTOR, r->tolerance,
                 r->worst_scale);
    } else {
        snprintf(buf, len, "passed (relative error %.3g)", r->rel_error);
    }
}
