/* sptrsv.cpu.distributed under mpirun, driven through its descriptor as the runner drives it:
 *   - the solution's canonical rows equal the family reference on every rank (3D 7-point and 2D
 *     5-point Laplacian factors, 1 and 5 right-hand sides, a split-supernode factor);
 *   - in every execution each rank receives exactly the messages the plan expects, once each,
 *     none pending at the end, and the ranks' expected receives add up to the plan's total;
 *   - the fail_rank hook makes the last rank fail with its rank named while the others finish.
 * Usage: mpirun -np N test_sptrsv_mpi RANKS_PER_NODE */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "rt_comm.h"
#include "rt_generators.h"
#include "sptrsv_cpu_dist.h"
#include "sptrsv_family.h"
#include "rt_test_mpi.h"
#include "sptrsv_test_world.h"

#define CHECK RT_MPI_CHECK_MSG

static double metric(const rt_metrics *m, const char *name)
{
    const rt_metric *x = rt_metrics_get(m, name);
    return x ? x->value : NAN;
}

static void one_case(rt_comm *comm, int stencil, int nx, int64_t nrhs, int64_t cap,
                     int64_t fail_rank)
{
    const int P = rt_comm_world_size(comm);
    sptrsv_test_case c;
    if (sptrsv_test_case_make(&c, stencil, nx, nrhs, cap, 7, P) != 0)
        return;
    const rt_sptrsv_inputs *in = c.in;
    double *const x = c.x, *const ref = c.ref;
    const int64_t m = c.m;
    rt_err err;
    const rt_kernel_desc *k = rt_sptrsv_cpu_dist_kernel();
    rt_params kp;
    rt_params_init(&kp);
    rt_params_set(&kp, "fail_rank", rt_value_int(fail_rank), &err);
    rt_params_set(&kp, "poll_timeout_s", rt_value_real(60.0), &err);
    rt_device_info dev = {.sm_count = 1};
    rt_kernel_env env = {.device = &dev, .rank = rt_mpi_rank, .nranks = P, .comm = comm};
    void *st = NULL;
    if (k->setup(k, in, &kp, &env, &st, &err) != 0) {
        CHECK(0, "setup: %s", err.msg);
        goto done;
    }
    rt_sptrsv_family()->reference(in, ref, &err);
    for (int rep = 0; rep < 3; ++rep) {
        for (int64_t i = 0; i < m; ++i)
            x[i] = NAN;
        double sec = 0.0;
        const int rc = k->run(st, &sec, &err);
        if (fail_rank >= 0) {
            if (rt_mpi_rank == fail_rank)
                CHECK(rc != 0 && strstr(err.msg, "rank") && strstr(err.msg, "injected"),
                      "the failing rank said: %s", rc ? err.msg : "(nothing)");
            else
                CHECK(rc == 0, "%s", err.msg);
            break;
        }
        CHECK(rc == 0, "run %d: %s", rep, err.msg);
        CHECK(k->output(st, x, &err) == 0, "%s", err.msg);
        const double error = sptrsv_test_case_error(&c);
        CHECK(error < 1e-12, "stencil %d nx %d nrhs %lld: error %g", stencil, nx, (long long)nrhs,
              error);
        rt_metrics met;
        rt_metrics_init(&met);
        CHECK(k->metrics(st, &met, &err) == 0, "%s", err.msg);
        const double want = metric(&met, "messages_expected");
        CHECK(metric(&met, "messages_received") == want && metric(&met, "messages_pending") == 0 &&
                  metric(&met, "messages_duplicated") == 0,
              "received %g of %g, pending %g, duplicated %g", metric(&met, "messages_received"),
              want, metric(&met, "messages_pending"), metric(&met, "messages_duplicated"));
        CHECK(metric(&met, "residual") < 1e-15, "residual %g", metric(&met, "residual"));
        double total = 0.0, sent = 0.0, sent_local = metric(&met, "messages_sent");
        MPI_Allreduce(&want, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&sent_local, &sent, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        CHECK(total == metric(&met, "messages_total") && sent == total,
              "expected %g, sent %g, plan %g", total, sent, metric(&met, "messages_total"));
        CHECK(P > 1 || total == 0, "one rank sends nothing");
        CHECK(metric(&met, "model_time_s") > 0, "no model time");
    }
    k->teardown(st);
done:
    sptrsv_test_case_free(&c);
}

int main(int argc, char **argv)
{
    int P = 1;
    rt_comm *comm = sptrsv_test_world_begin(&argc, &argv, &P);
    one_case(comm, 7, 5, 1, 0, -1);
    one_case(comm, 5, 10, 5, 0, -1);
    one_case(comm, 5, 8, 2, 2, -1);
    one_case(comm, 7, 4, 1, 0, P - 1);
    return sptrsv_test_world_end(comm, "sptrsv mpi", P);
}
