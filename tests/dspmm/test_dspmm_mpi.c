/* dspmm.cpu.sender under mpirun, driven through its registry descriptor as the runner drives it,
 * over emulated topologies (1, 2 and 4 ranks per node; one or two sockets per node):
 *   - the distributed product, moved to the family's canonical rows by `output`, equals the
 *     family reference (global relative error, as the runner's gate computes it);
 *   - the bytes and messages each rank sent per tier in one execution (read from the harness's
 *     rt_comm counters) equal, exactly, what the model-only mode computes for a virtual job of the
 *     same shape in one process — per rank, not only in total — and the point's metrics and the
 *     traffic hook say the same;
 *   - pipelining (stages 2, 3, 4, 8 of K = 7, so most do not divide K; 2 and 3 buffer sets) gives
 *     exactly the unpipelined result, bit for bit, and the same bytes per tier, and the point
 *     carries its pipeline model and overlap metrics;
 *   - a failing rank (the fail_rank test hook, in setup and in run) makes the execution fail on
 *     every rank with that rank named, and nobody hangs (ctest's timeout would say so).
 * Usage: mpirun -np N test_dspmm_mpi */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dspmm_cpu_sender.h"
#include "dspmm_desc.h"
#include "dspmm_family.h"
#include "dspmm_model.h"
#include "rt_comm.h"
#include "rt_test_mpi.h"

#define CHECK RT_MPI_CHECK_MSG

static void make_matrix(rt_csr *a, int64_t rows, int64_t cols, int per_row, int banded,
                        uint64_t seed)
{
    const int64_t cap = rows * per_row;
    int64_t *ri = malloc((size_t)cap * sizeof *ri), *ci = malloc((size_t)cap * sizeof *ci);
    double *v = malloc((size_t)cap * sizeof *v);
    uint64_t s = seed;
    int64_t n = 0;
    for (int64_t i = 0; i < rows; ++i)
        for (int e = 0; e < per_row; ++e) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            const uint64_t x = s >> 33;
            int64_t j =
                banded ? i * cols / rows + (int64_t)(x % 9) - 4 : (int64_t)(x % (uint64_t)cols);
            j = j < 0 ? 0 : j >= cols ? cols - 1 : j;
            ri[n] = i;
            ci[n] = j;
            v[n] = (double)(x % 1999) / 1000.0 - 0.999;
            ++n;
        }
    rt_err err;
    if (rt_csr_from_coo(a, rows, cols, n, ri, ci, v, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        MPI_Abort(MPI_COMM_WORLD, 2); /* test helper: a broken generator ends the test */
    }
    free(ri);
    free(ci);
    free(v);
}

typedef struct point {
    int p_batch;
    const char *comm;
    int64_t minibatch;
    const char *prec;
    int64_t fail_rank;
    const char *fail_at;
    int64_t stages;        /* 0: minibatch decides */
    int64_t stage_buffers; /* 0: the default (2) */
} point;

static void set_params(const point *pt, rt_params *kp, rt_params *prob)
{
    rt_err err;
    rt_params_init(kp);
    rt_params_set(kp, "p_batch", rt_value_int(pt->p_batch), &err);
    rt_params_set(kp, "comm", rt_value_str(pt->comm), &err);
    rt_params_set(kp, "minibatch", rt_value_int(pt->minibatch), &err);
    rt_params_set(kp, "stages", rt_value_int(pt->stages), &err);
    rt_params_set(kp, "stage_buffers", rt_value_int(pt->stage_buffers ? pt->stage_buffers : 2),
                  &err);
    rt_params_set(kp, "threads", rt_value_int(1), &err);
    rt_params_set(kp, "fail_rank", rt_value_int(pt->fail_rank), &err);
    rt_params_set(kp, "fail_at", rt_value_str(pt->fail_at), &err);
    rt_params_init(prob);
    rt_params_set(prob, "K", rt_value_int(7), &err);
    rt_params_set(prob, "precision", rt_value_str(pt->prec), &err);
    rt_params_set(prob, "seed", rt_value_int(3), &err);
}

/* What a caller keeps of a point: this rank's output (malloc'ed) and the bytes per tier. */
typedef struct kept {
    double *out;
    int64_t n_out;
    double bytes[RT_TIER_COUNT];
} kept;

/* One point end to end; returns 1 when it ran (0 when infeasible for this job). keep (may be
 * NULL) receives the output and the bytes per tier. */
