/* The persistent solve's plan (sptrsv_pplan.h) in one process, on CHOLMOD factors of grid
 * Laplacians, for 1 to 6 parts, the P x 1, 1 x P and 2D layouts, the cyclic and subtree maps,
 * with and without leaf tasks, forward and backward, 1 to 32 right-hand sides:
 *   - structure: the rows below every supernode are covered by exactly one chunk each, every
 *     chunk outside a leaf task sits on the part its layout gives, every wait has a producer
 *     that comes earlier in the ticket order (keys strictly increase along every dependency);
 *     P x 1 forward sends no partial sums and 1 x P forward no x (without leaf tasks);
 *   - the protocol, run by an interpreter that holds W tickets per part and runs any held task
 *     whose waits are met, in a seeded random order, for three executions: it never stalls (no
 *     deadlock with one worker per part either), every counter ends at exactly e x target (no
 *     signal lost or repeated), and X (each supernode from its owner) equals the family's
 *     reference within its tolerance;
 *   - bad options (a grid that does not divide the parts, a supernode wider than max_columns)
 *     fail with a message naming them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_generators.h"
#include "rt_test.h"
#include "sptrsv_test_matrix.h"
#include "sptrsv_family.h"
#include "sptrsv_pexec.h"
#include "sptrsv_pplan.h"

static void check_structure(const rt_sptrsv_inputs *in, const sptrsv_pplan *p)
{
    const sptrsv_factor *f = &in->f;
    const int64_t ns = f->nsuper;
    /* every row position below a diagonal block in exactly one chunk */
    int64_t *cover = calloc((size_t)f->rowstart[ns] + 1, sizeof *cover);
    for (int64_t c = 0; c < p->nchunks; ++c) {
        const int64_t j = p->ch_super[c];
        RT_CHECK(p->ch_p0[c] >= sptrsv_ncols(f, j) && p->ch_p1[c] <= sptrsv_nrows(f, j) &&
                 p->ch_p0[c] < p->ch_p1[c]);
        for (int32_t q = p->ch_p0[c]; q < p->ch_p1[c]; ++q)
            cover[f->rowstart[j] + q]++;
        RT_CHECK(p->task_part[p->ch_task[c]] == p->ch_part[c]);
        if (p->leaf[j] < 0) {
            RT_CHECK(p->ch_p1[c] - p->ch_p0[c] <= p->o.chunk_rows);
            const int64_t i = in->dag.col_super[f->rows[f->rowstart[j] + p->ch_p0[c]]];
            RT_CHECK(p->ch_part[c] == sptrsv_pplan_block_part(p, p->home[i], p->home[j]));
        }
    }
    for (int64_t s = 0; s < ns; ++s)
        for (int64_t q = f->rowstart[s]; q < f->rowstart[s + 1]; ++q)
            RT_CHECK(cover[q] == (q - f->rowstart[s] >= sptrsv_ncols(f, s) ? 1 : 0));
    free(cover);
    /* waits: their producers start strictly earlier in the estimated schedule */
    for (int64_t t = 0; t < p->ntasks; ++t)
        for (int64_t w = p->task_wait_ptr[t]; w < p->task_wait_ptr[t + 1]; ++w) {
            const int64_t code = p->task_wait[w];
            if (code >= 0) {
                RT_CHECK(p->diag_task[code] != t);
                RT_CHECK(p->task_key[p->diag_task[code]] < p->task_key[t]);
                continue;
            }
            const int64_t s = -1 - code;
            RT_CHECK(p->diag_task[s] == t && p->home[s] == p->task_part[t]);
            for (int64_t c = 0; c < p->nchunks; ++c)
                for (int64_t e = p->ch_out_ptr[c]; e < p->ch_out_ptr[c + 1]; ++e)
                    if (p->ch_out[e] == s)
                        RT_CHECK(p->task_key[p->ch_task[c]] < p->task_key[t]);
        }
    /* tickets: each part's tasks once, in key order */
    int64_t seen = 0;
    for (int g = 0; g < p->o.parts; ++g)
        for (int64_t q = p->ticket_ptr[g]; q < p->ticket_ptr[g + 1]; ++q, ++seen) {
            RT_CHECK(p->task_part[p->ticket[q]] == g);
            if (q > p->ticket_ptr[g])
                RT_CHECK(p->task_key[p->ticket[q - 1]] <= p->task_key[p->ticket[q]]);
        }
    RT_CHECK(seen == p->ntasks);
    if (p->o.leaf_bytes == 0 && !p->o.backward && p->grid_cols == 1)
        RT_CHECK_MSG(p->partial_messages == 0, "P x 1 forward: %lld partials",
                     (long long)p->partial_messages);
    if (p->o.leaf_bytes == 0 && !p->o.backward && p->o.grid_rows == 1)
        RT_CHECK_MSG(p->x_messages == 0, "1 x P forward: %lld x messages",
                     (long long)p->x_messages);
}

