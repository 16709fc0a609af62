#include "dspmm_cuda_sender.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cusparse.h>
#include <mpi.h>

#include "dspmm_cuda_reduce.h"
#include "dspmm_family.h"
#include "dspmm_sender_common.h"
#include "dspmm_timeline.h"
#include "rt_clock.h"
#include "rt_schema.h"
#include "dspmm_cuda_catalog.h"
#include "rt_cuda_point.h"

#define KNAME RT_DSPMM_CUDA_SENDER

/* Tags beside the plan's data tags (DSPMM_TAG_BASE + 2 * hop + parity): credits travel back from a
 * receiver to an IPC sender on TAG_CREDIT + 2 * hop + parity (of the stage freed); the IPC handles
 * of receive areas travel once, in setup, on TAG_HANDLES + hop. Messages of one pair and tag
 * match in the order they were posted (MPI's non-overtaking rule), so stages more than two apart
 * may share a tag.
 *
 * Streams and events. The multiply runs on its own stream (mstream), one stage ahead of the
 * communication stream (stream: device copies, reductions, memsets), so the multiply of stage
 * s + 1 runs while stage s's copies and reductions and stage s - 1's MPI are under way. The
 * streams meet only through events: the communication of a stage waits for its multiply
 * (ev_mult), and a multiply waits until the level-0 buffer set it writes has been read by the
 * stage that used it before (ev_lev0_free). The host waits for the device only where MPI or a
 * peer needs data the device wrote (staged rows before their send, IPC rows before their token,
 * a reduced receive area before its credit) or where a pinned receive buffer is reused. */
#define TAG_CREDIT  (DSPMM_TAG_BASE + 2 * DSPMM_MAX_HOPS)
#define TAG_HANDLES (TAG_CREDIT + 2 * DSPMM_MAX_HOPS)

/* What a receiver tells an IPC sender about its receive areas of one hop (one per parity). */
typedef struct ipc_offer {
    cudaIpcMemHandle_t handle[DSPMM_MAX_STAGE_BUFFERS];
    int64_t base_off[DSPMM_MAX_STAGE_BUFFERS]; /* the area's byte offset in its allocation */
    int64_t off_rows;                          /* the sender's rows start at this row of the area */
    int64_t rows; /* and are this many (checked against the sender's plan) */
    int64_t hop, parities;
} ipc_offer;

/* One transfer of my role, with its transport. */
typedef struct gpu_xfer {
    int ipc; /* 1: device to device through CUDA IPC; 0: staged through pinned host + MPI */
    int64_t off_rows; /* recv: first row in my receive area; send+ipc: in the receiver's area */
    void *remote[DSPMM_MAX_STAGE_BUFFERS]; /* send+ipc: the receiver's area (per set), mapped */
    void *
        opened[DSPMM_MAX_STAGE_BUFFERS]; /* send+ipc: cudaIpcOpenMemHandle's (closed in teardown) */
    int64_t *d_map;                      /* recv: the plan's map on the device */
} gpu_xfer;

typedef struct gpu_hop {
    gpu_xfer *send, *recv;
    int64_t *d_self_src, *d_self_dst;
    int staged_send, staged_recv, ipc_send, ipc_recv; /* any transfer of that kind here */
    int parities; /* buffer sets: stage_buffers (the name stays from the two-set version: the
                     offer carries it) */
    int dist;     /* chunks between two uses of one receive area */
    /* Per set: token payloads (the chunk index), credits, and their requests. */
    int64_t *tok_send[DSPMM_MAX_STAGE_BUFFERS], *tok_recv[DSPMM_MAX_STAGE_BUFFERS];
    int64_t *credit_out[DSPMM_MAX_STAGE_BUFFERS];
    MPI_Request *credit_req[DSPMM_MAX_STAGE_BUFFERS];
    /* Per set: recorded after the reduction of what arrived (a credit waits for it) and after the
     * copy out of the pinned receive buffer (the next receive into it waits for it). */
    cudaEvent_t ev_reduced[DSPMM_MAX_STAGE_BUFFERS], ev_hrecv_free[DSPMM_MAX_STAGE_BUFFERS];
    /* Recorded after the copies out of my level buffer (staged rows wait for it before MPI, IPC
     * rows before their token). */
    cudaEvent_t ev_sent[DSPMM_MAX_STAGE_BUFFERS];
    ipc_offer *offer_out, *offer_in; /* setup only: per recv / send transfer */
} gpu_hop;

typedef struct gpu_state {
    dspmm_sender_base b;
    rt_cuda_ctx *ctx;
    cudaStream_t stream;  /* communication: copies, reductions, memsets (the context's stream) */
    cudaStream_t mstream; /* the local multiply (created here) */
    int have_mstream, have_events;
    cudaEvent_t ev_mult[DSPMM_MAX_STAGE_BUFFERS];      /* a stage's multiply is done */
    cudaEvent_t ev_lev0_free[DSPMM_MAX_STAGE_BUFFERS]; /* its level-0 set has been read */
    /* Timing: the start and end of every chunk's multiply ([2 ch], [2 ch + 1]), read after the
     * execution's final synchronization, so timing never makes the host wait. */
    cudaEvent_t *ev_mtime;
    int64_t n_mtime;
    /* The phase timeline (dspmm_timeline): ev_ref is recorded (and waited for) when an execution
     * starts, ref_host is the host clock just after; pair i of ev_tl ([2 i], [2 i + 1]) brackets
     * one piece of device work of phase tl_phase[i] on the communication stream. Times are read
     * against ev_ref after the final synchronization; MPI waits go in on the host clock. */
    cudaEvent_t ev_ref;
    cudaEvent_t *ev_tl;
    int *tl_phase;
    int64_t tl_cap, tl_used, n_tl_ev;
    double ref_host;
    dspmm_timeline tl;
    int ipc_mode;          /* intra = ipc */
    cusparseSpMMAlg_t alg; /* spmm_alg: the local multiply's cuSPARSE algorithm */
    int ipc_live; /* handles exchanged (on every rank): teardown closes them, then synchronizes */
    gpu_hop hop[DSPMM_MAX_HOPS];
    /* Level buffers, receive areas (exported to IPC senders) and pinned staging: stage_buffers
     * sets for every hop (level 0 is the multiply's output). */
    void *d_lev[DSPMM_MAX_HOPS][DSPMM_MAX_STAGE_BUFFERS];
    void *d_rbuf[DSPMM_MAX_HOPS][DSPMM_MAX_STAGE_BUFFERS];
    void *h_send[DSPMM_MAX_HOPS][DSPMM_MAX_STAGE_BUFFERS];
    void *h_recv[DSPMM_MAX_HOPS][DSPMM_MAX_STAGE_BUFFERS];
    void *d_c; /* my C rows x kb */
    void *h_c; /* its host copy for the output hook */
    /* Local multiply (cuSPARSE): my level-0 rows x my column block, int32 CSR. */
    void *d_rowptr, *d_col, *d_val, *d_b;
    void *d_work[2]; /* per chunk width: cusparseSpMM_preprocess keeps its analysis there */
    cusparseHandle_t sp;
    int have_sp, have_a, have_mb[2], have_mo[2];
    cusparseSpMatDescr_t mat_a;
    cusparseDnMatDescr_t mat_b[2], mat_o[2]; /* [0]: chunk_max columns, [1]: the last chunk's */
    int64_t width[2];
    float one_f, zero_f;
    double one_d, zero_d;
    MPI_Request *req[DSPMM_MAX_STAGE_BUFFERS]; /* the last hop's requests, per buffer set */
    MPI_Request *req_local;                    /* an intermediate hop's requests */
    MPI_Status *sts;
    int max_req;
    char what[160];
} gpu_state;

static const rt_cuda_catalog_entry *entry(void)
{
    int n = 0;
    return rt_dspmm_cuda_catalog(&n); /* the family's one CUDA kernel */
}

static int read_params(const rt_params *p, dspmm_sender_cfg *cfg, int *ipc, cusparseSpMMAlg_t *alg,
                       rt_err *err)
{
    const rt_cuda_catalog_entry *e = entry();
    char intra[16], alg_name[16];
    if (dspmm_sender_read_cfg(e->params, e->n_params, KNAME, p, cfg, err) != 0 ||
        rt_schema_str(e->params, e->n_params, KNAME, p, "intra", intra, sizeof intra, err) != 0 ||
        rt_schema_str(e->params, e->n_params, KNAME, p, "spmm_alg", alg_name, sizeof alg_name,
                      err) != 0)
        return -1;
    *ipc = strcmp(intra, "ipc") == 0;
    /* The schema's domain admits only these names. */
    *alg = strcmp(alg_name, "csr_alg1") == 0   ? CUSPARSE_SPMM_CSR_ALG1
           : strcmp(alg_name, "csr_alg2") == 0 ? CUSPARSE_SPMM_CSR_ALG2
                                               : CUSPARSE_SPMM_ALG_DEFAULT;
    return 0;
}

