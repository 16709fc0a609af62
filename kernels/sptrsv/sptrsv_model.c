#include "sptrsv_model.h"

#include <stdlib.h>
#include <string.h>

#include "sptrsv_block.h"
#include "sptrsv_pplan.h"

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

/* ---- the persistent solve ------------------------------------------------------------------ */

typedef struct psim {
    const sptrsv_factor *f;
    const sptrsv_pplan *p;
    const int *tier;
    const sptrsv_costs *c;
    double *diag_end, *chunk_end; /* when each step finished */
    double *red_ready;            /* parts x nsuper: a part's partial sums of s have left it */
    int64_t *red_task;            /* parts x nsuper: the task that sent them */
    double *task_end;
    int64_t *why;    /* task: the task whose end set its start, -1 none */
    int *why_remote; /* 1: across a link */
} psim;

static double hop(const psim *m, int from, int to, double bytes)
{
    if (from == to)
        return m->c->sync_s;
    const int t = m->tier[from * m->p->o.parts + to];
    return m->c->lat_s[t] + (m->c->bw_bps[t] > 0.0 ? bytes / m->c->bw_bps[t] : 0.0);
}

/* When task t's waits are met; *who: the task that met the last one (-1: none). */
static double ready_at(psim *m, int64_t t, int64_t *who, int *remote)
{
    const sptrsv_pplan *p = m->p;
    const int g = p->task_part[t];
    const int64_t ns = p->nsuper, k = p->o.nrhs;
    double ready = 0.0;
    *who = -1;
    *remote = 0;
    for (int64_t w = p->task_wait_ptr[t]; w < p->task_wait_ptr[t + 1]; ++w) {
        const int64_t code = p->task_wait[w];
        const int64_t s = code >= 0 ? code : -1 - code;
        const double bytes = 8.0 * (double)(sptrsv_ncols(m->f, s) * k) + 8.0;
        if (code >= 0) {
            const double at = m->diag_end[s] + hop(m, p->home[s], g, bytes);
            if (at > ready) {
                ready = at;
                *who = p->diag_task[s];
                *remote = p->home[s] != g;
            }
            continue;
        }
        /* the owner's counter: its own chunks' signals and the other parts' reductions */
        for (int h = 0; h < p->o.parts; ++h) {
            if (p->target[(int64_t)h * ns + s] == 0)
                continue;
            const double at = h == g ? m->red_ready[(int64_t)h * ns + s] + m->c->sync_s
                                     : m->red_ready[(int64_t)h * ns + s] + hop(m, h, g, bytes);
            if (at > ready) {
                ready = at;
                *who = m->red_task[(int64_t)h * ns + s];
                *remote = h != g;
            }
        }
    }
    return ready;
}

