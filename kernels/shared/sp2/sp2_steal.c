#include "sp2_steal.h"

#include <limits.h>
#include <stdlib.h>

#include <mpi.h>

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Task counters (and for random stealing, the candidate order); no communication. */
int sp2_steal_build(sp2_state *s, rt_err *err)
{
    const sp2_layout *L = &s->L;
    const int64_t ntiles_a = (int64_t)L->MT * L->KT;
    s->n_task_ids = (int64_t)L->MT * L->KT * L->NT;
    s->task_seen = calloc((size_t)s->n_task_ids, sizeof *s->task_seen);
    s->task_all = calloc((size_t)s->n_task_ids, sizeof *s->task_all);
    if (!s->task_seen || !s->task_all)
        return rt_err_set(err, "out of memory for %lld task counters", (long long)s->n_task_ids);
    int64_t nonempty = 0;
    for (int64_t t = 0; t < ntiles_a; ++t)
        nonempty += s->a_nnz[t] > 0;
    s->tasks_total = nonempty * L->NT;
    if (s->alg == SP2_ALG_WS_RANDOM) {
        /* My non-empty A tiles first (in order), then every other one in a seeded random order. */
        s->cand = malloc((size_t)ntiles_a * sizeof *s->cand);
        if (!s->cand)
            return rt_err_set(err, "out of memory for the stealing order");
        int64_t n = 0;
        for (int64_t t = 0; t < ntiles_a; ++t)
            if (s->a_nnz[t] > 0 &&
                sp2_owner(L, SP2_OWN_A, (int)(t / L->KT), (int)(t % L->KT)) == L->me)
                s->cand[n++] = (int)t;
        s->n_own_cand = n;
        for (int64_t t = 0; t < ntiles_a; ++t)
            if (s->a_nnz[t] > 0 &&
                sp2_owner(L, SP2_OWN_A, (int)(t / L->KT), (int)(t % L->KT)) != L->me)
                s->cand[n++] = (int)t;
        s->n_cand = n;
        uint64_t x = s->opt.steal_seed * 0x100000001B3ULL + (uint64_t)L->me;
        for (int64_t q = n - 1; q > s->n_own_cand; --q) {
            const int64_t span = q - s->n_own_cand + 1;
            const int64_t r = s->n_own_cand + (int64_t)(splitmix(&x) % (uint64_t)span);
            const int tmp = s->cand[q];
            s->cand[q] = s->cand[r];
            s->cand[r] = tmp;
        }
    }
    return 0;
}

/* The work grid: one counter per A tile (random) or per product (locality-aware), kept by the
 * owner of the A tile or of the C tile. Collective; failures are agreed on. */
int sp2_steal_create_grid(sp2_state *s, rt_err *err)
{
    const sp2_layout *L = &s->L;
    rt_comm *comm = s->comm;
    const int64_t n =
        s->alg == SP2_ALG_WS_RANDOM ? (int64_t)L->MT * L->KT : (int64_t)L->MT * L->NT * L->KT;
    int *owner = malloc((size_t)n * sizeof *owner);
    if (owner) {
        for (int64_t e = 0; e < n; ++e) {
            if (s->alg == SP2_ALG_WS_RANDOM)
                owner[e] = sp2_owner(L, SP2_OWN_A, (int)(e / L->KT), (int)(e % L->KT));
            else
                owner[e] =
                    sp2_owner(L, SP2_OWN_C, (int)(e / L->KT / L->NT), (int)((e / L->KT) % L->NT));
        }
    } else {
        rt_err_set(err, "out of memory for the work grid map");
    }
    if (sp2_agree(comm, owner != NULL, err) != 0) {
        free(owner);
        return -1;
    }
    const int rc = sp2_workgrid_create(comm, n, owner, &s->wg, err);
    free(owner);
    return rc == 0 ? 0 : -1;
}