static int cuda_fail(rt_err *err, const char *what, const char *call, cudaError_t e)
{
    return rt_err_set(err, "%s: %s failed: %s: %s", what, call, cudaGetErrorName(e),
                      cudaGetErrorString(e));
}

#define CUDA_TRY(call)                                                                             \
    do {                                                                                           \
        const cudaError_t dspmm_e_ = (call);                                                       \
        if (dspmm_e_ != cudaSuccess)                                                               \
            return cuda_fail(err, s->what, #call, dspmm_e_);                                       \
    } while (0)

#define SP_TRY(call)                                                                               \
    do {                                                                                           \
        const cusparseStatus_t dspmm_st_ = (call);                                                 \
        if (dspmm_st_ != CUSPARSE_STATUS_SUCCESS)                                                  \
            return rt_err_set(err, "%s: %s failed: %s", s->what, #call,                            \
                              cusparseGetErrorString(dspmm_st_));                                  \
    } while (0)

static int gpu_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    dspmm_sender_cfg cfg;
    int ipc = 0;
    (void)self;
    cusparseSpMMAlg_t alg = CUSPARSE_SPMM_ALG_DEFAULT;
    if (read_params(p, &cfg, &ipc, &alg, err) != 0)
        return -1;
    return dspmm_sender_check(KNAME, inputs, &cfg, env, why, whylen, err);
}

/* ---- Teardown ----------------------------------------------------------------------------- */

static void free_hop(gpu_state *s, gpu_hop *h, const dspmm_hop_role *r)
{
    for (int i = 0; h->recv && i < r->n_recv; ++i)
        rt_cuda_free(s->ctx, h->recv[i].d_map);
    rt_cuda_free(s->ctx, h->d_self_src);
    rt_cuda_free(s->ctx, h->d_self_dst);
    for (int set = 0; set < DSPMM_MAX_STAGE_BUFFERS; ++set) {
        free(h->tok_send[set]);
        free(h->tok_recv[set]);
        free(h->credit_out[set]);
        free(h->credit_req[set]);
    }
    free(h->send);
    free(h->recv);
    free(h->offer_out);
    free(h->offer_in);
}

static void gpu_teardown(void *state)
{
    gpu_state *s = state;
    if (!s)
        return;
    if (s->ctx)
        (void)cuCtxSetCurrent(rt_cuda_ctx_cu_context(s->ctx));
    if (s->stream)
        (void)cudaStreamSynchronize(s->stream);
    if (s->have_mstream)
        (void)cudaStreamSynchronize(s->mstream);
    if (s->ipc_live) {
        /* Importers unmap first; an exporter frees its areas only after every rank has (freeing
         * exported memory that another process still maps is undefined behaviour). Every rank
         * reaches this point: ipc_live is set on all of them together, after an agreement. */
        for (int k = 0; k < s->b.plan.hops; ++k)
            for (int i = 0; s->hop[k].send && i < s->b.role.hop[k].n_send; ++i)
                for (int set = 0; set < DSPMM_MAX_STAGE_BUFFERS; ++set)
                    if (s->hop[k].send[i].opened[set])
                        (void)cudaIpcCloseMemHandle(s->hop[k].send[i].opened[set]);
        (void)MPI_Barrier(s->b.mpi);
    }
    for (int k = 0; k < s->b.plan.hops; ++k)
        free_hop(s, &s->hop[k], &s->b.role.hop[k]);
    for (int k = 0; k < DSPMM_MAX_HOPS; ++k)
        for (int set = 0; set < DSPMM_MAX_STAGE_BUFFERS; ++set) {
            rt_cuda_free(s->ctx, s->d_lev[k][set]);
            rt_cuda_free(s->ctx, s->d_rbuf[k][set]);
            if (s->h_send[k][set])
                (void)cudaFreeHost(s->h_send[k][set]);
            if (s->h_recv[k][set])
                (void)cudaFreeHost(s->h_recv[k][set]);
        }
    if (s->have_events)
        for (int set = 0; set < DSPMM_MAX_STAGE_BUFFERS; ++set) {
            cudaEvent_t *evs[] = {&s->ev_mult[set], &s->ev_lev0_free[set]};
            for (size_t e = 0; e < sizeof evs / sizeof evs[0]; ++e)
                if (*evs[e])
                    (void)cudaEventDestroy(*evs[e]);
            for (int k = 0; k < DSPMM_MAX_HOPS; ++k) {
                gpu_hop *h = &s->hop[k];
                if (h->ev_reduced[set])
                    (void)cudaEventDestroy(h->ev_reduced[set]);
                if (h->ev_hrecv_free[set])
                    (void)cudaEventDestroy(h->ev_hrecv_free[set]);
                if (h->ev_sent[set])
                    (void)cudaEventDestroy(h->ev_sent[set]);
            }
        }
    for (int64_t i = 0; s->ev_mtime && i < s->n_mtime; ++i)
        (void)cudaEventDestroy(s->ev_mtime[i]);
    free(s->ev_mtime);
    for (int64_t i = 0; s->ev_tl && i < s->n_tl_ev; ++i)
        (void)cudaEventDestroy(s->ev_tl[i]);
    free(s->ev_tl);
    free(s->tl_phase);
    if (s->ev_ref)
        (void)cudaEventDestroy(s->ev_ref);
    dspmm_timeline_free(&s->tl);
    if (s->have_mstream)
        (void)cudaStreamDestroy(s->mstream);
    for (int i = 0; i < 2; ++i) {
        if (s->have_mb[i])
            cusparseDestroyDnMat(s->mat_b[i]);
        if (s->have_mo[i])
            cusparseDestroyDnMat(s->mat_o[i]);
    }
    if (s->have_a)
        cusparseDestroySpMat(s->mat_a);
    if (s->have_sp)
        cusparseDestroy(s->sp);
    rt_cuda_free(s->ctx, s->d_rowptr);
    rt_cuda_free(s->ctx, s->d_col);
    rt_cuda_free(s->ctx, s->d_val);
    rt_cuda_free(s->ctx, s->d_b);
    rt_cuda_free(s->ctx, s->d_work[0]);
    rt_cuda_free(s->ctx, s->d_work[1]);
    rt_cuda_free(s->ctx, s->d_c);
    free(s->h_c);
    for (int set = 0; set < DSPMM_MAX_STAGE_BUFFERS; ++set)
        free(s->req[set]);
    free(s->req_local);
    free(s->sts);
    dspmm_sender_base_free(&s->b);
    free(s);
}

/* ---- Setup -------------------------------------------------------------------------------- */

static int dev_alloc(gpu_state *s, void **p, int64_t elems, size_t esize, const char *label,
                     rt_err *err)
{
    char what[320];
    snprintf(what, sizeof what, "%s of %s", label, s->what);
    return rt_cuda_alloc(s->ctx, p, (size_t)(elems > 0 ? elems : 1) * esize, what, err);
}

static int dev_upload(gpu_state *s, void **p, const void *src, int64_t elems, size_t esize,
                      const char *label, rt_err *err)
{
    const int rc = dev_alloc(s, p, elems, esize, label, err);
    if (rc != 0 || elems <= 0)
        return rc;
    return rt_cuda_upload(s->ctx, *p, src, (size_t)elems * esize, label, err);
}

static int host_pinned(gpu_state *s, void **p, int64_t elems, const char *label, rt_err *err)
{
    const size_t bytes = (size_t)(elems > 0 ? elems : 1) * s->b.esize;
    const cudaError_t e = cudaMallocHost(p, bytes);
    if (e == cudaSuccess)
        return 0;
    *p = NULL;
    (void)cudaGetLastError();
    if (e == cudaErrorMemoryAllocation) {
        rt_err_set(err, "%s: out of pinned host memory allocating %zu bytes for %s", s->what, bytes,
                   label);
        return RT_INFEASIBLE;
    }
    return cuda_fail(err, s->what, "cudaMallocHost", e);
}

/* cuSPARSE: my level-0 rows x my column block (int32 CSR), B's block on the device, and dense
 * descriptors for the (at most two) chunk widths; pointers are set per chunk. */
