/* sptrsv.cuda.distributed: the paper's message-driven multi-GPU solve. One rank per GPU (the
 * plugin gives rank r the device local_rank mod device_count, so ranks on a one-GPU host share
 * it); the messages are sptrsv_dist_engine's (P x 1 block layout, x_s broadcast along binary trees
 * of MPI-3 RMA puts with a counter the receiver polls, exactly-once checks), the arithmetic runs
 * on the rank's GPU:
 *   - update (x_j known here, DAG edge j -> u, u mine): x_j goes from the host copy of X (the
 *     engine's X window, page-locked with cudaHostRegister when the MPI library allows it) to the
 *     device once per execution, then one block adds L(rows of u, columns of j) x_j into the
 *     device partial sums;
 *   - solve (u has every input): one block solves u's diagonal block on the device, x_u comes back
 *     to the host copy (the stream is synchronised: the engine sends it at once).
 * Every step is stream-ordered and every x a rank sends has been copied back first, so the solve
 * is the CPU one with the block operations moved to the GPU. Simple rather than fast: a launch
 * per edge and per supernode, a synchronisation per owned supernode. Transport: MPI RMA through
 * the host (`rma`), or CUDA IPC between the GPUs of one host (`ipc`, sptrsv_cuda_ipc.h: x_s goes
 * from the sender's device X straight into the receiver's, which the update kernels read, so
 * nothing is uploaded); NVSHMEM is not implemented. */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "rt_schema.h"
#include "rt_cuda_point.h"
#include "sptrsv_cuda.h"
#include "sptrsv_cuda_catalog.h"
#include "sptrsv_cuda_data.h"
#include "sptrsv_cuda_ipc.h"
#include "sptrsv_cuda_super.h"
#include "sptrsv_cuda_superdata.h"
#include "sptrsv_dist_engine.h"

typedef struct cuda_dist_state {
    sptrsv_cuda_data d;       /* B and X on the device */
    sptrsv_cuda_superdata sd; /* the supernodal factor */
    double *lsum;             /* device, n x nrhs */
    sptrsv_dist *engine;
    sptrsv_cuda_ipc *ipc; /* transport ipc; NULL with rma */
    int use_ipc;
    int rank;
    int64_t *uploaded; /* nsuper: the execution in which x_j last went to the device */
    int64_t exec;
    int threads_per_block, shared_doubles;
    int pinned; /* the host copy of X is registered (page-locked) */
    int64_t launches;
} cuda_dist_state;

static const rt_cuda_catalog_entry *entry(void)
{
    int n = 0;
    const rt_cuda_catalog_entry *t = rt_sptrsv_cuda_catalog(&n);
    return rt_cuda_catalog_at(t, n, RT_SPTRSV_CUDA_KIND_DISTRIBUTED);
}

static void cuda_dist_teardown(void *state)
{
    cuda_dist_state *s = state;
    if (!s)
        return;
    if (s->d.ctx) {
        rt_err ignored;
        (void)rt_cuda_ctx_make_current(s->d.ctx, &ignored);
        (void)cudaStreamSynchronize(rt_cuda_ctx_stream(s->d.ctx));
        if (s->pinned)
            (void)cudaHostUnregister(sptrsv_dist_x(s->engine));
        sptrsv_cuda_superdata_free(&s->sd);
        rt_cuda_free(s->d.ctx, s->lsum);
    }
    /* The engine's free is collective (MPI_Win_free returns on no rank before every rank has
     * called it): peers' maps are closed before it, my exported X and counters freed after. */
    sptrsv_cuda_ipc_close_peers(s->ipc);
    sptrsv_dist_free(s->engine); /* collective: every rank tears down the same point */
    sptrsv_cuda_ipc_free(s->ipc);
    sptrsv_cuda_data_free(&s->d);
    free(s->uploaded);
    free(s);
}

static int cuda_dist_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                           const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    if (!env || !env->comm)
        return rt_err_set(err, "%s: no communication layer", self->name);
    return sptrsv_cuda_check(self, inputs, p, env, why, whylen, err);
}

/* Everything on this rank's device: B, X, the factor, the partial sums. 0, RT_INFEASIBLE, -1. */
static int device_setup(cuda_dist_state *s, const rt_kernel_desc *self, const rt_sptrsv_inputs *in,
                        rt_err *err)
{
    s->uploaded = calloc((size_t)(in->f.nsuper > 0 ? in->f.nsuper : 1), sizeof *s->uploaded);
    if (!s->uploaded)
        return rt_err_set(err, "%s: out of memory", self->name);
    int rc = sptrsv_cuda_data_create(self->name, self->backend_ctx, in, 0, &s->d, err);
    if (rc != 0)
        return rc;
    if ((rc = sptrsv_cuda_superdata_create(self->name, s->d.ctx, in, &s->sd, err)) != 0)
        return rc;
    const size_t lb = (size_t)(in->n * in->nrhs > 0 ? in->n * in->nrhs : 1) * sizeof(double);
    return rt_cuda_alloc(s->d.ctx, (void **)&s->lsum, lb, "partial sums", err);
}