static int run_point(rt_comm *comm, const rt_csr *a, const point *pt, int rpn, int rps, kept *keep)
{
    const rt_kernel_desc *k = rt_dspmm_cpu_sender_kernel();
    const rt_family_desc *fam = rt_dspmm_family();
    const int n = rt_comm_world_size(comm);
    char tag[160];
    snprintf(tag, sizeof tag,
             "np %d rpn %d rps %d comm %s p_batch %d minibatch %lld stages %lld/%lld %s", n, rpn,
             rps, pt->comm, pt->p_batch, (long long)pt->minibatch, (long long)pt->stages,
             (long long)pt->stage_buffers, pt->prec);
    rt_params kp, prob;
    set_params(pt, &kp, &prob);
    rt_err err;
    rt_err_clear(&err);
    void *inputs = NULL;
    const rt_job job = {.rank = rt_mpi_rank, .nranks = n};
    CHECK(fam->make_inputs(a, &prob, &job, &inputs, &err) == 0, "%s: inputs: %s", tag, err.msg);
    rt_kernel_env env = {
        .device = NULL, .cache_dir = NULL, .rank = rt_mpi_rank, .nranks = n, .comm = comm};
    char why[256] = "";
    const int c = k->check(k, inputs, &kp, &env, why, sizeof why, &err);
    if (c == RT_INFEASIBLE) {
        fam->free_inputs(inputs);
        return 0;
    }
    CHECK(c == 0, "%s: check: %s", tag, err.msg);
    void *state = NULL;
    CHECK(k->setup(k, inputs, &kp, &env, &state, &err) == 0, "%s: setup: %s", tag, err.msg);

    int64_t before[RT_TIER_COUNT], after[RT_TIER_COUNT], mb[RT_TIER_COUNT], ma[RT_TIER_COUNT];
    rt_comm_counters_read(comm, before, mb);
    double sec;
    CHECK(k->run(state, &sec, &err) == 0, "%s: run: %s", tag, err.msg);
    rt_comm_counters_read(comm, after, ma);
    /* A second execution gives the same result (buffers are re-zeroed, nothing accumulates). */
    CHECK(k->run(state, &sec, &err) == 0, "%s: run 2: %s", tag, err.msg);

    const int64_t n_out = fam->output_elems(inputs);
    double *out = malloc((size_t)(n_out + 1) * sizeof *out),
           *ref = malloc((size_t)(n_out + 1) * sizeof *ref);
    for (int64_t i = 0; i < n_out; ++i)
        out[i] = NAN;
    CHECK(k->output(state, out, &err) == 0, "%s: output: %s", tag, err.msg);
    CHECK(fam->reference(inputs, ref, &err) == 0, "%s: reference: %s", tag, err.msg);
    double sums[3] = {0, 0, 0};
    for (int64_t i = 0; i < n_out; ++i) {
        if (!isfinite(out[i]))
            sums[2] += 1;
        else
            sums[0] += (out[i] - ref[i]) * (out[i] - ref[i]);
        sums[1] += ref[i] * ref[i];
    }
    MPI_Allreduce(MPI_IN_PLACE, sums, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    const double rel = sums[2] > 0 ? INFINITY : sqrt(sums[0] / (sums[1] > 0 ? sums[1] : 1));
    CHECK(rel <= fam->tolerance(inputs), "%s: relative error %g over %g", tag, rel,
          fam->tolerance(inputs));

    /* The model of the same job, in this one process. */
    dspmm_model_opts mo;
    memset(&mo, 0, sizeof mo);
    mo.nranks = n;
    mo.ranks_per_node = rpn;
    mo.ranks_per_socket = rps;
    CHECK(dspmm_model_opts_from_point(&kp, &prob, &mo, &err) == 0, "%s: %s", tag, err.msg);
    dspmm_model_result r;
    CHECK(dspmm_model_run(a, &mo, &r, why, sizeof why, &err) == 0, "%s: model: %s %s", tag, why,
          err.msg);
    int64_t any = 0;
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        const int64_t got_b = after[t] - before[t], got_m = ma[t] - mb[t];
        CHECK(got_b == r.per_rank[rt_mpi_rank].bytes[t] && got_m == r.per_rank[rt_mpi_rank].msgs[t],
              "%s: tier %d: measured %lld bytes %lld msgs, model %lld bytes %lld msgs", tag, t,
              (long long)got_b, (long long)got_m, (long long)r.per_rank[rt_mpi_rank].bytes[t],
              (long long)r.per_rank[rt_mpi_rank].msgs[t]);
        any += r.bytes_total[t];
    }
    if (n > 1 && pt->p_batch < n)
        CHECK(any > 0, "%s: a data-parallel job sent nothing", tag);

    rt_metrics m;
    rt_metrics_init(&m);
    CHECK(k->metrics(state, &m, &err) == 0, "%s: metrics: %s", tag, err.msg);
    static const char *const tn[RT_TIER_COUNT] = {"socket", "node", "global"};
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        char name[64];
        snprintf(name, sizeof name, "comm_bytes_%s_total", tn[t]);
        const rt_metric *mt = rt_metrics_get(&m, name);
        CHECK(mt && mt->value == (double)r.bytes_total[t] && mt->deterministic, "%s: %s", tag,
              name);
        if (keep)
            keep->bytes[t] = mt ? mt->value : -1.0;
        snprintf(name, sizeof name, "comm_msgs_%s_max", tn[t]);
        mt = rt_metrics_get(&m, name);
        CHECK(mt && mt->value == (double)r.msgs_max[t], "%s: %s", tag, name);
    }
    for (int h = 0; h < r.hops; ++h) {
        char name[64];
        snprintf(name, sizeof name, "partial_bytes_l%d", h);
        const rt_metric *mt = rt_metrics_get(&m, name);
        CHECK(mt && mt->value == (double)r.partial_bytes[h], "%s: %s", tag, name);
    }
    /* The pipeline model and the overlap are stored with every point (two executions ran). */
    static const char *const timed[] = {"pipeline_model_s", "pipeline_model_ratio",
                                        "time_overlap_s", "time_wall_s", "time_phases_sum_s"};
    for (size_t i = 0; i < sizeof timed / sizeof timed[0]; ++i) {
        const rt_metric *mt = rt_metrics_get(&m, timed[i]);
        CHECK(mt && isfinite(mt->value) && mt->value >= 0, "%s: metric %s", tag, timed[i]);
    }
    const rt_metric *model = rt_metrics_get(&m, "pipeline_model_s");
    const rt_metric *sum = rt_metrics_get(&m, "time_phases_sum_s");
    if (model && sum && r.chunks_max == 1)
        CHECK(fabs(model->value - sum->value) <= 1e-12 + 1e-9 * sum->value,
              "%s: one stage: the model %g is the phases' sum %g", tag, model->value, sum->value);
    rt_traffic tr;
    CHECK(k->traffic(k, inputs, &kp, &env, &tr, &err) == 0, "%s: traffic: %s", tag, err.msg);
    for (int t = 0; t < RT_TIER_COUNT; ++t)
        CHECK(tr.net_bytes[t] == (double)r.per_rank[rt_mpi_rank].bytes[t], "%s: traffic tier %d",
              tag, t);
    dspmm_model_result_free(&r);
    if (keep) {
        keep->out = out;
        keep->n_out = n_out;
    } else
        free(out);
    free(ref);
    k->teardown(state);
    fam->free_inputs(inputs);
    return 1;
}