static int setup_multiply(gpu_state *s, rt_err *err)
{
    const dspmm_sender_base *b = &s->b;
    const int64_t n0 = b->role.level_rows[0];
    if (b->lnnz > INT32_MAX || n0 >= INT32_MAX || b->bcols >= INT32_MAX) {
        rt_err_set(err,
                   "%s: the local block (%" PRId64 " rows, %" PRId64 " nonzeros) needs "
                   "64-bit indices",
                   s->what, n0, b->lnnz);
        return RT_INFEASIBLE;
    }
    int32_t *rp = malloc((size_t)(n0 + 1) * sizeof *rp);
    if (!rp)
        return rt_err_set(err, "%s: out of memory", s->what);
    for (int64_t r = 0; r <= n0; ++r)
        rp[r] = (int32_t)b->lrowptr[r];
    int rc = dev_upload(s, &s->d_rowptr, rp, n0 + 1, sizeof *rp, "row offsets", err);
    free(rp);
    if (rc == 0)
        rc = dev_upload(s, &s->d_col, b->lcol, b->lnnz, sizeof *b->lcol, "column indices", err);
    if (rc == 0)
        rc = dev_upload(s, &s->d_val, b->lval, b->lnnz, b->esize, "values", err);
    if (rc == 0)
        rc = dev_upload(s, &s->d_b, b->bblk, b->bcols * b->kb, b->esize, "B block", err);
    if (rc != 0)
        return rc;
    SP_TRY(cusparseCreate(&s->sp));
    s->have_sp = 1;
    SP_TRY(cusparseSetStream(s->sp, s->mstream));
    /* No level-0 rows: nothing to multiply (cuSPARSE need not see an empty matrix). */
    if (n0 == 0 || b->lnnz == 0)
        return 0;
    const cudaDataType type = b->prec == RT_FP64 ? CUDA_R_64F : CUDA_R_32F;
    SP_TRY(cusparseCreateCsr(&s->mat_a, n0, b->bcols, b->lnnz, s->d_rowptr, s->d_col, s->d_val,
                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                             type));
    s->have_a = 1;
    /* Chunks have near-equal widths (dspmm_chunk_cols): chunk_max, and chunk_max - 1 when the
     * stage count does not divide my columns. */
    s->width[0] = b->chunk_max;
    s->width[1] = b->kb % b->chunks != 0 ? b->kb / b->chunks : 0;
    const void *one = b->prec == RT_FP64 ? (const void *)&s->one_d : (const void *)&s->one_f;
    const void *zero = b->prec == RT_FP64 ? (const void *)&s->zero_d : (const void *)&s->zero_f;
    for (int i = 0; i < 2; ++i) {
        if (s->width[i] <= 0)
            continue;
        /* B's columns [c0, c0 + w) are a row-major view of the block with ld = kb; the output is
         * the level-0 buffer, rows x w (ld = w). */
        SP_TRY(cusparseCreateDnMat(&s->mat_b[i], b->bcols, s->width[i], b->kb, s->d_b, type,
                                   CUSPARSE_ORDER_ROW));
        s->have_mb[i] = 1;
        SP_TRY(cusparseCreateDnMat(&s->mat_o[i], n0, s->width[i], s->width[i], s->d_lev[0][0], type,
                                   CUSPARSE_ORDER_ROW));
        s->have_mo[i] = 1;
        size_t need = 0;
        const cusparseStatus_t st = cusparseSpMM_bufferSize(
            s->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, one,
            s->mat_a, s->mat_b[i], zero, s->mat_o[i], type, s->alg, &need);
        if (st == CUSPARSE_STATUS_NOT_SUPPORTED) {
            /* An algorithm cuSPARSE does not offer for row-major operands of this width. */
            rt_err_set(err,
                       "%s: cuSPARSE does not support spmm_alg %d for a %" PRId64 " x %" PRId64
                       " row-major operand: %s",
                       s->what, (int)s->alg, b->bcols, s->width[i], cusparseGetErrorString(st));
            return RT_INFEASIBLE;
        }
        if (st != CUSPARSE_STATUS_SUCCESS)
            return rt_err_set(err, "%s: cusparseSpMM_bufferSize failed: %s", s->what,
                              cusparseGetErrorString(st));
        rc = dev_alloc(s, &s->d_work[i], (int64_t)need, 1, "cuSPARSE workspace", err);
        if (rc != 0)
            return rc;
        /* Every stage multiplies the same A: analyse it once here, not in each stage's
         * cusparseSpMM (the analysis lives in this width's workspace, so each width has its
         * own). An algorithm with nothing to preprocess says NOT_SUPPORTED: nothing is lost. */
        const cusparseStatus_t pst = cusparseSpMM_preprocess(
            s->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, one,
            s->mat_a, s->mat_b[i], zero, s->mat_o[i], type, s->alg, s->d_work[i]);
        if (pst != CUSPARSE_STATUS_SUCCESS && pst != CUSPARSE_STATUS_NOT_SUPPORTED)
            return rt_err_set(err, "%s: cusparseSpMM_preprocess failed: %s", s->what,
                              cusparseGetErrorString(pst));
    }
    return 0;
}

/* Per hop: which transfers go through IPC, their maps on the device, tokens, credits, and the
 * handles a receiver offers its IPC senders. */
static int setup_hops(gpu_state *s, rt_err *err)
{
    const dspmm_sender_base *b = &s->b;
    const int last = b->plan.hops - 1;
    const int my_node = b->topo.node_of[b->rank];
    for (int k = 0; k <= last; ++k) {
        const dspmm_hop_role *r = &b->role.hop[k];
        gpu_hop *h = &s->hop[k];
        /* Every hop has stage_buffers sets (round 1 gave the intermediate hops one): with one,
         * an IPC sender waited each stage for the credit of the stage before, that is for its
         * receiver's reduction, and a staged receiver for the previous stage's copy in. */
        h->parities = b->stage_buffers;
        h->dist = h->parities;
        const size_t ns = (size_t)(r->n_send > 0 ? r->n_send : 1);
        const size_t nr = (size_t)(r->n_recv > 0 ? r->n_recv : 1);
        h->send = calloc(ns, sizeof *h->send);
        h->recv = calloc(nr, sizeof *h->recv);
        h->offer_out = calloc(nr, sizeof *h->offer_out);
        h->offer_in = calloc(ns, sizeof *h->offer_in);
        int ok = h->send && h->recv && h->offer_out && h->offer_in;
        for (int set = 0; set < h->parities && ok; ++set) {
            h->tok_send[set] = calloc(ns, sizeof(int64_t));
            h->tok_recv[set] = calloc(nr, sizeof(int64_t));
            h->credit_out[set] = calloc(nr, sizeof(int64_t));
            h->credit_req[set] = malloc(nr * sizeof(MPI_Request));
            ok = h->tok_send[set] && h->tok_recv[set] && h->credit_out[set] && h->credit_req[set];
            for (size_t i = 0; ok && i < nr; ++i)
                h->credit_req[set][i] = MPI_REQUEST_NULL;
            if (ok) {
                CUDA_TRY(cudaEventCreateWithFlags(&h->ev_reduced[set], cudaEventDisableTiming));
                CUDA_TRY(cudaEventCreateWithFlags(&h->ev_hrecv_free[set], cudaEventDisableTiming));
                CUDA_TRY(cudaEventCreateWithFlags(&h->ev_sent[set], cudaEventDisableTiming));
            }
        }
        if (!ok)
            return rt_err_set(err, "%s: out of memory", s->what);
        /* A peer of my (emulated) node is reached through IPC when intra = ipc; the plan never
         * lists a transfer to myself (those rows are reduced in place). */
        for (int i = 0; i < r->n_send; ++i) {
            h->send[i].ipc = s->ipc_mode && b->topo.node_of[r->send[i].peer] == my_node;
            h->staged_send |= !h->send[i].ipc;
            h->ipc_send |= h->send[i].ipc;
        }
        int64_t off = 0;
        for (int i = 0; i < r->n_recv; ++i) {
            gpu_xfer *x = &h->recv[i];
            x->ipc = s->ipc_mode && b->topo.node_of[r->recv[i].peer] == my_node;
            x->off_rows = off;
            off += r->recv[i].rows;
            h->staged_recv |= !x->ipc;
            h->ipc_recv |= x->ipc;
            const int rc = dev_upload(s, (void **)&x->d_map, r->recv[i].map, r->recv[i].rows,
                                      sizeof(int64_t), "reduction map", err);
            if (rc != 0)
                return rc;
        }
        int rc = dev_upload(s, (void **)&h->d_self_src, r->self_src, r->n_self, sizeof(int64_t),
                            "self map", err);
        if (rc == 0)
            rc = dev_upload(s, (void **)&h->d_self_dst, r->self_dst, r->n_self, sizeof(int64_t),
                            "self map", err);
        if (rc != 0)
            return rc;
        /* Level 0 is the multiply's output: one set per stage buffer, so the multiply of the
         * next stage never waits for this stage's hop. */
        const int lev_sets = k == 0 ? b->stage_buffers : h->parities;
        for (int set = h->parities; set < lev_sets && rc == 0; ++set)
            rc = dev_alloc(s, &s->d_lev[k][set], b->role.level_rows[k] * b->chunk_max, b->esize,
                           "level buffer", err);
        if (rc != 0)
            return rc;
        for (int par = 0; par < h->parities; ++par) {
            rc = dev_alloc(s, &s->d_lev[k][par], b->role.level_rows[k] * b->chunk_max, b->esize,
                           "level buffer", err);
            if (rc == 0)
                rc = dev_alloc(s, &s->d_rbuf[k][par], r->recv_rows * b->chunk_max, b->esize,
                               "receive area", err);
            if (rc == 0 && h->staged_send)
                rc = host_pinned(s, &s->h_send[k][par], b->role.level_rows[k] * b->chunk_max,
                                 "the send staging buffer", err);
            if (rc == 0 && h->staged_recv)
                rc = host_pinned(s, &s->h_recv[k][par], r->recv_rows * b->chunk_max,
                                 "the receive staging buffer", err);
            if (rc != 0)
                return rc;
        }
        /* The offers (one per IPC sender): handles of my receive areas and where its rows go. */
        for (int i = 0; i < r->n_recv; ++i) {
            if (!h->recv[i].ipc)
                continue;
            ipc_offer *o = &h->offer_out[i];
            o->off_rows = h->recv[i].off_rows;
            o->rows = r->recv[i].rows;
            o->hop = k;
            o->parities = h->parities;
            for (int par = 0; par < h->parities; ++par) {
                CUdeviceptr base = 0;
                size_t size = 0;
                CUDA_TRY(cudaIpcGetMemHandle(&o->handle[par], s->d_rbuf[k][par]));
                const CUresult cr =
                    cuMemGetAddressRange(&base, &size, (CUdeviceptr)s->d_rbuf[k][par]);
                if (cr != CUDA_SUCCESS)
                    return rt_err_set(err, "%s: cuMemGetAddressRange failed (%d)", s->what,
                                      (int)cr);
                o->base_off[par] = (int64_t)((CUdeviceptr)s->d_rbuf[k][par] - base);
            }
        }
    }
    return 0;
}

