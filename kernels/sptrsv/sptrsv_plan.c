#include "sptrsv_plan.h"

#include <stdlib.h>
#include <string.h>

void sptrsv_plan_free(sptrsv_plan *p)
{
    if (!p)
        return;
    free(p->owner);
    free(p->tree_ptr);
    free(p->tree_rank);
    free(p->slot_off);
    free(p->win_bytes);
    free(p->recvs);
    free(p->sends);
    free(p->owned);
    memset(p, 0, sizeof *p);
}

int64_t sptrsv_plan_tree_pos(const sptrsv_plan *p, int64_t s, int rank)
{
    for (int64_t q = p->tree_ptr[s]; q < p->tree_ptr[s + 1]; ++q)
        if (p->tree_rank[q] == rank)
            return q - p->tree_ptr[s];
    return -1;
}

int sptrsv_plan_build(const sptrsv_factor *f, const sptrsv_dag *d, int nranks, int64_t nrhs,
                      sptrsv_plan *p, rt_err *err)
{
    memset(p, 0, sizeof *p);
    if (nranks < 1)
        return rt_err_set(err, "sptrsv plan: %d ranks", nranks);
    const int64_t ns = f->nsuper;
    p->nranks = nranks;
    p->nsuper = ns;
    p->nrhs = nrhs;
    p->owner = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *p->owner);
    p->tree_ptr = calloc((size_t)ns + 1, sizeof *p->tree_ptr);
    p->win_bytes = calloc((size_t)nranks, sizeof *p->win_bytes);
    p->recvs = calloc((size_t)nranks, sizeof *p->recvs);
    p->sends = calloc((size_t)nranks, sizeof *p->sends);
    p->owned = calloc((size_t)nranks, sizeof *p->owned);
    char *need = calloc((size_t)nranks, 1);
    if (!p->owner || !p->tree_ptr || !p->win_bytes || !p->recvs || !p->sends || !p->owned || !need)
        goto oom;
    for (int64_t s = 0; s < ns; ++s) {
        p->owner[s] = (int)(s % nranks);
        p->owned[p->owner[s]]++;
    }
    /* Two passes over the successors: count the participants, then list them. */
    for (int pass = 0; pass < 2; ++pass) {
        for (int64_t s = 0; s < ns; ++s) {
            memset(need, 0, (size_t)nranks);
            for (int64_t e = d->succ_ptr[s]; e < d->succ_ptr[s + 1]; ++e)
                need[p->owner[d->succ[e]]] = 1;
            const int root = p->owner[s];
            need[root] = 0;
            if (pass == 0) {
                int64_t k = 1;
                for (int r = 0; r < nranks; ++r)
                    k += need[r];
                p->tree_ptr[s + 1] = p->tree_ptr[s] + k;
                continue;
            }
            int64_t q = p->tree_ptr[s];
            p->tree_rank[q] = root;
            p->slot_off[q] = -1;
            ++q;
            const int64_t slot = 8 + 8 * sptrsv_ncols(f, s) * nrhs;
            for (int r = 0; r < nranks; ++r) {
                if (!need[r])
                    continue;
                p->tree_rank[q] = r;
                p->slot_off[q] = p->win_bytes[r];
                p->win_bytes[r] += slot;
                p->recvs[r]++;
                const int64_t pos = q - p->tree_ptr[s];
                p->sends[p->tree_rank[p->tree_ptr[s] + (pos - 1) / 2]]++;
                p->messages++;
                int depth = 0;
                for (int64_t x = pos; x > 0; x = (x - 1) / 2)
                    ++depth;
                if (depth > p->tree_depth)
                    p->tree_depth = depth;
                ++q;
            }
        }
        if (pass == 0) {
            const int64_t total = p->tree_ptr[ns];
            p->tree_rank = malloc((size_t)(total > 0 ? total : 1) * sizeof *p->tree_rank);
            p->slot_off = malloc((size_t)(total > 0 ? total : 1) * sizeof *p->slot_off);
            if (!p->tree_rank || !p->slot_off)
                goto oom;
        }
    }
    free(need);
    return 0;
oom:
    free(need);
    sptrsv_plan_free(p);
    return rt_err_set(err, "sptrsv plan: out of memory");
}