/* The communication layer with rpn ranks per node and rps per socket; NULL (a failed check) when
 * it cannot be made. */
static rt_comm *open_comm(int rpn, int rps)
{
    rt_comm_opts o = {.ranks_per_node = rpn, .ranks_per_socket = rps};
    rt_comm *comm = NULL;
    rt_err err;
    if (rt_comm_create(&o, &comm, &err) != 0) {
        CHECK(0, "rt_comm_create(%d, %d): %s", rpn, rps, err.msg);
        return NULL;
    }
    return comm;
}

static void test_points(int rpn, int rps)
{
    rt_comm *comm = open_comm(rpn, rps);
    if (!comm)
        return;
    rt_csr mats[2];
    make_matrix(&mats[0], 150, 130, 5, 0, 11);
    make_matrix(&mats[1], 160, 160, 4, 1, 12);
    static const char *const comms[] = {"direct", "node", "socket+node"};
    int ran = 0;
    for (int mi = 0; mi < 2; ++mi)
        for (int ci = 0; ci < 3; ++ci)
            for (int pb = 1; pb <= 2; ++pb)
                for (int mbi = 0; mbi < 2; ++mbi) {
                    const point pt = {
                        pb, comms[ci], mbi ? 3 : 0, (mi + ci + mbi) % 2 ? "fp32" : "fp64",
                        -1, "run",     0,           2};
                    ran += run_point(comm, &mats[mi], &pt, rpn, rps, NULL);
                }
    CHECK(ran >= 12, "only %d points ran", ran);
    rt_csr_free(&mats[0]);
    rt_csr_free(&mats[1]);
    rt_comm_free(comm);
}