/* The timeline's events: at most TL_PAIRS_PER_HOP pieces of device work per hop and stage (an
 * intermediate hop: its staged copy out, IPC copies, memset, own rows' reduction, copy in and
 * received rows' reduction). Past TL_MAX_PAIRS the timeline is not kept (a run of thousands of
 * stages would create more events than it is worth); the metrics say so. */
#define TL_PAIRS_PER_HOP 6
#define TL_MAX_PAIRS     8192
static int setup_timeline(gpu_state *s, rt_err *err)
{
    const int64_t pairs = TL_PAIRS_PER_HOP * (int64_t)s->b.plan.hops * s->b.chunks;
    if (pairs > TL_MAX_PAIRS) {
        s->b.timeline = 2;
        s->b.timeline_why = "more stages than the timeline keeps events for";
        return 0;
    }
    s->b.timeline = 1;
    CUDA_TRY(cudaEventCreate(&s->ev_ref));
    s->ev_tl = calloc((size_t)(2 * pairs), sizeof *s->ev_tl);
    s->tl_phase = calloc((size_t)pairs, sizeof *s->tl_phase);
    if (!s->ev_tl || !s->tl_phase)
        return rt_err_set(err, "%s: out of memory", s->what);
    for (; s->n_tl_ev < 2 * pairs; ++s->n_tl_ev)
        CUDA_TRY(cudaEventCreate(&s->ev_tl[s->n_tl_ev]));
    s->tl_cap = pairs;
    /* Room for every device piece, the multiplies and a few MPI waits per stage (it grows). */
    return dspmm_timeline_init(&s->tl, pairs + s->b.chunks * 8, err);
}

/* Everything that needs no other rank. */
static int setup_local(gpu_state *s, const rt_kernel_desc *self, const rt_dspmm_inputs *in,
                       const rt_params *p, const rt_kernel_env *env, rt_err *err)
{
    dspmm_sender_cfg cfg;
    if (read_params(p, &cfg, &s->ipc_mode, &s->alg, err) != 0)
        return -1;
    if (cfg.fail_rank == env->rank && cfg.fail_in_setup)
        return rt_err_set(err, "%s: injected failure on rank %d in setup (test hook fail_rank)",
                          self->name, env->rank);
    if (rt_cuda_ctx_make_current(s->ctx, err) != 0)
        return -1;
    int rc = dspmm_sender_base_init(&s->b, KNAME, in, env, &cfg, err);
    if (rc != 0)
        return rc;
    s->one_f = 1.0f;
    s->one_d = 1.0;
    const int last = s->b.plan.hops - 1;
    for (int k = 0; k <= last; ++k) {
        const dspmm_hop_role *h = &s->b.role.hop[k];
        if (h->n_send + h->n_recv > s->max_req)
            s->max_req = h->n_send + h->n_recv;
    }
    const size_t nreq = (size_t)(s->max_req > 0 ? s->max_req : 1);
    int ok = 1;
    for (int set = 0; set < s->b.stage_buffers; ++set) {
        s->req[set] = malloc(nreq * sizeof(MPI_Request));
        ok = ok && s->req[set];
    }
    s->req_local = malloc(nreq * sizeof(MPI_Request));
    s->sts = malloc(nreq * sizeof(MPI_Status));
    s->h_c = malloc((size_t)(s->b.role.c_rows * s->b.kb > 0 ? s->b.role.c_rows * s->b.kb : 1) *
                    s->b.esize);
    if (!ok || !s->req_local || !s->sts || !s->h_c)
        return rt_err_set(err, "%s: out of memory", s->what);
    CUDA_TRY(cudaStreamCreateWithFlags(&s->mstream, cudaStreamNonBlocking));
    s->have_mstream = 1;
    s->have_events = 1;
    for (int set = 0; set < s->b.stage_buffers; ++set) {
        CUDA_TRY(cudaEventCreateWithFlags(&s->ev_mult[set], cudaEventDisableTiming));
        CUDA_TRY(cudaEventCreateWithFlags(&s->ev_lev0_free[set], cudaEventDisableTiming));
    }
    s->ev_mtime = calloc((size_t)(2 * s->b.chunks), sizeof *s->ev_mtime);
    if (!s->ev_mtime)
        return rt_err_set(err, "%s: out of memory", s->what);
    for (; s->n_mtime < 2 * s->b.chunks; ++s->n_mtime)
        CUDA_TRY(cudaEventCreate(&s->ev_mtime[s->n_mtime]));
    rc = setup_timeline(s, err);
    if (rc != 0)
        return rc;
    rc = setup_hops(s, err);
    if (rc == 0)
        rc = dev_alloc(s, &s->d_c, s->b.role.c_rows * s->b.kb, s->b.esize, "C rows", err);
    if (rc == 0)
        rc = setup_multiply(s, err);
    if (rc == 0)
        rc = rt_cuda_sync(s->ctx, s->what, err);
    return rc;
}

