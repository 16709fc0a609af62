/* sptrsv_dist_engine with a transport of its own (the hooks `transport: ipc` uses on the GPU),
 * under mpirun, on the CPU: the transport here delivers x_s as CUDA IPC does, into the receiver's
 * copy of X at x_s's own rows, and counts arrivals in an array indexed by the engine's slot
 * numbers, both in MPI-3 RMA windows of the test's own. It checks what the GPU path relies on:
 *   - a sender's slot index for each message is the receiver's (a mismatch leaves a counter
 *     short: the poll times out naming the supernode, or the solution is wrong);
 *   - the solution equals the family reference, in three executions, 1 and 3 right-hand sides;
 *   - every rank receives exactly its expected messages once per execution, none pending, and
 *     the ranks' sends add up to the plan's total;
 *   - duplicated messages (each rank's hook sends its first message twice in the last execution)
 *     are caught by the engine's accounting, which names them.
 * Usage: mpirun -np N test_sptrsv_transport RANKS_PER_NODE */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "rt_comm.h"
#include "rt_comm_rma.h"
#include "rt_generators.h"
#include "sptrsv_block.h"
#include "sptrsv_dist_engine.h"
#include "sptrsv_family.h"
#include "rt_test_mpi.h"
#include "sptrsv_test_world.h"

#define CHECK RT_MPI_CHECK_MSG

typedef struct test_ctx {
    const rt_sptrsv_inputs *in;
    sptrsv_dist *engine;
    rt_rma_win *xdev;     /* stands for the device X: my rows and those delivered to me */
    rt_rma_win *counters; /* one int64 per receive slot */
    double *lsum;
    int duplicate; /* send the first message of this rank twice */
    int64_t sends;
} test_ctx;

static int t_send(void *ctx, int64_t j, int dst, int64_t slot, rt_err *err)
{
    test_ctx *t = ctx;
    const int64_t k = t->in->nrhs;
    const int64_t first = t->in->f.first[j];
    const double *x = (const double *)rt_rma_local(t->xdev) + first * k;
    const size_t bytes = (size_t)(sptrsv_ncols(&t->in->f, j) * k) * sizeof(double);
    const int times = t->duplicate && t->sends == 0 ? 2 : 1;
    ++t->sends;
    for (int i = 0; i < times; ++i) {
        int64_t old = 0;
        if (rt_rma_put(t->xdev, x, bytes, dst, (size_t)(first * k) * sizeof(double), err) != 0 ||
            rt_rma_flush(t->xdev, dst, err) != 0 ||
            rt_rma_fetch_add(t->counters, dst, (size_t)slot * sizeof(int64_t), 1, &old, err) != 0)
            return -1;
    }
    return 0;
}

static int t_counts(void *ctx, int64_t *counts, rt_err *err)
{
    test_ctx *t = ctx;
    const int me = rt_rma_rank(t->counters);
    for (int64_t i = 0; i < sptrsv_dist_n_recv(t->engine); ++i)
        if (rt_rma_atomic_load(t->counters, me, (size_t)i * sizeof(int64_t), &counts[i], err) != 0)
            return -1;
    return rt_rma_sync(t->xdev, err); /* the data before the counters that announced it */
}

static int t_begin(void *ctx, rt_err *err)
{
    test_ctx *t = ctx;
    (void)err;
    memset(t->lsum, 0, (size_t)(t->in->n * t->in->nrhs) * sizeof(double));
    return 0;
}

/* x_j is read where the transport delivered it (or where my solve wrote it), never from xj. */
static int t_update(void *ctx, int64_t j, int64_t e, const double *xj, rt_err *err)
{
    test_ctx *t = ctx;
    const sptrsv_dag *d = &t->in->dag;
    const double *x = (const double *)rt_rma_local(t->xdev) + t->in->f.first[j] * t->in->nrhs;
    (void)xj;
    (void)err;
    sptrsv_block_update(&t->in->f, j, d->succ_rbeg[e], d->succ_rend[e], t->in->nrhs, x, t->lsum);
    return 0;
}

static int t_solve(void *ctx, int64_t u, double *xu, rt_err *err)
{
    test_ctx *t = ctx;
    const rt_sptrsv_inputs *in = t->in;
    const int64_t r0 = in->f.first[u] * in->nrhs, r1 = in->f.first[u + 1] * in->nrhs;
    for (int64_t i = r0; i < r1; ++i)
        xu[i - r0] = in->b[i] - t->lsum[i];
    sptrsv_block_solve_diag(&in->f, u, in->nrhs, xu);
    memcpy((double *)rt_rma_local(t->xdev) + r0, xu, (size_t)(r1 - r0) * sizeof(double));
    return rt_rma_sync(t->xdev, err); /* my stores before the puts that forward them */
}