/* The item source of work stealing: claims on the work grid, own work first. */
int sp2_steal_next(sp2_state *s, sp2_source *src, sp2_item *it, int *have, rt_err *err)
{
    const sp2_layout *L = &s->L;
    *have = 0;
    if (s->alg == SP2_ALG_WS_RANDOM) {
        /* 2D grid: the counter of A(i,k) hands out its column tiles in turn. */
        while (src->pos < s->n_cand) {
            const int t = s->cand[src->pos];
            const int i = t / L->KT, k = t % L->KT;
            int64_t got = 0;
            if (sp2_workgrid_claim(s->wg, t, &got, err) != 0)
                return -1;
            if (got < L->NT) {
                it->i = i;
                it->k = k;
                it->j = (int)((i + k + got) % L->NT); /* offset i + k, as stationary A */
                it->stolen = src->pos >= s->n_own_cand;
                *have = 1;
                return 0;
            }
            src->pos++;
        }
        return 0;
    }
    /* 3D grid: one counter per product; the first claimer (value 0) executes it. */
    for (;;) {
        int i = 0, j = 0, k = 0, stolen = 0, any = 0;
        if (src->phase == 0) { /* my C tiles */
            if (src->a >= s->n_c) {
                src->phase = 1;
                src->a = src->b = 0;
                continue;
            }
            const int ci = s->c_tiles[src->a];
            i = ci / L->NT;
            j = ci % L->NT;
            if (src->b >= L->KT) {
                src->a++;
                src->b = 0;
                continue;
            }
            k = (int)((i + j + src->b) % L->KT);
            src->b++;
            any = 1;
        } else if (src->phase == 1) { /* products that use my A tiles */
            if (src->a >= (int64_t)L->MT * L->KT) {
                src->phase = 2;
                src->a = src->b = 0;
                continue;
            }
            i = (int)(src->a / L->KT);
            k = (int)(src->a % L->KT);
            if (sp2_owner(L, SP2_OWN_A, i, k) != L->me || src->b >= L->NT) {
                src->a++;
                src->b = 0;
                continue;
            }
            j = (int)((i + k + src->b) % L->NT);
            src->b++;
            stolen = 1;
            any = sp2_owner(L, SP2_OWN_C, i, j) != L->me; /* my own C products were phase 0 */
        } else if (src->phase == 2) {                     /* products that use my B tiles */
            if (src->a >= (int64_t)L->KT * L->NT) {
                src->phase = 3;
                continue;
            }
            k = (int)(src->a / L->NT);
            j = (int)(src->a % L->NT);
            if (sp2_owner(L, SP2_OWN_B, k, j) != L->me || src->b >= L->MT) {
                src->a++;
                src->b = 0;
                continue;
            }
            i = (int)((k + j + src->b) % L->MT);
            src->b++;
            stolen = 1;
            any = sp2_owner(L, SP2_OWN_C, i, j) != L->me && sp2_owner(L, SP2_OWN_A, i, k) != L->me;
        } else {
            return 0;
        }
        if (!any || s->a_nnz[(int64_t)i * L->KT + k] == 0)
            continue;
        int64_t got = 0;
        if (sp2_workgrid_claim(s->wg, ((int64_t)i * L->NT + j) * L->KT + k, &got, err) != 0)
            return -1;
        if (got != 0)
            continue;
        it->i = i;
        it->j = j;
        it->k = k;
        it->stolen = stolen;
        *have = 1;
        return 0;
    }
}

/* Work stealing: every task ran exactly once, counted over all ranks (outside the timed part). */
int sp2_check_tasks(sp2_state *s, rt_err *err)
{
    const int64_t n = s->n_task_ids;
    if (n > INT_MAX)
        return rt_err_set(err, "%lld tasks are too many to check", (long long)n);
    const int rc = MPI_Allreduce(s->task_seen, s->task_all, (int)n, MPI_INT, MPI_SUM,
                                 rt_comm_mpi(s->comm, RT_COMM_WORLD));
    if (rc != MPI_SUCCESS)
        return rt_err_set(err, "MPI_Allreduce of the task counts failed (code %d)", rc);
    int64_t executed = 0;
    for (int64_t t = 0; t < n; ++t) {
        const int64_t j = t % s->L.NT, ik = t / s->L.NT;
        const int want = s->a_nnz[ik] > 0 ? 1 : 0;
        executed += s->task_all[t];
        if (s->task_all[t] != want)
            return rt_err_set(err,
                              "work stealing: task C(%lld,%lld) += A(%lld,%lld) B(%lld,%lld) "
                              "ran %d times (want %d)",
                              (long long)(ik / s->L.KT), (long long)j, (long long)(ik / s->L.KT),
                              (long long)(ik % s->L.KT), (long long)(ik % s->L.KT), (long long)j,
                              s->task_all[t], want);
    }
    if (executed != s->tasks_total)
        return rt_err_set(err, "work stealing: %lld tasks executed, %lld in the grid",
                          (long long)executed, (long long)s->tasks_total);
    return 0;
}