/* Receivers send each IPC sender the handles of their receive areas; senders map them. */
static int exchange_handles(gpu_state *s, rt_err *err)
{
    const dspmm_sender_base *b = &s->b;
    int total = 0;
    for (int k = 0; k < b->plan.hops; ++k)
        total += b->role.hop[k].n_send + b->role.hop[k].n_recv;
    MPI_Request *req = malloc((size_t)(total > 0 ? total : 1) * sizeof *req);
    if (!req)
        return rt_err_set(err, "%s: out of memory", s->what);
    int n = 0, posted_ok = 1;
    for (int k = 0; k < b->plan.hops; ++k) {
        const dspmm_hop_role *r = &b->role.hop[k];
        gpu_hop *h = &s->hop[k];
        for (int i = 0; i < r->n_send; ++i)
            if (h->send[i].ipc) {
                req[n] = MPI_REQUEST_NULL;
                if (MPI_Irecv(&h->offer_in[i], (int)sizeof(ipc_offer), MPI_BYTE, r->send[i].peer,
                              TAG_HANDLES + k, b->mpi, &req[n]) != MPI_SUCCESS)
                    posted_ok = 0;
                ++n;
            }
        for (int i = 0; i < r->n_recv; ++i)
            if (h->recv[i].ipc) {
                req[n] = MPI_REQUEST_NULL;
                if (MPI_Isend(&h->offer_out[i], (int)sizeof(ipc_offer), MPI_BYTE, r->recv[i].peer,
                              TAG_HANDLES + k, b->mpi, &req[n]) != MPI_SUCCESS)
                    posted_ok = 0;
                ++n;
            }
    }
    const int wrc = n > 0 ? MPI_Waitall(n, req, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
    free(req);
    if (!posted_ok || wrc != MPI_SUCCESS)
        return rt_err_set(err, "%s: exchanging the IPC handles failed (MPI)", s->what);
    for (int k = 0; k < b->plan.hops; ++k) {
        const dspmm_hop_role *r = &b->role.hop[k];
        gpu_hop *h = &s->hop[k];
        for (int i = 0; i < r->n_send; ++i) {
            gpu_xfer *x = &h->send[i];
            const ipc_offer *o = &h->offer_in[i];
            if (!x->ipc)
                continue;
            if (o->hop != k || o->rows != r->send[i].rows || o->parities != h->parities)
                return rt_err_set(err,
                                  "%s: rank %d offered an area of %" PRId64 " rows at hop %" PRId64
                                  ", the plan sends it %" PRId64 " rows at hop %d",
                                  s->what, r->send[i].peer, o->rows, o->hop, r->send[i].rows, k);
            x->off_rows = o->off_rows;
            for (int par = 0; par < h->parities; ++par) {
                void *p = NULL;
                CUDA_TRY(cudaIpcOpenMemHandle(&p, o->handle[par], cudaIpcMemLazyEnablePeerAccess));
                x->opened[par] = p;
                x->remote[par] = (char *)p + o->base_off[par];
            }
        }
    }
    return 0;
}

static int gpu_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, void **state, rt_err *err)
{
    *state = NULL;
    if (!inputs || !env || !env->comm)
        return rt_err_set(err, "%s: no inputs or no communication layer", self->name);
    rt_comm *comm = env->comm;
    gpu_state *s = calloc(1, sizeof *s);
    int rc;
    if (!s) {
        rc = rt_err_set(err, "%s: out of memory", self->name);
    } else {
        s->ctx = self->backend_ctx;
        s->stream = (cudaStream_t)rt_cuda_ctx_stream(s->ctx);
        snprintf(s->what, sizeof s->what, "%s (rank %d)", self->name, env->rank);
        rc = setup_local(s, self, inputs, p, env, err);
    }
    /* Setup communicates (the IPC handles), so a rank that fails must not leave the others
     * waiting: every rank says how it did, and all return the worst outcome together. */
    rc = rt_comm_agree_outcome(comm, rc, KNAME, "setup", err);
    if (rc != 0) {
        gpu_teardown(s);
        return rc;
    }
    s->ipc_live = 1; /* on every rank: all passed the agreement */
    rc = exchange_handles(s, err);
    rc = rt_comm_agree_outcome(comm, rc, KNAME, "IPC handle exchange", err);
    if (rc != 0) {
        gpu_teardown(s);
        return rc;
    }
    *state = s;
    return 0;
}

/* ---- One execution ------------------------------------------------------------------------ */

/* The first local failure is kept and the protocol goes on regardless, so every partner still
 * gets (and sends) every message it expects; the agreement at the end fails the execution. */
typedef dspmm_exec_ctx exec_ctx;

static void fail_mpi(gpu_state *s, exec_ctx *x, const char *what, int rc)
{
    dspmm_exec_fail_mpi(x, s->what, what, rc);
}

static void fail_cuda(gpu_state *s, exec_ctx *x, const char *what, cudaError_t e)
{
    if (e == cudaSuccess || !x->ok)
        return;
    x->ok = 0;
    cuda_fail(&x->err, s->what, what, e);
}

static void sync_stream(gpu_state *s, exec_ctx *x, double *acc)
{
    const double t0 = rt_clock_now();
    fail_cuda(s, x, "cudaStreamSynchronize", cudaStreamSynchronize(s->stream));
    *acc += rt_clock_now() - t0;
}

/* Records ev on the communication stream and waits for it on the host (accumulating the wait):
 * the host waits for the communication stream's work so far, never for the multiply stream. */
static void sync_event(gpu_state *s, cudaEvent_t ev, exec_ctx *x, double *acc)
{
    const double t0 = rt_clock_now();
    fail_cuda(s, x, "cudaEventRecord", cudaEventRecord(ev, s->stream));
    fail_cuda(s, x, "cudaEventSynchronize", cudaEventSynchronize(ev));
    *acc += rt_clock_now() - t0;
}

/* ---- The phase timeline ---- */

/* Starts the timeline of an execution: the reference event, seen complete by the host. The wait
 * is for work queued before the execution (none of its own), and places ref_host at most one
 * synchronization's latency after the device passed ev_ref. */
static void tl_start(gpu_state *s, exec_ctx *x)
{
    s->tl_used = 0;
    dspmm_timeline_clear(&s->tl);
    if (s->b.timeline != 1)
        return;
    fail_cuda(s, x, "cudaEventRecord (timeline reference)", cudaEventRecord(s->ev_ref, s->stream));
    fail_cuda(s, x, "cudaEventSynchronize (timeline reference)", cudaEventSynchronize(s->ev_ref));
    s->ref_host = rt_clock_now();
}

/* Opens a piece of device work of phase ph on the communication stream; returns its pair (-1: no
 * timeline). */
static int64_t tl_begin(gpu_state *s, dspmm_phase ph, exec_ctx *x)
{
    if (s->b.timeline != 1)
        return -1;
    if (s->tl_used == s->tl_cap) {
        if (x->ok) {
            x->ok = 0;
            rt_err_set(&x->err, "%s: the timeline has no event left (%" PRId64 " pairs): a bug",
                       s->what, s->tl_cap);
        }
        return -1;
    }
    const int64_t i = s->tl_used++;
    s->tl_phase[i] = (int)ph;
    fail_cuda(s, x, "cudaEventRecord (timeline)", cudaEventRecord(s->ev_tl[2 * i], s->stream));
    return i;
}

static void tl_end(gpu_state *s, int64_t i, exec_ctx *x)
{
    if (i >= 0)
        fail_cuda(s, x, "cudaEventRecord (timeline)",
                  cudaEventRecord(s->ev_tl[2 * i + 1], s->stream));
}

/* The host was blocked in MPI from t0 to t1 (host clock). */
static void tl_mpi(gpu_state *s, double t0, double t1, exec_ctx *x)
{
    if (s->b.timeline != 1 || !x->ok)
        return;
    rt_err e;
    rt_err_clear(&e);
    if (dspmm_timeline_add(&s->tl, DSPMM_PH_MPI, t0 - s->ref_host, t1 - s->ref_host, &e) != 0) {
        x->ok = 0;
        x->err = e;
    }
}

/* Seconds from ev_ref to ev (both complete). */
static double tl_at(gpu_state *s, cudaEvent_t ev, exec_ctx *x)
{
    float ms = 0.0f;
    fail_cuda(s, x, "cudaEventElapsedTime (timeline)", cudaEventElapsedTime(&ms, s->ev_ref, ev));
    return 1e-3 * (double)ms;
}

/* After the final synchronization: every device piece (the multiplies from their own events)
 * goes on the timeline, and the execution's busy times are added to the sums. */
static void tl_collect(gpu_state *s, exec_ctx *x)
{
    if (s->b.timeline != 1 || !x->ok)
        return;
    rt_err e;
    rt_err_clear(&e);
    int rc = 0;
    for (int64_t ch = 0; rc == 0 && x->ok && ch < s->b.chunks; ++ch)
        rc = dspmm_timeline_add(&s->tl, DSPMM_PH_MULTIPLY, tl_at(s, s->ev_mtime[2 * ch], x),
                                tl_at(s, s->ev_mtime[2 * ch + 1], x), &e);
    for (int64_t i = 0; rc == 0 && x->ok && i < s->tl_used; ++i)
        rc = dspmm_timeline_add(&s->tl, (dspmm_phase)s->tl_phase[i], tl_at(s, s->ev_tl[2 * i], x),
                                tl_at(s, s->ev_tl[2 * i + 1], x), &e);
    dspmm_busy busy;
    if (rc == 0 && x->ok)
        rc = dspmm_timeline_busy(&s->tl, &busy, &e);
    if (rc != 0 && x->ok) {
        x->ok = 0;
        x->err = e;
    }
    if (x->ok)
        dspmm_sender_add_busy(&s->b, &busy);
}