int sptrsv_model_persistent(const sptrsv_factor *f, const sptrsv_pplan *p, const int *tier,
                            int workers, const sptrsv_costs *c, sptrsv_prediction *out, rt_err *err)
{
    memset(out, 0, sizeof *out);
    const int P = p->o.parts;
    const int64_t ns = p->nsuper, nt = p->ntasks;
    if (workers < 1 || !(c->unit_bps > 0.0) || !(c->peak_bps > 0.0))
        return rt_err_set(err, "sptrsv model: %d workers, unit %g B/s, peak %g B/s", workers,
                          c->unit_bps, c->peak_bps);
    psim m = {f, p, tier, c, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    int64_t *order = malloc((size_t)(nt > 0 ? nt : 1) * sizeof *order);
    int64_t *red_task = malloc((size_t)P * (size_t)(ns > 0 ? ns : 1) * sizeof *red_task);
    m.red_task = red_task;
    double *cost = calloc((size_t)(nt > 0 ? nt : 1), sizeof *cost);
    double *free_at = calloc((size_t)P * (size_t)workers, sizeof *free_at);
    int64_t *last_on = malloc((size_t)P * (size_t)workers * sizeof *last_on);
    m.diag_end = calloc((size_t)(ns > 0 ? ns : 1), sizeof *m.diag_end);
    m.chunk_end = calloc((size_t)(p->nchunks > 0 ? p->nchunks : 1), sizeof *m.chunk_end);
    m.red_ready = calloc((size_t)P * (size_t)(ns > 0 ? ns : 1), sizeof *m.red_ready);
    m.task_end = calloc((size_t)(nt > 0 ? nt : 1), sizeof *m.task_end);
    m.why = malloc((size_t)(nt > 0 ? nt : 1) * sizeof *m.why);
    m.why_remote = calloc((size_t)(nt > 0 ? nt : 1), sizeof *m.why_remote);
    int rc = 0;
    if (!order || !red_task || !cost || !free_at || !last_on || !m.diag_end || !m.chunk_end ||
        !m.red_ready || !m.task_end || !m.why || !m.why_remote) {
        rc = rt_err_set(err, "sptrsv model: out of memory");
        goto done;
    }
    for (int64_t i = 0; i < (int64_t)P * workers; ++i)
        last_on[i] = -1;
    for (int64_t i = 0; i < (int64_t)P * ns; ++i)
        red_task[i] = -1;
    /* Every part's tickets in order, merged by key: the plan's keys are a topological order. */
    {
        int64_t *pos = malloc((size_t)P * sizeof *pos);
        if (!pos) {
            rc = rt_err_set(err, "sptrsv model: out of memory");
            goto done;
        }
        for (int g = 0; g < P; ++g)
            pos[g] = p->ticket_ptr[g];
        for (int64_t i = 0; i < nt; ++i) {
            int best = -1;
            for (int g = 0; g < P; ++g) {
                if (pos[g] >= p->ticket_ptr[g + 1])
                    continue;
                const int64_t t = p->ticket[pos[g]];
                if (best < 0 || p->task_key[t] < p->task_key[p->ticket[pos[best]]] ||
                    (p->task_key[t] == p->task_key[p->ticket[pos[best]]] &&
                     t < p->ticket[pos[best]]))
                    best = g;
            }
            order[i] = p->ticket[pos[best]++];
        }
        free(pos);
    }
    int64_t last = -1;
    for (int64_t i = 0; i < nt; ++i) {
        const int64_t t = order[i];
        const int g = p->task_part[t];
        double *fa = free_at + (int64_t)g * workers;
        int wk = 0;
        for (int w = 1; w < workers; ++w)
            if (fa[w] < fa[wk])
                wk = w;
        int64_t who = -1;
        int remote = 0;
        double start = ready_at(&m, t, &who, &remote);
        if (fa[wk] > start) {
            start = fa[wk];
            who = last_on[(int64_t)g * workers + wk];
            remote = 0;
        }
        m.why[t] = who;
        m.why_remote[t] = remote;
        int busy = 1;
        for (int w = 0; w < workers; ++w)
            busy += w != wk && fa[w] > start;
        double bw = c->peak_bps / busy;
        if (bw > c->unit_bps)
            bw = c->unit_bps;
        double clock = start + c->task_s;
        cost[t] = c->task_s;
        for (int64_t q = p->task_step_ptr[t]; q < p->task_step_ptr[t + 1]; ++q) {
            const int64_t code = p->task_step[q];
            const double dt = c->step_s + sptrsv_pplan_step_bytes(f, p, code) / bw;
            clock += dt;
            cost[t] += dt;
            if (code >= 0) {
                m.diag_end[code] = clock;
                continue;
            }
            const int64_t ch = SPTRSV_PSTEP_ID(code);
            m.chunk_end[ch] = clock;
            for (int64_t o = p->ch_out_ptr[ch]; o < p->ch_out_ptr[ch + 1]; ++o) {
                const int64_t at = (int64_t)g * ns + p->ch_out[o];
                if (clock >= m.red_ready[at]) {
                    m.red_ready[at] = clock;
                    red_task[at] = t;
                }
            }
        }
        m.task_end[t] = clock;
        fa[wk] = clock;
        last_on[(int64_t)g * workers + wk] = t;
        if (last < 0 || clock > m.task_end[last])
            last = t;
    }
    out->schedule_s = last >= 0 ? m.task_end[last] : 0.0;
    for (int g = 0; g < P; ++g)
        if (p->bytes_of[g] / c->peak_bps > out->floor_s)
            out->floor_s = p->bytes_of[g] / c->peak_bps;
    out->time_s = out->schedule_s > out->floor_s ? out->schedule_s : out->floor_s;
    /* The critical path, back from the last task through whatever set each start. */
    for (int64_t t = last, steps = 0; t >= 0 && steps <= nt; t = m.why[t], ++steps) {
        out->path_tasks++;
        out->path_compute_s += cost[t];
        out->path_messages += m.why_remote[t];
    }
    out->path_comm_s = out->schedule_s - out->path_compute_s;
    if (out->path_comm_s < 0.0)
        out->path_comm_s = 0.0;
done:
    free(order);
    free(red_task);
    free(cost);
    free(free_at);
    free(last_on);
    free(m.diag_end);
    free(m.chunk_end);
    free(m.red_ready);
    free(m.task_end);
    free(m.why);
    free(m.why_remote);
    return rc;
}