typedef struct part_state {
    double *x, *lsum, *recv;
    int64_t *xflag, *count;
} part_state;

static uint64_t rng_state = 88172645463325252ULL;
static uint64_t next_rand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int waits_met(const sptrsv_pplan *p, const part_state *st, int64_t t, int64_t e)
{
    const int g = p->task_part[t];
    for (int64_t w = p->task_wait_ptr[t]; w < p->task_wait_ptr[t + 1]; ++w) {
        const int64_t code = p->task_wait[w];
        if (code >= 0 && st[g].xflag[code] < e)
            return 0;
        if (code < 0 && st[g].count[-1 - code] < e * p->target[(int64_t)g * p->nsuper - 1 - code])
            return 0;
    }
    return 1;
}

static void run_task(const rt_sptrsv_inputs *in, const sptrsv_pplan *p, part_state *st,
                     const double *inv, const int64_t *off, int64_t t, int64_t e)
{
    const sptrsv_factor *f = &in->f;
    const int g = p->task_part[t];
    const int64_t k = p->o.nrhs, ns = p->nsuper;
    for (int64_t q = p->task_step_ptr[t]; q < p->task_step_ptr[t + 1]; ++q) {
        const int64_t code = p->task_step[q];
        if (code >= 0) {
            const int64_t s = code, r0 = f->first[s] * k, m = sptrsv_ncols(f, s) * k;
            sptrsv_pexec_diag(f, p, s, inv + off[s], in->b, st[g].lsum, st[g].recv, st[g].x);
            for (int64_t d = p->xdst_ptr[s]; d < p->xdst_ptr[s + 1]; ++d) {
                memcpy(st[p->xdst[d]].x + r0, st[g].x + r0, (size_t)m * sizeof(double));
                st[p->xdst[d]].xflag[s] = e;
            }
            st[g].xflag[s] = e;
            continue;
        }
        const int64_t c = SPTRSV_PSTEP_ID(code);
        sptrsv_pexec_chunk(f, p, c, st[g].x, st[g].lsum, 0);
        for (int64_t o = p->ch_out_ptr[c]; o < p->ch_out_ptr[c + 1]; ++o) {
            const int64_t s = p->ch_out[o];
            const int h = p->home[s];
            if (++st[g].count[s] != e * p->target[(int64_t)g * ns + s] || g == h)
                continue;
            const int64_t r0 = f->first[s] * k, m = sptrsv_ncols(f, s) * k;
            memcpy(st[h].recv + p->red_off[(int64_t)g * ns + s], st[g].lsum + r0,
                   (size_t)m * sizeof(double));
            memset(st[g].lsum + r0, 0, (size_t)m * sizeof(double));
            st[h].count[s]++;
        }
    }
}