/* Adds the device time of every chunk's multiply to t_kernel (after the final synchronization). */
static void collect_multiply_times(gpu_state *s, exec_ctx *x)
{
    for (int64_t ch = 0; ch < s->b.chunks; ++ch) {
        float ms = 0.0f;
        const cudaError_t e =
            cudaEventElapsedTime(&ms, s->ev_mtime[2 * ch], s->ev_mtime[2 * ch + 1]);
        fail_cuda(s, x, "cudaEventElapsedTime", e);
        if (e == cudaSuccess)
            s->b.t_kernel += 1e-3 * (double)ms;
    }
}

/* Issues the multiply of chunk ch into level-0 set `set` on the multiply stream, after the stage
 * that used that set before has read it (ev_lev0_free, recorded on the communication stream;
 * waiting on an event never recorded waits for nothing). Records ev_mult[set] when done. */
static void issue_multiply(gpu_state *s, int64_t ch, exec_ctx *x)
{
    const int set = (int)(ch % s->b.stage_buffers);
    int64_t c0 = 0, w = 0;
    dspmm_sender_chunk(&s->b, ch, &c0, &w);
    void *out = s->d_lev[0][set];
    fail_cuda(s, x, "cudaStreamWaitEvent",
              cudaStreamWaitEvent(s->mstream, s->ev_lev0_free[set], 0));
    fail_cuda(s, x, "cudaEventRecord", cudaEventRecord(s->ev_mtime[2 * ch], s->mstream));
    if (!s->have_a) {
        /* No nonzero in my column block: my partial rows (if any) are zero. */
        fail_cuda(s, x, "cudaMemsetAsync",
                  cudaMemsetAsync(out, 0, (size_t)(s->b.role.level_rows[0] * w) * s->b.esize,
                                  s->mstream));
    } else {
        const int i = w == s->width[0] ? 0 : 1;
        const cudaDataType type = s->b.prec == RT_FP64 ? CUDA_R_64F : CUDA_R_32F;
        const void *one = s->b.prec == RT_FP64 ? (const void *)&s->one_d : (const void *)&s->one_f;
        const void *zero =
            s->b.prec == RT_FP64 ? (const void *)&s->zero_d : (const void *)&s->zero_f;
        cusparseStatus_t st =
            cusparseDnMatSetValues(s->mat_b[i], (char *)s->d_b + (size_t)c0 * s->b.esize);
        if (st == CUSPARSE_STATUS_SUCCESS)
            st = cusparseDnMatSetValues(s->mat_o[i], out);
        if (st == CUSPARSE_STATUS_SUCCESS)
            st = cusparseSpMM(s->sp, CUSPARSE_OPERATION_NON_TRANSPOSE,
                              CUSPARSE_OPERATION_NON_TRANSPOSE, one, s->mat_a, s->mat_b[i], zero,
                              s->mat_o[i], type, s->alg, s->d_work[i]);
        if (st != CUSPARSE_STATUS_SUCCESS && x->ok) {
            x->ok = 0;
            rt_err_set(&x->err, "%s: cusparseSpMM failed: %s", s->what, cusparseGetErrorString(st));
        }
    }
    fail_cuda(s, x, "cudaEventRecord", cudaEventRecord(s->ev_mtime[2 * ch + 1], s->mstream));
    fail_cuda(s, x, "cudaEventRecord", cudaEventRecord(s->ev_mult[set], s->mstream));
}

static void reduce(gpu_state *s, void *dst, int64_t ldd, int64_t c0, const void *src,
                   const int64_t *src_rows, const int64_t *map, int64_t n, int64_t w, exec_ctx *x)
{
    const int e = dspmm_cuda_reduce_rows(s->stream, s->b.prec == RT_FP64, dst, ldd, c0, src,
                                         src_rows, map, n, w);
    fail_cuda(s, x, "the reduction kernel", (cudaError_t)e);
}

/* Hop k of chunk ch (width w, buffer set `set`) is posted in two parts, so that the host can
 * progress other MPI (an earlier stage's last hop) while the device copies this stage's rows out.
 * post_hop_begin posts the receives (tokens from IPC senders, rows from staged ones into pinned
 * memory, once the copy out of that pinned buffer's previous use is done) and queues the staged
 * rows' device-to-host copies; it fills req with the receives and returns how many. */
static int post_hop_begin(gpu_state *s, int k, int set, int64_t ch, const void *src, int64_t w,
                          MPI_Request *req, exec_ctx *x)
{
    const dspmm_hop_role *r = &s->b.role.hop[k];
    gpu_hop *h = &s->hop[k];
    const int tag = DSPMM_TAG_BASE + 2 * k + (int)(ch & 1);
    const size_t row_bytes = (size_t)w * s->b.esize;
    int n = 0;
    if (h->staged_recv) {
        /* The pinned receive buffer of this set was last copied to the device by the stage
         * `parities` before (an event never recorded is complete). */
        const double t0 = rt_clock_now();
        fail_cuda(s, x, "cudaEventSynchronize", cudaEventSynchronize(h->ev_hrecv_free[set]));
        s->b.t_staging += rt_clock_now() - t0;
    }
    for (int i = 0; i < r->n_recv; ++i) {
        const gpu_xfer *g = &h->recv[i];
        int rc;
        if (g->ipc)
            rc = MPI_Irecv(&h->tok_recv[set][i], 1, MPI_INT64_T, r->recv[i].peer, tag, s->b.mpi,
                           &req[n]);
        else
            rc = MPI_Irecv((char *)s->h_recv[k][set] + (size_t)g->off_rows * row_bytes,
                           (int)((size_t)r->recv[i].rows * row_bytes), MPI_BYTE, r->recv[i].peer,
                           tag, s->b.mpi, &req[n]);
        if (rc != MPI_SUCCESS) {
            req[n] = MPI_REQUEST_NULL;
            fail_mpi(s, x, "posting a receive", rc);
        }
        ++n;
    }
    /* Staged rows leave the device first (one copy per message, contiguous in my level buffer). */
    if (h->staged_send) {
        const int64_t piece = tl_begin(s, DSPMM_PH_D2H, x);
        for (int i = 0; i < r->n_send; ++i)
            if (!h->send[i].ipc) {
                const size_t at = (size_t)r->send[i].row_off * row_bytes;
                fail_cuda(s, x, "cudaMemcpyAsync (device to host)",
                          cudaMemcpyAsync((char *)s->h_send[k][set] + at, (const char *)src + at,
                                          (size_t)r->send[i].rows * row_bytes,
                                          cudaMemcpyDeviceToHost, s->stream));
            }
        tl_end(s, piece, x);
        fail_cuda(s, x, "cudaEventRecord", cudaEventRecord(h->ev_sent[set], s->stream));
    }
    return n;
}

/* The second part: once the staged rows are in pinned memory (MPI may read them only then), the
 * IPC rows are copied into their receivers' areas once the receivers have freed them (credits),
 * then every send is posted after the n receives in req. Returns the requests in req. */
