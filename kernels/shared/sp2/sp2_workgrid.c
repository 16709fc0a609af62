#include "sp2_workgrid.h"

#include <stdlib.h>
#include <string.h>

struct sp2_workgrid {
    rt_rma_win *win;
    int64_t n;
    int *owner;
    int64_t *offset; /* byte offset of each element in its owner's window */
};

int sp2_workgrid_create(rt_comm *comm, int64_t n, const int *owner, sp2_workgrid **out, rt_err *err)
{
    *out = NULL;
    const int P = rt_comm_world_size(comm), me = rt_comm_world_rank(comm);
    sp2_workgrid *g = calloc(1, sizeof *g);
    int64_t *next = calloc((size_t)P, sizeof *next);
    int ok = g && next && n >= 0;
    if (ok) {
        g->n = n;
        g->owner = malloc((size_t)(n > 0 ? n : 1) * sizeof *g->owner);
        g->offset = malloc((size_t)(n > 0 ? n : 1) * sizeof *g->offset);
        ok = g->owner && g->offset;
    }
    for (int64_t e = 0; ok && e < n; ++e) {
        if (owner[e] < 0 || owner[e] >= P) {
            ok = 0;
            rt_err_set(err, "work grid: element %lld has owner %d, not a rank of %d", (long long)e,
                       owner[e], P);
            break;
        }
        g->owner[e] = owner[e];
        g->offset[e] = 8 * next[owner[e]]++;
    }
    const int64_t mine = ok ? next[me] : 0;
    free(next);
    int all_ok = 0, first = -1;
    if (rt_comm_all_ok(comm, ok, &all_ok, &first) != 0 || !all_ok) {
        if (g) {
            free(g->owner);
            free(g->offset);
        }
        free(g);
        return ok ? rt_err_set(err, "work grid: rank %d could not build its map", first)
                  : rt_err_prefix(err, "rank %d", me);
    }
    if (rt_rma_win_create(comm, RT_COMM_WORLD, (size_t)(8 * mine), "work grid", &g->win, err) !=
        0) {
        free(g->owner);
        free(g->offset);
        free(g);
        return -1;
    }
    *out = g;
    return 0;
}

void sp2_workgrid_free(sp2_workgrid *g)
{
    if (!g)
        return;
    rt_rma_win_free(g->win);
    free(g->owner);
    free(g->offset);
    free(g);
}

int sp2_workgrid_reset(sp2_workgrid *g, rt_err *err)
{
    void *base = rt_rma_local(g->win);
    if (base)
        memset(base, 0, rt_rma_local_bytes(g->win));
    return rt_rma_sync(g->win, err);
}

int sp2_workgrid_claim(sp2_workgrid *g, int64_t e, int64_t *old, rt_err *err)
{
    if (e < 0 || e >= g->n)
        return rt_err_set(err, "work grid: element %lld is outside the %lld-element grid",
                          (long long)e, (long long)g->n);
    return rt_rma_fetch_add(g->win, g->owner[e], (size_t)g->offset[e], 1, old, err);
}

int sp2_workgrid_owner(const sp2_workgrid *g, int64_t e)
{
    return (e >= 0 && e < g->n) ? g->owner[e] : -1;
}

int64_t sp2_workgrid_size(const sp2_workgrid *g)
{
    return g->n;
}
