/* trust.verify_chunks (issue 35: the verification gate over threads): rt_verify_output compares in
 * fixed chunks over the OpenMP threads and adds the chunks' sums in order, so
 *   - its result is the same, bit for bit, with 1, 2 and 3 threads;
 *   - a wrong element in any chunk still fails (normwise and elementwise), and the one reported
 *     is the worst, the first of equally bad ones;
 *   - an element the kernel never wrote (rt_verify_poison's NaN) fails, wherever it is;
 *   - an output of one element and an empty one behave as before. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <omp.h>

#include "rt_comm.h"
#include "rt_test.h"
#include "rt_verify.h"

/* Three chunks of the comparison and a partial fourth. */
#define N (3 * 65536 + 17)

static void fill(double *ref, double *out, double *scale, int64_t n)
{
    for (int64_t i = 0; i < n; ++i) {
        ref[i] = 1.0 + (double)(i % 97) / 7.0;
        scale[i] = fabs(ref[i]) * 4.0;
        /* Within the tolerance, not exactly equal: the sums have something to round. */
        out[i] = ref[i] * (1.0 + 1e-9 * (double)((i * 31) % 11 - 5));
    }
}

static rt_verify_result check(rt_comm *comm, const double *out, const double *ref,
                              const double *scale, int64_t n, int threads)
{
    omp_set_num_threads(threads);
    rt_verify_result r;
    rt_err err;
    RT_CHECK_MSG(rt_verify_output(comm, out, ref, scale, n, 1e-6, &r, &err) == 0, "%s", err.msg);
    return r;
}

static int same_result(const rt_verify_result *a, const rt_verify_result *b)
{
    return memcmp(&a->rel_error, &b->rel_error, sizeof a->rel_error) == 0 &&
           memcmp(&a->worst_ratio, &b->worst_ratio, sizeof a->worst_ratio) == 0 &&
           a->n_over == b->n_over && a->n_nonfinite == b->n_nonfinite &&
           a->worst_index == b->worst_index;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    rt_err err;
    rt_comm *comm = NULL;
    if (rt_comm_create_self(&comm, &err) != 0) {
        fprintf(stderr, "rt_comm_create_self: %s\n", err.msg);
        MPI_Finalize();
        return 1;
    }
    double *ref = malloc(N * sizeof *ref), *out = malloc(N * sizeof *out);
    double *scale = malloc(N * sizeof *scale);
    RT_CHECK(ref && out && scale);
    fill(ref, out, scale, N);

    /* Right output: passes, the same result whatever the threads. */
    const rt_verify_result one = check(comm, out, ref, scale, N, 1);
    RT_CHECK(rt_verify_passed(&one) && one.rel_error > 0 && one.rel_error < 1e-8);
    for (int t = 2; t <= 3; ++t) {
        const rt_verify_result r = check(comm, out, ref, scale, N, t);
        RT_CHECK_MSG(same_result(&one, &r), "%d threads: rel_error %.17g, 1 thread %.17g", t,
                     r.rel_error, one.rel_error);
    }

    /* One wrong element in the last, partial chunk: fails elementwise, found where it is. */
    const int64_t bad = N - 3;
    const double saved = out[bad];
    out[bad] = ref[bad] * 1.001;
    for (int t = 1; t <= 3; ++t) {
        const rt_verify_result r = check(comm, out, ref, scale, N, t);
        RT_CHECK_MSG(!rt_verify_passed(&r) && r.n_over == 1 && r.worst_index == bad,
                     "%d threads: over %lld, worst %lld", t, (long long)r.n_over,
                     (long long)r.worst_index);
    }
    /* A second element exactly as bad (the same reference, scale and output), in the first
     * chunk: the first one is the one reported. */
    const int64_t early = bad % 97;
    const double saved_early = out[early];
    out[early] = out[bad];
    for (int t = 1; t <= 3; ++t) {
        const rt_verify_result r = check(comm, out, ref, scale, N, t);
        RT_CHECK_MSG(r.n_over == 2 && r.worst_index == early, "%d threads: over %lld, worst %lld",
                     t, (long long)r.n_over, (long long)r.worst_index);
    }
    out[early] = saved_early;
    out[bad] = saved;

    /* Normwise only (no scale): everything off by 1e-3 fails on the norm. */
    for (int64_t i = 0; i < N; ++i)
        out[i] = ref[i] * 1.001;
    for (int t = 1; t <= 3; ++t) {
        const rt_verify_result r = check(comm, out, ref, NULL, N, t);
        RT_CHECK(!rt_verify_passed(&r) && !r.elementwise && fabs(r.rel_error - 1e-3) < 1e-9);
    }

    /* The poison: every element NaN, then one element in the middle chunk left unwritten. */
    fill(ref, out, scale, N);
    double *poisoned = malloc(N * sizeof *poisoned);
    RT_CHECK(poisoned != NULL);
    rt_verify_poison(poisoned, N);
    int all_nan = 1;
    for (int64_t i = 0; i < N; ++i)
        all_nan &= isnan(poisoned[i]);
    RT_CHECK(all_nan);
    memcpy(poisoned, out, N * sizeof *out);
    const int64_t hole = 2 * 65536 + 3;
    rt_verify_poison(poisoned + hole, 1);
    for (int t = 1; t <= 3; ++t) {
        const rt_verify_result r = check(comm, poisoned, ref, scale, N, t);
        RT_CHECK(!rt_verify_passed(&r) && r.n_nonfinite == 1 && r.worst_index == hole &&
                 isinf(r.rel_error));
    }

    /* One element, and none. */
    const rt_verify_result single = check(comm, out, ref, scale, 1, 2);
    RT_CHECK(rt_verify_passed(&single));
    const rt_verify_result none = check(comm, out, ref, scale, 0, 2);
    RT_CHECK(rt_verify_passed(&none) && none.worst_index == -1 && none.rel_error == 0.0);

    free(poisoned);
    free(ref);
    free(out);
    free(scale);
    rt_comm_free(comm);
    MPI_Finalize();
    return RT_TEST_RESULT();
}