static int post_hop_send(gpu_state *s, int k, int set, int64_t ch, const void *src, int64_t w,
                         MPI_Request *req, int n, exec_ctx *x)
{
    const dspmm_hop_role *r = &s->b.role.hop[k];
    gpu_hop *h = &s->hop[k];
    const int tag = DSPMM_TAG_BASE + 2 * k + (int)(ch & 1);
    const size_t row_bytes = (size_t)w * s->b.esize;
    if (k == 0 && (h->staged_send || h->ipc_send)) {
        /* The host is about to wait for copies that wait for this stage's multiply: wait for the
         * multiply first, outside every phase, so the staging and hop times do not count the
         * multiply again (time_kernel_s is its device time). Pipelined, the multiply ran behind
         * the previous stage and this costs nothing. */
        fail_cuda(s, x, "cudaEventSynchronize (multiply)",
                  cudaEventSynchronize(s->ev_mult[ch % s->b.stage_buffers]));
    }
    /* IPC rows go straight into the receiver's area, once it has reduced what the previous use of
     * that area held (its credit); the first uses of an execution need none, since every
     * execution ends with all ranks synchronized. All credits first, then all copies. */
    int any_ipc = 0;
    for (int i = 0; i < r->n_send; ++i) {
        if (!h->send[i].ipc)
            continue;
        any_ipc = 1;
        if (ch < h->dist)
            continue;
        int64_t credit = -1;
        MPI_Status st;
        const double t0 = rt_clock_now();
        const int rc = MPI_Recv(&credit, 1, MPI_INT64_T, r->send[i].peer,
                                TAG_CREDIT + 2 * k + (int)((ch - h->dist) & 1), s->b.mpi, &st);
        const double t1 = rt_clock_now();
        s->b.t_hop[k] += t1 - t0;
        tl_mpi(s, t0, t1, x);
        if (rc != MPI_SUCCESS)
            fail_mpi(s, x, "waiting for a receive area's credit", rc);
        else if (credit != ch - h->dist && x->ok) {
            x->ok = 0;
            rt_err_set(&x->err,
                       "%s: hop %d: rank %d freed its area for chunk %" PRId64
                       ", expected chunk %" PRId64,
                       s->what, k, r->send[i].peer, credit, ch - h->dist);
        }
    }
    if (any_ipc) {
        const int64_t piece = tl_begin(s, DSPMM_PH_IPC, x);
        for (int i = 0; i < r->n_send; ++i) {
            const gpu_xfer *g = &h->send[i];
            if (g->ipc && g->remote[set])
                fail_cuda(s, x, "cudaMemcpyAsync (CUDA IPC, device to device)",
                          cudaMemcpyAsync(
                              (char *)g->remote[set] + (size_t)g->off_rows * row_bytes,
                              (const char *)src + (size_t)r->send[i].row_off * row_bytes,
                              (size_t)r->send[i].rows * row_bytes, cudaMemcpyDefault, s->stream));
        }
        tl_end(s, piece, x);
    }
    /* One host wait covers both kinds of copy: MPI may read the staged rows only once they are
     * in pinned memory, and a token tells its receiver that the IPC rows are there. (Round 1
     * waited twice per stage, once for each kind; the staged sends were posted after the IPC
     * copies all the same, so the second wait only cost a round trip to the device.) */
    if (any_ipc)
        sync_event(s, h->ev_sent[set], x, h->staged_send ? &s->b.t_staging : &s->b.t_hop[k]);
    else if (h->staged_send) {
        const double t0 = rt_clock_now();
        fail_cuda(s, x, "cudaEventSynchronize", cudaEventSynchronize(h->ev_sent[set]));
        s->b.t_staging += rt_clock_now() - t0;
    }
    for (int i = 0; i < r->n_send; ++i) {
        const gpu_xfer *g = &h->send[i];
        const int64_t bytes = r->send[i].rows * (int64_t)row_bytes;
        int rc;
        if (g->ipc) {
            h->tok_send[set][i] = ch;
            rc = MPI_Isend(&h->tok_send[set][i], 1, MPI_INT64_T, r->send[i].peer, tag, s->b.mpi,
                           &req[n]);
        } else {
            rc = MPI_Isend((const char *)s->h_send[k][set] + (size_t)r->send[i].row_off * row_bytes,
                           (int)bytes, MPI_BYTE, r->send[i].peer, tag, s->b.mpi, &req[n]);
        }
        if (rc != MPI_SUCCESS) {
            req[n] = MPI_REQUEST_NULL;
            fail_mpi(s, x, "posting a send", rc);
        } else {
            /* The rows count as one message of their size whatever carried them. */
            rt_err cerr;
            rt_err_clear(&cerr);
            if (dspmm_sender_count(&s->b, r->send[i].peer, bytes, &cerr) != 0 && x->ok) {
                x->ok = 0;
                x->err = cerr;
            }
        }
        ++n;
    }
    return n;
}

/* Both parts at once (the blocking intermediate hops). */
static int post_hop(gpu_state *s, int k, int set, int64_t ch, const void *src, int64_t w,
                    MPI_Request *req, exec_ctx *x)
{
    const int n = post_hop_begin(s, k, set, ch, src, w, req, x);
    return post_hop_send(s, k, set, ch, src, w, req, n, x);
}

/* Waits for hop k's requests of chunk ch, checks what arrived against the plan and queues the
 * staged rows' copy onto the device (into the receive area, where IPC rows already are); the
 * reduction after it is ordered on the same stream, so the host does not wait here for the copy.
 */
static void wait_hop(gpu_state *s, int k, int set, int64_t ch, int n, MPI_Request *req, int64_t w,
                     exec_ctx *x)
{
    if (n == 0)
        return;
    const dspmm_hop_role *r = &s->b.role.hop[k];
    const gpu_hop *h = &s->hop[k];
    const size_t row_bytes = (size_t)w * s->b.esize;
    const double t0 = rt_clock_now();
    const int rc = MPI_Waitall(n, req, s->sts);
    const double t1 = rt_clock_now();
    s->b.t_hop[k] += t1 - t0;
    tl_mpi(s, t0, t1, x);
    if (rc != MPI_SUCCESS) {
        fail_mpi(s, x, "waiting for the partial rows", rc);
        return;
    }
    const int64_t piece = h->staged_recv ? tl_begin(s, DSPMM_PH_H2D, x) : -1;
    for (int i = 0; i < r->n_recv; ++i) {
        int got = -1;
        const gpu_xfer *g = &h->recv[i];
        if (g->ipc) {
            MPI_Get_count(&s->sts[i], MPI_INT64_T, &got);
            if ((got != 1 || h->tok_recv[set][i] != ch) && x->ok) {
                x->ok = 0;
                rt_err_set(&x->err,
                           "%s: hop %d: rank %d signalled chunk %" PRId64 ", expected %" PRId64,
                           s->what, k, r->recv[i].peer, got == 1 ? h->tok_recv[set][i] : -1, ch);
            }
            continue;
        }
        MPI_Get_count(&s->sts[i], MPI_BYTE, &got);
        const int64_t want = r->recv[i].rows * (int64_t)row_bytes;
        if ((int64_t)got != want && x->ok) {
            x->ok = 0;
            rt_err_set(&x->err, "%s: hop %d: rank %d sent %d bytes, the plan expects %" PRId64,
                       s->what, k, r->recv[i].peer, got, want);
        }
        const size_t at = (size_t)g->off_rows * row_bytes;
        fail_cuda(s, x, "cudaMemcpyAsync (host to device)",
                  cudaMemcpyAsync(
                      (char *)s->d_rbuf[k][set] + at, (const char *)s->h_recv[k][set] + at,
                      (size_t)r->recv[i].rows * row_bytes, cudaMemcpyHostToDevice, s->stream));
    }
    tl_end(s, piece, x);
    if (h->staged_recv)
        fail_cuda(s, x, "cudaEventRecord", cudaEventRecord(h->ev_hrecv_free[set], s->stream));
}

/* Adds the rows that stay with me (self) into dst (ld ldd, at column c0); stream-ordered. */
static void reduce_self(gpu_state *s, int k, const void *src, void *dst, int64_t ldd, int64_t c0,
                        int64_t w, exec_ctx *x)
{
    const gpu_hop *h = &s->hop[k];
    if (s->b.role.hop[k].n_self == 0)
        return;
    const int64_t piece = tl_begin(s, DSPMM_PH_REDUCE, x);
    reduce(s, dst, ldd, c0, src, h->d_self_src, h->d_self_dst, s->b.role.hop[k].n_self, w, x);
    tl_end(s, piece, x);
}

/* Adds what arrived at hop k (chunk ch, set `set`) into dst, peer by peer in the role's order,
 * then frees the IPC senders' areas (credits) when they will write them again in this execution:
 * only then does the host wait for the reduction. */
static void reduce_recv(gpu_state *s, int k, int set, int64_t ch, void *dst, int64_t ldd,
                        int64_t c0, int64_t w, exec_ctx *x)
{
    const dspmm_hop_role *r = &s->b.role.hop[k];
    gpu_hop *h = &s->hop[k];
    const double t0 = rt_clock_now();
    const int64_t piece = r->n_recv > 0 ? tl_begin(s, DSPMM_PH_REDUCE, x) : -1;
    for (int i = 0; i < r->n_recv; ++i)
        reduce(s, dst, ldd, c0,
               (const char *)s->d_rbuf[k][set] + (size_t)(h->recv[i].off_rows * w) * s->b.esize,
               NULL, h->recv[i].d_map, r->recv[i].rows, w, x);
    tl_end(s, piece, x);
    s->b.t_reduce += rt_clock_now() - t0;
    if (!h->ipc_recv || ch + h->dist >= s->b.chunks)
        return;
    /* The area must be read completely before a sender may overwrite it. */
    sync_event(s, h->ev_reduced[set], x, &s->b.t_reduce);
    for (int i = 0; i < r->n_recv; ++i) {
        if (!h->recv[i].ipc)
            continue;
        MPI_Request *cr = &h->credit_req[set][i];
        /* The previous credit from this slot was consumed before the sender wrote chunk ch. */
        if (*cr != MPI_REQUEST_NULL) {
            const double tw = rt_clock_now();
            const int rc = MPI_Wait(cr, MPI_STATUS_IGNORE);
            tl_mpi(s, tw, rt_clock_now(), x);
            if (rc != MPI_SUCCESS)
                fail_mpi(s, x, "completing a credit", rc);
        }
        h->credit_out[set][i] = ch;
        const int rc = MPI_Isend(&h->credit_out[set][i], 1, MPI_INT64_T, r->recv[i].peer,
                                 TAG_CREDIT + 2 * k + (int)(ch & 1), s->b.mpi, cr);
        if (rc != MPI_SUCCESS) {
            *cr = MPI_REQUEST_NULL;
            fail_mpi(s, x, "sending a credit", rc);
        }
    }
}

