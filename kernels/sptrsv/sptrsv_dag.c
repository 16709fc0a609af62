#include "sptrsv_dag.h"

#include <stdlib.h>
#include <string.h>

void sptrsv_dag_free(sptrsv_dag *d)
{
    if (!d)
        return;
    free(d->level_ptr);
    free(d->level_rows);
    free(d->col_super);
    free(d->succ_ptr);
    free(d->succ);
    free(d->succ_rbeg);
    free(d->succ_rend);
    free(d->pred_ptr);
    free(d->pred);
    free(d->super_level);
    memset(d, 0, sizeof *d);
}

static int scalar_levels(const rt_csr *l, sptrsv_dag *d, rt_err *err)
{
    const int64_t n = l->rows;
    int64_t *level = malloc((size_t)(n > 0 ? n : 1) * sizeof *level);
    if (!level)
        return rt_err_set(err, "sptrsv: out of memory for the level sets");
    int64_t nl = 0;
    for (int64_t i = 0; i < n; ++i) {
        int64_t lv = 0;
        for (int64_t e = l->rowptr[i]; e < l->rowptr[i + 1]; ++e) {
            const int64_t j = l->colidx[e];
            if (j < i && level[j] + 1 > lv)
                lv = level[j] + 1;
        }
        level[i] = lv;
        if (lv + 1 > nl)
            nl = lv + 1;
    }
    d->n_levels = nl;
    d->level_ptr = calloc((size_t)nl + 1, sizeof *d->level_ptr);
    d->level_rows = malloc((size_t)(n > 0 ? n : 1) * sizeof *d->level_rows);
    if (!d->level_ptr || !d->level_rows) {
        free(level);
        return rt_err_set(err, "sptrsv: out of memory for the level sets");
    }
    for (int64_t i = 0; i < n; ++i)
        d->level_ptr[level[i] + 1]++;
    for (int64_t k = 0; k < nl; ++k) {
        if (d->level_ptr[k + 1] > d->max_level_width)
            d->max_level_width = d->level_ptr[k + 1];
        d->level_ptr[k + 1] += d->level_ptr[k];
    }
    int64_t *next = calloc((size_t)nl + 1, sizeof *next);
    if (!next) {
        free(level);
        return rt_err_set(err, "sptrsv: out of memory for the level sets");
    }
    memcpy(next, d->level_ptr, (size_t)nl * sizeof *next);
    for (int64_t i = 0; i < n; ++i)
        d->level_rows[next[level[i]]++] = (int32_t)i;
    free(next);
    free(level);
    return 0;
}

/* Successors of s: the distinct supernodes of the rows below its diagonal block. Rows are
 * ascending, so their supernodes are too, and duplicates are neighbours. */
static int64_t for_each_succ(const sptrsv_factor *f, const int64_t *cs, int64_t s, int64_t *out,
                             int64_t *rbeg, int64_t *rend)
{
    int64_t n = 0, prev = -1;
    for (int64_t p = f->rowstart[s] + sptrsv_ncols(f, s); p < f->rowstart[s + 1]; ++p) {
        const int64_t t = cs[f->rows[p]];
        if (t != prev) {
            if (out) {
                out[n] = t;
                rbeg[n] = p;
                if (n > 0)
                    rend[n - 1] = p;
            }
            ++n;
            prev = t;
        }
    }
    if (out && n > 0)
        rend[n - 1] = f->rowstart[s + 1];
    return n;
}

int sptrsv_dag_build(const sptrsv_factor *f, sptrsv_dag *d, rt_err *err)
{
    memset(d, 0, sizeof *d);
    d->n = f->n;
    d->nsuper = f->nsuper;
    const int64_t ns = f->nsuper;
    if (scalar_levels(&f->csr, d, err) != 0 || sptrsv_factor_col_super(f, &d->col_super, err) != 0)
        goto fail;
    d->succ_ptr = calloc((size_t)ns + 1, sizeof *d->succ_ptr);
    d->pred_ptr = calloc((size_t)ns + 1, sizeof *d->pred_ptr);
    d->super_level = calloc((size_t)(ns > 0 ? ns : 1), sizeof *d->super_level);
    if (!d->succ_ptr || !d->pred_ptr || !d->super_level)
        goto oom;
    for (int64_t s = 0; s < ns; ++s)
        d->succ_ptr[s + 1] = d->succ_ptr[s] + for_each_succ(f, d->col_super, s, NULL, NULL, NULL);
    d->n_edges = d->succ_ptr[ns];
    d->succ = malloc((size_t)(d->n_edges > 0 ? d->n_edges : 1) * sizeof *d->succ);
    d->pred = malloc((size_t)(d->n_edges > 0 ? d->n_edges : 1) * sizeof *d->pred);
    d->succ_rbeg = malloc((size_t)(d->n_edges > 0 ? d->n_edges : 1) * sizeof *d->succ_rbeg);
    d->succ_rend = malloc((size_t)(d->n_edges > 0 ? d->n_edges : 1) * sizeof *d->succ_rend);
    if (!d->succ || !d->pred || !d->succ_rbeg || !d->succ_rend)
        goto oom;
    for (int64_t s = 0; s < ns; ++s)
        for_each_succ(f, d->col_super, s, d->succ + d->succ_ptr[s], d->succ_rbeg + d->succ_ptr[s],
                      d->succ_rend + d->succ_ptr[s]);
    for (int64_t e = 0; e < d->n_edges; ++e)
        d->pred_ptr[d->succ[e] + 1]++;
    for (int64_t s = 0; s < ns; ++s)
        d->pred_ptr[s + 1] += d->pred_ptr[s];
    {
        int64_t *next = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *next);
        if (!next)
            goto oom;
        memcpy(next, d->pred_ptr, (size_t)ns * sizeof *next);
        for (int64_t s = 0; s < ns; ++s)
            for (int64_t e = d->succ_ptr[s]; e < d->succ_ptr[s + 1]; ++e)
                d->pred[next[d->succ[e]]++] = s;
        free(next);
    }
    /* Predecessors have smaller indices, so one ascending sweep settles every level. */
    for (int64_t s = 0; s < ns; ++s) {
        int64_t lv = 0;
        for (int64_t e = d->pred_ptr[s]; e < d->pred_ptr[s + 1]; ++e)
            if (d->super_level[d->pred[e]] + 1 > lv)
                lv = d->super_level[d->pred[e]] + 1;
        d->super_level[s] = lv;
        if (lv + 1 > d->super_levels)
            d->super_levels = lv + 1;
    }
    return 0;
oom:
    rt_err_set(err, "sptrsv: out of memory for the supernodal DAG");
fail:
    sptrsv_dag_free(d);
    return -1;
}