static int cuda_dist_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                           const rt_kernel_env *env, void **state, rt_err *err)
{
    const rt_sptrsv_inputs *in = inputs;
    const rt_cuda_catalog_entry *e = entry();
    *state = NULL;
    if (!in || !env || !env->comm)
        return rt_err_set(err, "%s: no inputs or no communication layer", self->name);
    int64_t tpb = 0, shared_kb = 0;
    /* Bad parameters are the same on every rank: all return here, before any collective. */
    if (rt_schema_int(e->params, e->n_params, self->name, p, "threads_per_block", &tpb, err) != 0 ||
        rt_schema_int(e->params, e->n_params, self->name, p, "shared_kb", &shared_kb, err) != 0)
        return -1;
    char transport[16] = "";
    if (rt_schema_str(e->params, e->n_params, self->name, p, "transport", transport,
                      sizeof transport, err) != 0)
        return -1;
    const rt_value *tv = rt_params_get(p, "poll_timeout_s");
    const double timeout = tv ? rt_value_as_double(tv) : 60.0;
    cuda_dist_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory", self->name);
    *state = s;
    s->threads_per_block = (int)tpb;
    s->use_ipc = strcmp(transport, "ipc") == 0;
    s->rank = rt_comm_world_rank(env->comm);
    int64_t widest = 0;
    for (int64_t k = 0; k < in->f.nsuper; ++k)
        if (sptrsv_ncols(&in->f, k) > widest)
            widest = sptrsv_ncols(&in->f, k);
    const int64_t doubles = shared_kb * 1024 / (int64_t)sizeof(double);
    s->shared_doubles = (int)(doubles < widest * in->nrhs ? doubles : widest * in->nrhs);
    /* The device first, then the engine, whose creation is collective: a rank whose device setup
     * failed (a full GPU shared by several ranks) makes every rank fail there, before any window
     * exists, so no rank is left waiting in a collective the others never reach. */
    rt_err dev_err;
    rt_err_clear(&dev_err);
    const int dev_rc = device_setup(s, self, in, &dev_err);
    if (sptrsv_dist_create(self->name, in, env->comm, timeout, -1, dev_rc != 0 ? &dev_err : NULL,
                           &s->engine, err) != 0)
        return dev_rc != 0 ? dev_rc : -1;
    /* Page-locked staging where the MPI library's window memory can be registered; otherwise
     * the copies go through pageable memory (slower, as correct), said by the metric x_pinned. */
    const size_t xb = (size_t)(in->n * in->nrhs) * sizeof(double);
    if (xb > 0 &&
        cudaHostRegister(sptrsv_dist_x(s->engine), xb, cudaHostRegisterDefault) == cudaSuccess)
        s->pinned = 1;
    else
        (void)cudaGetLastError(); /* clear the failed registration */
    if (!s->use_ipc)
        return 0;
    /* Every rank got here (the engine's creation agreed), so the IPC setup's collectives meet. */
    const int rc = sptrsv_cuda_ipc_create(self->name, s->d.ctx, in, s->d.x, s->engine, env->comm,
                                          &s->ipc, err);
    if (rc != 0)
        return rc;
    const sptrsv_dist_transport t = sptrsv_cuda_ipc_transport(s->ipc);
    sptrsv_dist_set_transport(s->engine, &t);
    return 0;
}

static int cuda_err(rt_err *err, const char *what, int64_t super, int rc)
{
    return rt_err_set(err, RT_SPTRSV_CUDA_DISTRIBUTED ": %s of supernode %lld: %s", what,
                      (long long)super, cudaGetErrorString((cudaError_t)rc));
}

static int gpu_begin(void *ctx, rt_err *err)
{
    cuda_dist_state *s = ctx;
    const rt_sptrsv_inputs *in = s->d.in;
    cudaStream_t st = rt_cuda_ctx_stream(s->d.ctx);
    ++s->exec;
    s->launches = 0;
    cudaError_t rc = cudaStreamSynchronize(st);
    if (rc == cudaSuccess)
        rc = cudaMemsetAsync(s->lsum, 0, (size_t)(in->n * in->nrhs) * sizeof(double), st);
    if (rc != cudaSuccess)
        return rt_err_set(err, RT_SPTRSV_CUDA_DISTRIBUTED ": clearing the partial sums: %s",
                          cudaGetErrorString(rc));
    return 0;
}

