#include "sptrsv_model.h"

#include <stdlib.h>
#include <string.h>

#include "sptrsv_block.h"

double sptrsv_model_row_bytes(int64_t row_nnz, int64_t nrhs)
{
    /* values and column indices, the row pointer, x of every column read, b read, x written */
    return 12.0 * (double)row_nnz + 8.0 + 8.0 * (double)nrhs * ((double)row_nnz + 1.0);
}

void sptrsv_model_levelset(const sptrsv_factor *f, const sptrsv_dag *d, int64_t nrhs,
                           int64_t workers, const sptrsv_costs *c, sptrsv_prediction *out)
{
    memset(out, 0, sizeof *out);
    const rt_csr *l = &f->csr;
    for (int64_t k = 0; k < d->n_levels; ++k) {
        double bytes = 0.0;
        for (int64_t q = d->level_ptr[k]; q < d->level_ptr[k + 1]; ++q) {
            const int64_t i = d->level_rows[q];
            bytes += sptrsv_model_row_bytes(l->rowptr[i + 1] - l->rowptr[i], nrhs);
        }
        const int64_t rows = d->level_ptr[k + 1] - d->level_ptr[k];
        const double units = (double)(rows < workers ? rows : workers);
        double bw = c->unit_bps * units;
        if (bw > c->peak_bps)
            bw = c->peak_bps;
        out->time_s += c->sync_s + bytes / bw;
        out->path_compute_s += bytes / bw;
    }
    out->path_tasks = d->n_levels;
}

void sptrsv_model_syncfree(const sptrsv_factor *f, const sptrsv_dag *d, int64_t nrhs,
                           const sptrsv_costs *c, sptrsv_prediction *out)
{
    memset(out, 0, sizeof *out);
    const int64_t ns = f->nsuper;
    double *fin = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *fin);
    int64_t *len = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *len);
    if (!fin || !len) {
        free(fin);
        free(len);
        out->time_s = -1.0;
        return;
    }
    double total = 0.0, span = 0.0;
    int64_t span_len = 0;
    for (int64_t s = 0; s < ns; ++s) {
        const double bytes = sptrsv_block_bytes(f, s, nrhs);
        total += bytes;
        double start = 0.0;
        int64_t l = 0;
        for (int64_t e = d->pred_ptr[s]; e < d->pred_ptr[s + 1]; ++e)
            if (fin[d->pred[e]] > start || (fin[d->pred[e]] == start && len[d->pred[e]] > l)) {
                start = fin[d->pred[e]];
                l = len[d->pred[e]];
            }
        fin[s] = start + c->task_s + bytes / c->unit_bps;
        len[s] = l + 1;
        if (fin[s] > span) {
            span = fin[s];
            span_len = len[s];
        }
    }
    const double work = total / c->peak_bps;
    out->time_s = c->sync_s + (span > work ? span : work);
    out->path_compute_s = span;
    out->path_tasks = span_len;
    free(fin);
    free(len);
}

/* A binary min-heap of (time, task). */
typedef struct heap {
    int64_t n;
    double *t;
    int64_t *s;
} heap;

static void heap_push(heap *h, double t, int64_t s)
{
    int64_t i = h->n++;
    while (i > 0) {
        const int64_t up = (i - 1) / 2;
        if (h->t[up] < t || (h->t[up] == t && h->s[up] < s))
            break;
        h->t[i] = h->t[up];
        h->s[i] = h->s[up];
        i = up;
    }
    h->t[i] = t;
    h->s[i] = s;
}

static int64_t heap_pop(heap *h)
{
    const int64_t top = h->s[0];
    const double lt = h->t[--h->n];
    const int64_t ls = h->s[h->n];
    int64_t i = 0;
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n &&
            (h->t[c + 1] < h->t[c] || (h->t[c + 1] == h->t[c] && h->s[c + 1] < h->s[c])))
            ++c;
        if (lt < h->t[c] || (lt == h->t[c] && ls < h->s[c]))
            break;
        h->t[i] = h->t[c];
        h->s[i] = h->s[c];
        i = c;
    }
    h->t[i] = lt;
    h->s[i] = ls;
    return top;
}

