/* rmat: the recursive-matrix (R-MAT) graph generator with the Graph500 defaults.
 *
 * Each of edge_factor * 2^scale edges descends `scale` levels of the adjacency matrix, choosing
 * the top-left, top-right, bottom-left or bottom-right quadrant with probabilities a, b, c and
 * d = 1 - a - b - c. With `noise` > 0 each level perturbs a..d by a factor 1 + noise * U(-1, 1)
 * and renormalises (the smoothing of Chakrabarti et al.), which removes the staircase in the degree
 * distribution. Duplicate edges are merged (values summed); values are uniform in [-1, 1).
 * `symmetric: 1` makes an undirected graph: each edge is stored in both directions and A = A^T
 * exactly (self-loops stay single). Vertex labels are not scrambled: ordering "random" does that.
 */
#include "rt_gen_rmat.h"

#include <inttypes.h>
#include <stdlib.h>

#include "rt_memcheck.h"
#include "rt_rng.h"

static const rt_param_schema rmat_args[] = {
    {"scale", RT_V_INT, "1..30", "16", 0, "log2 of the vertex count: rows = cols = 2^scale"},
    {"edge_factor", RT_V_INT, "1..1048576", "16", 0, "edges generated per vertex (before merging)"},
    {"a", RT_V_REAL, "0..1", "0.57", 0, "probability of the top-left quadrant"},
    {"b", RT_V_REAL, "0..1", "0.19", 0, "probability of the top-right quadrant"},
    {"c", RT_V_REAL, "0..1", "0.19", 0, "probability of the bottom-left quadrant (d = 1-a-b-c)"},
    {"noise", RT_V_REAL, "0..1", "0", 0, "relative per-level perturbation of a, b, c, d"},
    {"symmetric", RT_V_INT, "0|1", "0", 0, "1: undirected graph, A = A^T"},
    {"seed", RT_V_INT, "", "1", 0, "random seed (same seed, same matrix)"},
};

typedef struct coo3 {
    int64_t *ri, *ci;
    double *v;
} coo3;

static void coo3_free(coo3 *c)
{
    free(c->ri);
    free(c->ci);
    free(c->v);
}

static int coo3_alloc(coo3 *c, int64_t n, rt_err *err)
{
    const size_t count = (size_t)(n > 0 ? n : 1);
    c->ri = malloc(count * sizeof *c->ri);
    c->ci = malloc(count * sizeof *c->ci);
    c->v = malloc(count * sizeof *c->v);
    if (c->ri && c->ci && c->v)
        return 0;
    coo3_free(c);
    return rt_err_set(err, "out of memory: cannot allocate %zu bytes for %" PRId64 " edges",
                      count * (2 * sizeof(int64_t) + sizeof(double)), n);
}

/* One edge: `scale` quadrant choices from the most significant bit down. */
static void rmat_edge(rt_rng *rng, int64_t scale, const double p[4], double noise, int64_t *row,
                      int64_t *col)
{
    int64_t r = 0, c = 0;
    for (int64_t level = 0; level < scale; ++level) {
        double q[4] = {p[0], p[1], p[2], p[3]};
        if (noise > 0.0) {
            double sum = 0.0;
            for (int k = 0; k < 4; ++k) {
                q[k] *= 1.0 + noise * rt_rng_symmetric(rng);
                sum += q[k];
            }
            for (int k = 0; k < 4; ++k)
                q[k] /= sum;
        }
        const double u = rt_rng_uniform(rng);
        const int64_t bit = (int64_t)1 << (scale - 1 - level);
        if (u < q[0]) {
            /* top-left: neither bit */
        } else if (u < q[0] + q[1]) {
            c |= bit;
        } else if (u < q[0] + q[1] + q[2]) {
            r |= bit;
        } else {
            r |= bit;
            c |= bit;
        }
    }
    *row = r;
    *col = c;
}