static void one_case(rt_comm *comm, int stencil, int nx, int64_t nrhs)
{
    const int P = rt_comm_world_size(comm);
    sptrsv_test_case c;
    if (sptrsv_test_case_make(&c, stencil, nx, nrhs, 0, 3, P) != 0)
        return;
    const rt_sptrsv_inputs *in = c.in;
    double *const x = c.x, *const ref = c.ref;
    rt_err err;
    test_ctx t = {.in = in};
    const size_t xb = (size_t)(in->n * nrhs) * sizeof(double);
    t.lsum = malloc(xb > 0 ? xb : 1);
    if (sptrsv_dist_create("transport test", in, comm, 30.0, -1, NULL, &t.engine, &err) != 0) {
        CHECK(0, "create: %s", err.msg);
        goto done;
    }
    const int64_t nr = sptrsv_dist_n_recv(t.engine);
    if (rt_rma_win_create(comm, RT_COMM_WORLD, xb, "test X", &t.xdev, &err) != 0 ||
        rt_rma_win_create(comm, RT_COMM_WORLD, (size_t)(nr > 0 ? nr : 1) * sizeof(int64_t),
                          "test counters", &t.counters, &err) != 0) {
        CHECK(0, "windows: %s", err.msg);
        goto done;
    }
    memset(rt_rma_local(t.counters), 0, (size_t)(nr > 0 ? nr : 1) * sizeof(int64_t));
    CHECK(rt_rma_sync(t.counters, &err) == 0, "%s", err.msg);
    CHECK(rt_comm_barrier(comm, &err) == 0, "%s", err.msg);
    const sptrsv_dist_transport tr = {&t, t_send, t_counts};
    sptrsv_dist_set_transport(t.engine, &tr);
    const sptrsv_dist_ops ops = {&t, t_begin, t_update, t_solve};
    rt_sptrsv_family()->reference(in, ref, &err);
    for (int rep = 0; rep < 4; ++rep) {
        /* The last execution: every rank sends its first message twice. */
        const int dup = rep == 3 && P > 1;
        t.duplicate = dup;
        t.sends = 0;
        double sec = 0.0;
        const int rc = sptrsv_dist_execute(t.engine, &ops, &sec, &err);
        int any_failed = rc != 0, dup_named = rc != 0 && strstr(err.msg, "duplicated") != NULL;
        MPI_Allreduce(MPI_IN_PLACE, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &dup_named, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (rep == 3) {
            CHECK(!dup || (any_failed && dup_named),
                  "a duplicated message went unnoticed (failed %d, named %d)", any_failed,
                  dup_named);
            break;
        }
        CHECK(rc == 0, "run %d: %s", rep, err.msg);
        CHECK(sptrsv_dist_fetch_rows(t.engine, in->row0, in->row1, x, &err) == 0, "%s", err.msg);
        const double error = sptrsv_test_case_error(&c);
        CHECK(error < 1e-12, "stencil %d nx %d nrhs %lld: error %g", stencil, nx, (long long)nrhs,
              error);
        rt_metrics met;
        rt_metrics_init(&met);
        CHECK(sptrsv_dist_metrics(t.engine, &met, &err) == 0, "%s", err.msg);
        const rt_metric *want = rt_metrics_get(&met, "messages_expected");
        const rt_metric *got = rt_metrics_get(&met, "messages_received");
        const rt_metric *pend = rt_metrics_get(&met, "messages_pending");
        const rt_metric *sent = rt_metrics_get(&met, "messages_sent");
        const rt_metric *total = rt_metrics_get(&met, "messages_total");
        CHECK(want && got && pend && sent && total && got->value == want->value &&
                  pend->value == 0 && want->value == (double)nr,
              "received %g of %g, pending %g", got ? got->value : -1, want ? want->value : -1,
              pend ? pend->value : -1);
        double all_sent = sent ? sent->value : 0.0;
        MPI_Allreduce(MPI_IN_PLACE, &all_sent, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        CHECK(total && all_sent == total->value && (P > 1 || all_sent == 0),
              "sent %g in all, the plan %g", all_sent, total ? total->value : -1);
    }
done:
    rt_rma_win_free(t.counters);
    rt_rma_win_free(t.xdev);
    sptrsv_dist_free(t.engine);
    free(t.lsum);
    sptrsv_test_case_free(&c);
}

int main(int argc, char **argv)
{
    int P = 1;
    rt_comm *comm = sptrsv_test_world_begin(&argc, &argv, &P);
    one_case(comm, 7, 5, 1);
    one_case(comm, 5, 9, 3);
    return sptrsv_test_world_end(comm, "sptrsv transport", P);
}