/* The last hop of one stage, posted and not yet finished. */
typedef struct stage_inflight {
    int set, n;
    int64_t ch, c0, w;
} stage_inflight;

static void finish_stage(gpu_state *s, const stage_inflight *f, exec_ctx *x)
{
    const int last = s->b.plan.hops - 1;
    wait_hop(s, last, f->set, f->ch, f->n, s->req[f->set], f->w, x);
    reduce_recv(s, last, f->set, f->ch, s->d_c, s->b.kb, f->c0, f->w, x);
}

/* Stage ch uses buffer set ch % stage_buffers. Its multiply was issued one stage ahead (on the
 * multiply stream); its local hops run blocking on the communication stream; its last hop is
 * posted and stays in flight until its set is needed again (at most stage_buffers - 1 stages in
 * flight when a stage posts), so its MPI overlaps the next stages. */
static int gpu_run(void *state, double *seconds, rt_err *err)
{
    gpu_state *s = state;
    dspmm_sender_base *b = &s->b;
    *seconds = -1.0; /* host wall time after the final stream synchronization (runner's clock) */
    exec_ctx x = {.ok = 1};
    rt_err_clear(&x.err);
    if (rt_cuda_ctx_make_current(s->ctx, &x.err) != 0)
        x.ok = 0;
    dspmm_sender_begin(b);
    tl_start(s, &x);
    const int last = b->plan.hops - 1;
    const int sets = b->stage_buffers;
    fail_cuda(s, &x, "cudaMemsetAsync",
              cudaMemsetAsync(s->d_c, 0, (size_t)(b->role.c_rows * b->kb) * b->esize, s->stream));

    stage_inflight fly[DSPMM_MAX_STAGE_BUFFERS];
    int64_t oldest = 0; /* stages [oldest, ch) are in flight; stage j is in fly[j % sets] */
    issue_multiply(s, 0, &x);
    for (int64_t ch = 0; ch < b->chunks; ++ch) {
        const int set = (int)(ch % sets);
        int64_t c0 = 0, w = 0;
        dspmm_sender_chunk(b, ch, &c0, &w);
        /* The next stage's multiply runs while this stage communicates. */
        if (ch + 1 < b->chunks)
            issue_multiply(s, ch + 1, &x);
        fail_cuda(s, &x, "cudaStreamWaitEvent", cudaStreamWaitEvent(s->stream, s->ev_mult[set], 0));
        const void *lev0 = s->d_lev[0][set];
        /* Intermediate hops: blocking, level k -> level k + 1. */
        for (int k = 0; k < last; ++k) {
            const void *src = k == 0 ? lev0 : s->d_lev[k][set];
            void *dst = s->d_lev[k + 1][set];
            const int n = post_hop(s, k, set, ch, src, w, s->req_local, &x);
            const int64_t piece = tl_begin(s, DSPMM_PH_REDUCE, &x);
            fail_cuda(s, &x, "cudaMemsetAsync",
                      cudaMemsetAsync(dst, 0, (size_t)(b->role.level_rows[k + 1] * w) * b->esize,
                                      s->stream));
            tl_end(s, piece, &x);
            reduce_self(s, k, src, dst, w, 0, w, &x);
            if (k == 0)
                fail_cuda(s, &x, "cudaEventRecord",
                          cudaEventRecord(s->ev_lev0_free[set], s->stream));
            wait_hop(s, k, set, ch, n, s->req_local, w, &x);
            reduce_recv(s, k, set, ch, dst, w, 0, w, &x);
        }
        /* This stage's last hop: receives posted and its staged rows' copy out queued first, so
         * the device copies them while the host completes (progresses) the MPI of the earlier
         * stages whose set the next stages need (with two sets: the previous stage); then its
         * sends. */
        stage_inflight *f = &fly[set];
        f->set = set;
        f->ch = ch;
        f->c0 = c0;
        f->w = w;
        const void *src = s->d_lev[last][set];
        f->n = post_hop_begin(s, last, set, ch, src, w, s->req[set], &x);
        while (oldest < ch && ch - oldest >= sets - 1)
            finish_stage(s, &fly[oldest++ % sets], &x);
        f->n = post_hop_send(s, last, set, ch, src, w, s->req[set], f->n, &x);
        reduce_self(s, last, src, s->d_c, b->kb, c0, w, &x);
        if (last == 0)
            fail_cuda(s, &x, "cudaEventRecord", cudaEventRecord(s->ev_lev0_free[set], s->stream));
    }
    while (oldest < b->chunks)
        finish_stage(s, &fly[oldest++ % sets], &x);
    /* Every credit sent in this execution was consumed by its sender in this execution. */
    for (int k = 0; k <= last; ++k)
        for (int set = 0; set < s->hop[k].parities; ++set)
            for (int i = 0; i < b->role.hop[k].n_recv; ++i)
                if (s->hop[k].credit_req[set][i] != MPI_REQUEST_NULL) {
                    const double tw = rt_clock_now();
                    const int rc = MPI_Wait(&s->hop[k].credit_req[set][i], MPI_STATUS_IGNORE);
                    tl_mpi(s, tw, rt_clock_now(), &x);
                    if (rc != MPI_SUCCESS)
                        fail_mpi(s, &x, "completing a credit", rc);
                }
    double t_final = 0.0;
    sync_stream(s, &x, &t_final);
    fail_cuda(s, &x, "cudaStreamSynchronize (multiply)", cudaStreamSynchronize(s->mstream));
    collect_multiply_times(s, &x);
    tl_collect(s, &x);
    /* The agreement also makes the next execution's IPC writes safe: no rank passes it before
     * every rank has finished (and synchronized) this execution's reductions. */
    return dspmm_sender_finish(b, x.ok, &x.err, err);
}

static int gpu_output(void *state, double *out, rt_err *err)
{
    gpu_state *s = state;
    rt_err local;
    rt_err_clear(&local);
    const size_t bytes = (size_t)(s->b.role.c_rows * s->b.kb) * s->b.esize;
    const int ok =
        bytes == 0 || rt_cuda_download(s->ctx, s->h_c, s->d_c, bytes, s->what, &local) == 0;
    const int rc = dspmm_sender_output(&s->b, ok ? s->h_c : NULL, out, err);
    if (rc != 0 && !ok)
        return rt_err_set(err, "%s", local.msg);
    return rc;
}

static int gpu_metrics(void *state, rt_metrics *m, rt_err *err)
{
    const gpu_state *s = state;
    return dspmm_sender_metrics(&s->b, NULL, m, err);
}

static int gpu_flush(void *state, rt_err *err)
{
    gpu_state *s = state;
    return rt_cuda_flush_l2(s->ctx, err);
}

static int gpu_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    dspmm_sender_cfg cfg;
    int ipc = 0;
    (void)self;
    memset(t, 0, sizeof *t);
    cusparseSpMMAlg_t alg = CUSPARSE_SPMM_ALG_DEFAULT;
    if (read_params(p, &cfg, &ipc, &alg, err) != 0)
        return -1;
    return dspmm_sender_traffic(KNAME, inputs, &cfg, env, t, err);
}

void rt_dspmm_cuda_sender_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    static const rt_cuda_point_hooks hooks = {gpu_check,   gpu_setup, gpu_run,      gpu_output,
                                              gpu_metrics, gpu_flush, gpu_teardown, gpu_traffic};
    rt_cuda_point_describe(d, entry(), &hooks, ctx);
}

void rt_dspmm_cuda_describe(int index, rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    if (index == 0)
        rt_dspmm_cuda_sender_describe(d, ctx);
}