static int rmat_generate(const rt_params *args, rt_csr *out, rt_err *err)
{
    const int64_t scale = rt_params_int(args, "scale", 0);
    const int64_t edge_factor = rt_params_int(args, "edge_factor", 0);
    const double p[4] = {rt_params_real(args, "a", 0), rt_params_real(args, "b", 0),
                         rt_params_real(args, "c", 0),
                         1.0 - rt_params_real(args, "a", 0) - rt_params_real(args, "b", 0) -
                             rt_params_real(args, "c", 0)};
    const double noise = rt_params_real(args, "noise", 0);
    const int symmetric = rt_params_int(args, "symmetric", 0) != 0;
    const uint64_t seed = (uint64_t)rt_params_int(args, "seed", 0);
    if (scale < 1 || scale > 30 || edge_factor < 1)
        return rt_err_set(
            err, "scale = %" PRId64 " must be in 1..30 and edge_factor = %" PRId64 " positive",
            scale, edge_factor);
    if (p[0] < 0 || p[1] < 0 || p[2] < 0 || p[3] < -1e-12)
        return rt_err_set(err, "a + b + c = %g exceeds 1 (d = 1 - a - b - c must not be negative)",
                          p[0] + p[1] + p[2]);
    const int64_t n = (int64_t)1 << scale;
    const int64_t edges = edge_factor * n;
    /* Peak: the edge triplets (24 B), a mirrored copy when symmetric, plus the CSR builds. */
    if (rt_memcheck_fits((double)edges * (symmetric ? 2.0 : 1.0) * 64.0, "the rmat graph", err) !=
        0)
        return -1;
    coo3 e = {0};
    if (coo3_alloc(&e, edges, err) != 0)
        return -1;
    rt_rng rng;
    rt_rng_seed(&rng, seed, 0);
    for (int64_t k = 0; k < edges; ++k) {
        int64_t r, c;
        rmat_edge(&rng, scale, p, noise, &r, &c);
        /* Symmetric graphs are built from the lower triangle first, so duplicates in either
         * direction merge into one value before mirroring and A = A^T holds bit for bit. */
        if (symmetric && c > r) {
            const int64_t t = r;
            r = c;
            c = t;
        }
        e.ri[k] = r;
        e.ci[k] = c;
        e.v[k] = rt_rng_symmetric(&rng);
    }
    rt_csr merged;
    const int rc = rt_csr_from_coo(&merged, n, n, edges, e.ri, e.ci, e.v, err);
    coo3_free(&e);
    if (rc != 0 || !symmetric) {
        if (rc == 0)
            *out = merged;
        return rc;
    }
    const int64_t mirrored = 2 * merged.nnz;
    coo3 m = {0};
    if (coo3_alloc(&m, mirrored, err) != 0) {
        rt_csr_free(&merged);
        return -1;
    }
    int64_t o = 0;
    for (int64_t r = 0; r < n; ++r) {
        for (int64_t k = merged.rowptr[r]; k < merged.rowptr[r + 1]; ++k) {
            m.ri[o] = r;
            m.ci[o] = merged.colidx[k];
            m.v[o] = merged.val[k];
            ++o;
            if (merged.colidx[k] != r) {
                m.ri[o] = merged.colidx[k];
                m.ci[o] = r;
                m.v[o] = merged.val[k];
                ++o;
            }
        }
    }
    rt_csr_free(&merged);
    const int rc2 = rt_csr_from_coo(out, n, n, o, m.ri, m.ci, m.v, err);
    coo3_free(&m);
    return rc2;
}

const rt_generator_desc rt_gen_rmat_desc = {
    .name = "rmat",
    .summary = "R-MAT power-law graph (Graph500 defaults a=0.57 b=0.19 c=0.19), 2^scale vertices",
    .args = rmat_args,
    .n_args = (int)(sizeof rmat_args / sizeof rmat_args[0]),
    .generate = rmat_generate,
    .derive = NULL,
};