static int gpu_update(void *ctx, int64_t j, int64_t e, const double *xj, rt_err *err)
{
    cuda_dist_state *s = ctx;
    const rt_sptrsv_inputs *in = s->d.in;
    const sptrsv_factor *f = &in->f;
    const sptrsv_dag *g = &in->dag;
    const int64_t k = in->nrhs;
    cudaStream_t st = rt_cuda_ctx_stream(s->d.ctx);
    /* x of my own supernodes is already on the device (their diagonal solve wrote it there), and
     * so is every x with transport ipc (the sender's kernel wrote it into my X). */
    if (!s->use_ipc && sptrsv_dist_plan(s->engine)->owner[j] != s->rank &&
        s->uploaded[j] != s->exec) {
        const size_t bytes = (size_t)(sptrsv_ncols(f, j) * k) * sizeof(double);
        const int rc =
            (int)cudaMemcpyAsync(s->d.x + f->first[j] * k, xj, bytes, cudaMemcpyHostToDevice, st);
        if (rc != 0)
            return cuda_err(err, "copying x to the device", j, rc);
        s->uploaded[j] = s->exec;
    }
    const int64_t r0 = f->rowstart[j];
    const int rc = sptrsv_cuda_super_update_launch(
        st, s->threads_per_block, &s->sd.f, (int32_t)j, (int32_t)(g->succ_rbeg[e] - r0),
        (int32_t)(g->succ_rend[e] - r0), s->d.x, s->lsum, (int32_t)k);
    if (rc != 0)
        return cuda_err(err, "update launch", j, rc);
    ++s->launches;
    return 0;
}

static int gpu_solve(void *ctx, int64_t u, double *xu, rt_err *err)
{
    cuda_dist_state *s = ctx;
    const rt_sptrsv_inputs *in = s->d.in;
    const sptrsv_factor *f = &in->f;
    const int64_t k = in->nrhs;
    cudaStream_t st = rt_cuda_ctx_stream(s->d.ctx);
    int rc = sptrsv_cuda_super_diag_launch(st, s->threads_per_block, s->shared_doubles, &s->sd.f,
                                           (int32_t)u, s->d.b, s->d.x, s->lsum, (int32_t)k);
    if (rc != 0)
        return cuda_err(err, "diagonal solve launch", u, rc);
    ++s->launches;
    const size_t bytes = (size_t)(sptrsv_ncols(f, u) * k) * sizeof(double);
    rc = (int)cudaMemcpyAsync(xu, s->d.x + f->first[u] * k, bytes, cudaMemcpyDeviceToHost, st);
    if (rc == 0)
        rc = (int)cudaStreamSynchronize(st); /* the engine sends x_u as soon as this returns */
    if (rc != 0)
        return cuda_err(err, "copying x to the host", u, rc);
    return 0;
}

static int cuda_dist_run(void *state, double *seconds, rt_err *err)
{
    cuda_dist_state *s = state;
    const sptrsv_dist_ops ops = {s, gpu_begin, gpu_update, gpu_solve};
    if (rt_cuda_ctx_make_current(s->d.ctx, err) != 0)
        return -1;
    /* Wall clock between the engine's opening and closing barriers: GPU work and messages. */
    return sptrsv_dist_execute(s->engine, &ops, seconds, err);
}

static int cuda_dist_output(void *state, double *out, rt_err *err)
{
    cuda_dist_state *s = state;
    return sptrsv_dist_fetch_rows(s->engine, s->d.in->row0, s->d.in->row1, out, err);
}

static int cuda_dist_metrics(void *state, rt_metrics *m, rt_err *err)
{
    cuda_dist_state *s = state;
    sptrsv_factor_metrics(s->d.in, m);
    if (sptrsv_dist_metrics(s->engine, m, err) != 0)
        return -1;
    rt_metrics_add(m, "launches", "count", (double)s->launches, 1);
    rt_metrics_add(m, "x_pinned", "flag", (double)s->pinned, 1);
    rt_metrics_add(m, "upload_s", "s", s->d.upload_s, 0);
    return 0;
}

static int cuda_dist_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                             const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const rt_sptrsv_inputs *in = inputs;
    if (sptrsv_cuda_traffic(self, inputs, p, env, t, err) != 0)
        return -1;
    /* Per rank: its share (supernodes are dealt round robin). */
    const double share = 1.0 / (double)(in->nranks > 0 ? in->nranks : 1);
    t->flops *= share;
    t->bytes[RT_LEVEL_DRAM] *= share;
    return 0;
}

void rt_sptrsv_cuda_dist_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    static const rt_cuda_point_hooks hooks = {cuda_dist_check,    cuda_dist_setup,   cuda_dist_run,
                                              cuda_dist_output,   cuda_dist_metrics, NULL,
                                              cuda_dist_teardown, cuda_dist_traffic};
    rt_cuda_point_describe(d, entry(), &hooks, ctx);
}