/* Runs the plan for three executions with `workers` tickets held per part. 0 when it stalled. */
static int interpret(const rt_sptrsv_inputs *in, const sptrsv_pplan *p, int workers,
                     const double *ref, double tol)
{
    const int P = p->o.parts;
    const int64_t nk = in->n * p->o.nrhs, ns = p->nsuper;
    double *inv = NULL;
    int64_t *off = NULL, total = 0;
    rt_err err;
    RT_CHECK(sptrsv_pexec_inverses(&in->f, p, -1, &inv, &off, &total, &err) == 0);
    part_state *st = calloc((size_t)P, sizeof *st);
    for (int g = 0; g < P; ++g) {
        st[g].x = malloc((size_t)nk * sizeof(double));
        for (int64_t i = 0; i < nk; ++i)
            st[g].x[i] = NAN;
        st[g].lsum = calloc((size_t)nk, sizeof(double));
        st[g].recv = calloc((size_t)p->recv_doubles[g] + 1, sizeof(double));
        st[g].xflag = calloc((size_t)ns, sizeof(int64_t));
        st[g].count = calloc((size_t)ns, sizeof(int64_t));
    }
    int64_t *held = malloc((size_t)P * (size_t)workers * sizeof *held);
    int64_t *next = malloc((size_t)P * sizeof *next);
    int ok = 1;
    for (int64_t e = 1; e <= 3 && ok; ++e) {
        int64_t left = p->ntasks;
        for (int g = 0; g < P; ++g) {
            next[g] = p->ticket_ptr[g];
            for (int w = 0; w < workers; ++w)
                held[g * workers + w] = -1;
        }
        while (left > 0) {
            int progress = 0;
            const int g0 = (int)(next_rand() % (uint64_t)P);
            for (int gi = 0; gi < P; ++gi) {
                const int g = (g0 + gi) % P;
                for (int w = 0; w < workers; ++w) {
                    int64_t *h = &held[g * workers + w];
                    if (*h < 0 && next[g] < p->ticket_ptr[g + 1])
                        *h = p->ticket[next[g]++];
                }
                const int w0 = (int)(next_rand() % (uint64_t)workers);
                for (int wi = 0; wi < workers; ++wi) {
                    int64_t *h = &held[g * workers + (w0 + wi) % workers];
                    if (*h >= 0 && waits_met(p, st, *h, e)) {
                        run_task(in, p, st, inv, off, *h, e);
                        *h = -1;
                        --left;
                        progress = 1;
                    }
                }
            }
            if (!progress) {
                ok = 0;
                break;
            }
        }
        if (!ok)
            break;
        for (int g = 0; g < P; ++g)
            for (int64_t s = 0; s < ns; ++s)
                RT_CHECK_MSG(st[g].count[s] == e * p->target[(int64_t)g * ns + s],
                             "part %d supernode %lld: %lld signals after %lld executions, "
                             "target %lld each",
                             g, (long long)s, (long long)st[g].count[s], (long long)e,
                             (long long)p->target[(int64_t)g * ns + s]);
        double num = 0.0, den = 0.0;
        for (int64_t s = 0; s < ns; ++s) {
            const double *xs = st[p->home[s]].x;
            for (int64_t i = in->f.first[s] * p->o.nrhs; i < in->f.first[s + 1] * p->o.nrhs; ++i) {
                num += (xs[i] - ref[i]) * (xs[i] - ref[i]);
                den += ref[i] * ref[i];
            }
        }
        RT_CHECK_MSG(sqrt(num / den) < tol, "execution %lld: error %g (tolerance %g)", (long long)e,
                     sqrt(num / den), tol);
    }
    for (int g = 0; g < P; ++g) {
        free(st[g].x);
        free(st[g].lsum);
        free(st[g].recv);
        free(st[g].xflag);
        free(st[g].count);
    }
    free(st);
    free(held);
    free(next);
    free(inv);
    free(off);
    return ok;
}

static int cases = 0;

static void one(const rt_sptrsv_inputs *in, const double *ref, int P, int pr, sptrsv_pmap map,
                int64_t chunk_rows, int64_t leaf_bytes, int workers)
{
    sptrsv_pplan_opts o = {.parts = P,
                           .grid_rows = pr,
                           .map = map,
                           .backward = in->backward,
                           .nrhs = in->nrhs,
                           .chunk_rows = chunk_rows,
                           .leaf_bytes = leaf_bytes,
                           .max_columns = 64};
    sptrsv_pplan p;
    rt_err err;
    if (sptrsv_pplan_build(&in->f, &in->dag, &o, &p, &err) != 0) {
        RT_CHECK_MSG(0, "plan P=%d pr=%d map=%d: %s", P, pr, (int)map, err.msg);
        return;
    }
    check_structure(in, &p);
    RT_CHECK_MSG(interpret(in, &p, workers, ref, rt_sptrsv_family()->tolerance(in)),
                 "stalled: P=%d pr=%d map=%d chunk=%lld leaf=%lld workers=%d backward=%d", P, pr,
                 (int)map, (long long)chunk_rows, (long long)leaf_bytes, workers, in->backward);
    ++cases;
    sptrsv_pplan_free(&p);
}

