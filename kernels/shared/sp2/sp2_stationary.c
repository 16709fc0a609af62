#include "sp2_stationary.h"

#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"
#include "sp2_multiply.h"
#include "sp2_steal.h"

static int64_t task_id(const sp2_layout *L, int i, int j, int k)
{
    return ((int64_t)i * L->KT + k) * L->NT + j;
}

/* The static work lists of stationary A, B and C, with the paper's iteration offsets: counted on
 * the first pass, filled on the second. */
int sp2_stationary_build_items(sp2_state *s, rt_err *err)
{
    const sp2_layout *L = &s->L;
    int64_t n = 0;
    for (int pass = 0; pass < 2; ++pass) {
        n = 0;
        if (s->alg == SP2_ALG_SC) { /* k from i + j */
            for (int q = 0; q < s->n_c; ++q) {
                const int i = s->c_tiles[q] / L->NT, j = s->c_tiles[q] % L->NT;
                for (int kk = 0; kk < L->KT; ++kk) {
                    const int k = (i + j + kk) % L->KT;
                    if (s->a_nnz[(int64_t)i * L->KT + k] == 0)
                        continue;
                    if (pass)
                        s->items[n] = (sp2_item){i, j, k, 0};
                    ++n;
                }
            }
        } else if (s->alg == SP2_ALG_SA) { /* j from i + k */
            for (int i = 0; i < L->MT; ++i)
                for (int k = 0; k < L->KT; ++k) {
                    if (sp2_owner(L, SP2_OWN_A, i, k) != L->me ||
                        s->a_nnz[(int64_t)i * L->KT + k] == 0)
                        continue;
                    for (int jj = 0; jj < L->NT; ++jj) {
                        if (pass)
                            s->items[n] = (sp2_item){i, (i + k + jj) % L->NT, k, 0};
                        ++n;
                    }
                }
        } else { /* i from k + j */
            for (int k = 0; k < L->KT; ++k)
                for (int j = 0; j < L->NT; ++j) {
                    if (sp2_owner(L, SP2_OWN_B, k, j) != L->me)
                        continue;
                    for (int ii = 0; ii < L->MT; ++ii) {
                        const int i = (k + j + ii) % L->MT;
                        if (s->a_nnz[(int64_t)i * L->KT + k] == 0)
                            continue;
                        if (pass)
                            s->items[n] = (sp2_item){i, j, k, 0};
                        ++n;
                    }
                }
        }
        if (!pass) {
            s->items = malloc((size_t)(n > 0 ? n : 1) * sizeof *s->items);
            if (!s->items)
                return rt_err_set(err, "out of memory for %lld work items", (long long)n);
        }
    }
    s->n_items = n;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Where the work comes from: a static list (stationary A, B, C) or claims on a work grid. */

/* Fills *it with the next product this rank executes; *have = 0 when there is none left. */
static int next_item(sp2_state *s, sp2_source *src, sp2_item *it, int *have, rt_err *err)
{
    *have = 0;
    if (!sp2_is_ws(s->alg)) {
        if (src->pos < s->n_items) {
            *it = s->items[src->pos++];
            *have = 1;
        }
        return 0;
    }
    return sp2_steal_next(s, src, it, have, err);
}

/* Starts fetching the tiles of `it` into buffer set q (local tiles are used in place). */
static int issue(sp2_state *s, int q, const sp2_item *it, rt_err *err)
{
    sp2_slot *sl = &s->slots[q];
    sl->it = *it;
    sl->live = 1;
    sl->fa.n = sl->fb.n = 0;
    sl->ablk = sp2_dmat_local_block(&s->A, it->i, it->k);
    if (!sl->ablk) {
        if (sp2_dmat_fetch(&s->A, it->i, it->k, s->stage_a[q], &sl->fa, err) != 0)
            return -1;
        sl->ablk = s->stage_a[q];
    }
    sl->bblk = sp2_dmat_local_block(&s->B, it->k, it->j);
    if (!sl->bblk) {
        if (sp2_dmat_fetch(&s->B, it->k, it->j, s->stage_b[q], &sl->fb, err) != 0)
            return -1;
        sl->bblk = s->stage_b[q];
    }
    return 0;
}

static void abandon(sp2_state *s)
{
    rt_err ignored;
    for (int q = 0; q < 2; ++q) {
        sp2_fetch_wait(&s->slots[q].fa, &ignored);
        sp2_fetch_wait(&s->slots[q].fb, &ignored);
        s->slots[q].live = 0;
    }
}

static int complete(sp2_state *s, int q, rt_err *err)
{
    sp2_slot *sl = &s->slots[q];
    const double t0 = rt_clock_now();
    const int rc = sp2_fetch_wait(&sl->fa, err) == 0 && sp2_fetch_wait(&sl->fb, err) == 0;
    s->run.comm += rt_clock_now() - t0;
    sl->live = 0;
    if (!rc)
        return -1;
    if (sp2_multiply(s, &sl->it, sl->ablk, sl->bblk, err) != 0)
        return -1;
    if (sp2_is_ws(s->alg)) {
        s->task_seen[task_id(&s->L, sl->it.i, sl->it.j, sl->it.k)]++;
        s->tasks_exec++;
        s->tasks_stolen += sl->it.stolen;
    }
    return 0;
}

static int poll_queue(sp2_state *s, rt_err *err)
{
    if (!s->queue)
        return 0;
    const double t0 = rt_clock_now(), h0 = sp2_handler_time(s);
    const int rc = sp2_queue_poll(s->queue, NULL, err);
    const double h = sp2_handler_time(s) - h0;
    s->run.comm += rt_clock_now() - t0 - h;
    s->run.accum += h;
    return rc;
}

/* The item loop of the RDMA variants, with prefetch of the next item's tiles when enabled. */
int sp2_rdma_loop(sp2_state *s, rt_err *err)
{
    sp2_source src;
    memset(&src, 0, sizeof src);
    sp2_item it, nit;
    int have = 0, have_next = 0, cur = 0;
    double t0 = rt_clock_now();
    if (next_item(s, &src, &it, &have, err) != 0 || (have && issue(s, cur, &it, err) != 0))
        goto fail;
    s->run.comm += rt_clock_now() - t0;
    while (have) {
        if (s->opt.prefetch) {
            t0 = rt_clock_now();
            if (next_item(s, &src, &nit, &have_next, err) != 0 ||
                (have_next && issue(s, 1 - cur, &nit, err) != 0))
                goto fail;
            s->run.comm += rt_clock_now() - t0;
        }
        if (complete(s, cur, err) != 0 || poll_queue(s, err) != 0)
            goto fail;
        if (s->opt.prefetch) {
            have = have_next;
            cur = 1 - cur;
        } else {
            t0 = rt_clock_now();
            if (next_item(s, &src, &it, &have, err) != 0 || (have && issue(s, cur, &it, err) != 0))
                goto fail;
            s->run.comm += rt_clock_now() - t0;
        }
    }
    return 0;
fail:
    abandon(s);
    return -1;
}