/* Pipelined equals unpipelined exactly: the same reductions in the same order per column. */
static void test_stages(int rpn, int rps)
{
    rt_comm *comm = open_comm(rpn, rps);
    if (!comm)
        return;
    rt_csr a;
    make_matrix(&a, 150, 130, 5, 0, 21);
    static const char *const comms[] = {"direct", "node", "socket+node"};
    static const int64_t stages[] = {2, 3, 4, 8}; /* K = 7: only 8 (7 stages of one column) fits */
    int compared = 0;
    for (int ci = 0; ci < 3; ++ci) {
        const char *prec = ci % 2 ? "fp32" : "fp64";
        const point base = {1, comms[ci], 0, prec, -1, "run", 1, 2};
        kept ref = {0};
        if (!run_point(comm, &a, &base, rpn, rps, &ref))
            continue;
        for (int si = 0; si < 4; ++si)
            for (int64_t sets = 2; sets <= 3; ++sets) {
                const point pt = {1, comms[ci], 0, prec, -1, "run", stages[si], sets};
                kept got = {0};
                if (!run_point(comm, &a, &pt, rpn, rps, &got)) {
                    CHECK(0, "comm %s stages %lld: infeasible", comms[ci], (long long)stages[si]);
                    continue;
                }
                /* This rank's canonical rows of C, bit for bit. */
                int64_t diff = got.n_out == ref.n_out ? 0 : -1;
                for (int64_t i = 0; diff >= 0 && i < ref.n_out; ++i)
                    diff += memcmp(&got.out[i], &ref.out[i], sizeof(double)) != 0;
                CHECK(diff == 0, "comm %s stages %lld sets %lld: %lld values differ from one stage",
                      comms[ci], (long long)stages[si], (long long)sets, (long long)diff);
                for (int t = 0; t < RT_TIER_COUNT; ++t)
                    CHECK(got.bytes[t] == ref.bytes[t],
                          "comm %s stages %lld: tier %d: %g bytes, one stage %g", comms[ci],
                          (long long)stages[si], t, got.bytes[t], ref.bytes[t]);
                free(got.out);
                ++compared;
            }
        free(ref.out);
    }
    CHECK(compared == 24, "only %d pipelined points compared", compared);
    rt_csr_free(&a);
    rt_comm_free(comm);
}

static void test_failures(void)
{
    rt_comm_opts o = {.ranks_per_node = 1, .ranks_per_socket = 1};
    rt_comm *comm = NULL;
    rt_err err;
    if (rt_comm_create(&o, &comm, &err) != 0) {
        CHECK(0, "rt_comm_create: %s", err.msg);
        return;
    }
    const int n = rt_comm_world_size(comm), victim = n - 1;
    rt_csr a;
    make_matrix(&a, 100, 100, 4, 0, 21);
    const rt_kernel_desc *k = rt_dspmm_cpu_sender_kernel();
    const rt_family_desc *fam = rt_dspmm_family();
    rt_kernel_env env = {.rank = rt_mpi_rank, .nranks = n, .comm = comm};
    const rt_job job = {.rank = rt_mpi_rank, .nranks = n};
    for (int at = 0; at < 2; ++at) {
        const point pt = {1, "node", 0, "fp64", victim, at ? "run" : "setup", 0, 2};
        rt_params kp, prob;
        set_params(&pt, &kp, &prob);
        void *inputs = NULL, *state = NULL;
        CHECK(fam->make_inputs(&a, &prob, &job, &inputs, &err) == 0, "inputs: %s", err.msg);
        rt_err_clear(&err);
        const int s = k->setup(k, inputs, &kp, &env, &state, &err);
        if (!at) {
            /* Setup talks to nobody: only the victim fails, and says who it is. */
            CHECK((s != 0) == (rt_mpi_rank == victim), "setup returned %d", s);
            if (rt_mpi_rank == victim) {
                char want[64];
                snprintf(want, sizeof want, "injected failure on rank %d in setup", victim);
                CHECK(strstr(err.msg, want) != NULL, "message '%s'", err.msg);
            }
        } else {
            CHECK(s == 0, "setup: %s", err.msg);
            double sec;
            const int r = k->run(state, &sec, &err);
            CHECK(r == -1, "run returned %d on every rank? (%s)", r, err.msg);
            char want[64];
            if (rt_mpi_rank == victim)
                snprintf(want, sizeof want, "injected failure on rank %d", victim);
            else
                snprintf(want, sizeof want, "rank %d failed in the same execution", victim);
            CHECK(strstr(err.msg, want) != NULL, "message '%s' lacks '%s'", err.msg, want);
        }
        if (state)
            k->teardown(state);
        fam->free_inputs(inputs);
    }
    rt_csr_free(&a);
    rt_comm_free(comm);
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rt_mpi_rank);
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static const int rpns[] = {1, 2, 4};
    for (int i = 0; i < 3; ++i) {
        const int rpn = rpns[i];
        if (rpn > size || size % rpn != 0)
            continue;
        test_points(rpn, rpn); /* one socket per node */
        if (rpn >= 2)
            test_points(rpn, rpn / 2); /* two sockets per node */
    }
    /* 2 nodes (np 2 and 4), 2 nodes x 2 sockets (np 8). */
    test_stages(size >= 2 ? size / 2 : 1, size >= 8 ? size / 4 : (size >= 2 ? size / 2 : 1));
    if (size > 1)
        test_failures();
    int total = rt_mpi_failures;
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rt_mpi_rank == 0)
        printf("dspmm mpi (%d ranks): %s (%d failed checks over all ranks)\n", size,
               total ? "FAILED" : "ok", total);
    MPI_Finalize();
    return total ? 1 : 0;
}