int sptrsv_model_distributed(const sptrsv_factor *f, const sptrsv_dag *d, const sptrsv_plan *p,
                             const int *tier, const sptrsv_costs *c, sptrsv_prediction *out,
                             rt_err *err)
{
    memset(out, 0, sizeof *out);
    const int64_t ns = f->nsuper, nt = p->tree_ptr[ns];
    const int P = p->nranks;
    double *arrive = malloc((size_t)(nt > 0 ? nt : 1) * sizeof *arrive);
    int64_t *hops = malloc((size_t)(nt > 0 ? nt : 1) * sizeof *hops);
    double *ready = calloc((size_t)(ns > 0 ? ns : 1), sizeof *ready);
    double *fin = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *fin);
    double *cost = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *cost);
    int64_t *waits_on = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *waits_on); /* -1: nothing */
    int64_t *waits_hops = calloc((size_t)(ns > 0 ? ns : 1), sizeof *waits_hops);
    int64_t *left = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *left);
    double *free_at = calloc((size_t)P, sizeof *free_at);
    int64_t *last_on = malloc((size_t)P * sizeof *last_on);
    heap h = {0, malloc((size_t)(ns > 0 ? ns : 1) * sizeof(double)),
              malloc((size_t)(ns > 0 ? ns : 1) * sizeof(int64_t))};
    int rc = 0;
    if (!arrive || !hops || !ready || !fin || !cost || !waits_on || !waits_hops || !left ||
        !free_at || !last_on || !h.t || !h.s) {
        rc = rt_err_set(err, "sptrsv model: out of memory");
        goto done;
    }
    for (int r = 0; r < P; ++r)
        last_on[r] = -1;
    /* by_rank[s]: the task that ran before s on its rank, or -1 */
    for (int64_t s = 0; s < ns; ++s) {
        left[s] = d->pred_ptr[s + 1] - d->pred_ptr[s];
        waits_on[s] = -1;
        if (left[s] == 0)
            heap_push(&h, 0.0, s);
    }
    int64_t *before = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *before);
    int *wait_kind =
        calloc((size_t)(ns > 0 ? ns : 1), sizeof *wait_kind); /* 0 none 1 input 2 rank */
    if (!before || !wait_kind) {
        free(before);
        free(wait_kind);
        rc = rt_err_set(err, "sptrsv model: out of memory");
        goto done;
    }
    int64_t last = -1;
    while (h.n > 0) {
        const int64_t s = heap_pop(&h);
        const int r = p->owner[s];
        cost[s] = c->task_s + sptrsv_block_bytes(f, s, p->nrhs) / c->unit_bps;
        double start = ready[s];
        wait_kind[s] = waits_on[s] >= 0 ? 1 : 0;
        if (free_at[r] > start) {
            start = free_at[r];
            wait_kind[s] = 2;
        }
        before[s] = last_on[r];
        fin[s] = start + cost[s];
        free_at[r] = fin[s];
        last_on[r] = s;
        if (last < 0 || fin[s] > fin[last])
            last = s;
        /* Broadcast x_s down its tree: parents come before children in position order. */
        const int64_t t0 = p->tree_ptr[s], tn = p->tree_ptr[s + 1] - t0;
        arrive[t0] = fin[s];
        hops[t0] = 0;
        const double bytes = 8.0 * (double)(sptrsv_ncols(f, s) * p->nrhs) + 8.0;
        for (int64_t q = 1; q < tn; ++q) {
            const int64_t par = t0 + (q - 1) / 2;
            const int tr = tier[p->tree_rank[par] * P + p->tree_rank[t0 + q]];
            arrive[t0 + q] = arrive[par] + c->lat_s[tr] + bytes / c->bw_bps[tr];
            hops[t0 + q] = hops[par] + 1;
        }
        for (int64_t e = d->succ_ptr[s]; e < d->succ_ptr[s + 1]; ++e) {
            const int64_t u = d->succ[e];
            const int64_t q = sptrsv_plan_tree_pos(p, s, p->owner[u]);
            if (q < 0) {
                rc = rt_err_set(err,
                                "sptrsv model: rank %d needs x of supernode %lld but is not "
                                "in its tree (a plan bug)",
                                p->owner[u], (long long)s);
                goto done2;
            }
            if (waits_on[u] < 0 || arrive[t0 + q] > ready[u]) {
                ready[u] = arrive[t0 + q];
                waits_on[u] = s;
                waits_hops[u] = hops[t0 + q];
            }
            if (--left[u] == 0)
                heap_push(&h, ready[u], u);
        }
    }
    out->time_s = last >= 0 ? fin[last] : 0.0;
    for (int64_t s = last; s >= 0;) {
        out->path_tasks++;
        out->path_compute_s += cost[s];
        if (wait_kind[s] == 1) {
            out->path_messages += waits_hops[s];
            s = waits_on[s];
        } else if (wait_kind[s] == 2) {
            s = before[s];
        } else {
            break;
        }
    }
    out->path_comm_s = out->time_s - out->path_compute_s;
    if (out->path_comm_s < 0.0)
        out->path_comm_s = 0.0;
done2:
    free(before);
    free(wait_kind);
done:
    free(arrive);
    free(hops);
    free(ready);
    free(fin);
    free(cost);
    free(waits_on);
    free(waits_hops);
    free(left);
    free(free_at);
    free(last_on);
    free(h.t);
    free(h.s);
    return rc;
}