static void matrix_cases(int stencil, int nx, int64_t nrhs, int64_t cap, int backward)
{
    rt_csr a;
    sptrsv_test_laplacian(&a, stencil, nx);
    rt_sptrsv_inputs *in = NULL;
    rt_err err;
    RT_CHECK_MSG(rt_sptrsv_inputs_create(&a, nrhs, SPTRSV_ORDER_METIS, cap, 11, 0, 1, &in, &err) ==
                     0,
                 "%s", err.msg);
    in->backward = backward;
    double *ref = malloc((size_t)(in->n * nrhs) * sizeof *ref);
    RT_CHECK(rt_sptrsv_family()->reference(in, ref, &err) == 0);
    const int64_t leaf = 4096;
    one(in, ref, 1, 1, SPTRSV_PMAP_CYCLIC, 1000000, 0, 1);
    one(in, ref, 1, 1, SPTRSV_PMAP_SUBTREE, 5, leaf, 3);
    one(in, ref, 2, 2, SPTRSV_PMAP_CYCLIC, 4, 0, 2); /* P x 1 */
    one(in, ref, 2, 1, SPTRSV_PMAP_CYCLIC, 4, 0, 2); /* 1 x P */
    one(in, ref, 2, 2, SPTRSV_PMAP_SUBTREE, 8, leaf, 1);
    one(in, ref, 3, 3, SPTRSV_PMAP_SUBTREE, 3, 0, 1);
    one(in, ref, 4, 2, SPTRSV_PMAP_CYCLIC, 6, 0, 4); /* 2 x 2 */
    one(in, ref, 4, 4, SPTRSV_PMAP_SUBTREE, 16, leaf, 2);
    one(in, ref, 4, 1, SPTRSV_PMAP_SUBTREE, 2, 0, 1);
    one(in, ref, 6, 3, SPTRSV_PMAP_CYCLIC, 7, leaf, 2); /* 3 x 2 */
    free(ref);
    rt_sptrsv_inputs_destroy(in);
    rt_csr_free(&a);
}

static void bad_options(void)
{
    rt_csr a;
    sptrsv_test_laplacian(&a, 5, 10);
    rt_sptrsv_inputs *in = NULL;
    rt_err err;
    RT_CHECK(rt_sptrsv_inputs_create(&a, 1, SPTRSV_ORDER_METIS, 0, 1, 0, 1, &in, &err) == 0);
    sptrsv_pplan p;
    sptrsv_pplan_opts o = {.parts = 4, .grid_rows = 3, .nrhs = 1, .chunk_rows = 8};
    RT_CHECK(sptrsv_pplan_build(&in->f, &in->dag, &o, &p, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "does not divide"), "%s", err.msg);
    o.grid_rows = 4;
    o.max_columns = 2;
    RT_CHECK(sptrsv_pplan_build(&in->f, &in->dag, &o, &p, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "max_supernode"), "%s", err.msg);
    o.max_columns = 0;
    o.parts = 65;
    o.grid_rows = 65;
    RT_CHECK(sptrsv_pplan_build(&in->f, &in->dag, &o, &p, &err) != 0);
    rt_sptrsv_inputs_destroy(in);
    rt_csr_free(&a);
}

int main(void)
{
    matrix_cases(5, 14, 1, 8, 0);
    matrix_cases(5, 14, 1, 8, 1);
    matrix_cases(7, 7, 8, 16, 0);
    matrix_cases(7, 7, 8, 16, 1);
    matrix_cases(27, 5, 32, 32, 1);
    matrix_cases(27, 5, 32, 32, 0);
    bad_options();
    RT_CHECK(cases == 60);
    return RT_TEST_RESULT();
}
