#include "spmm_cpu_common.h"

#include <inttypes.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_schema.h"
#include "spmm_traffic.h"

int rt_spmm_cpu_alloc_output(const rt_spmm_inputs *in, rt_dense *c, rt_err *err)
{
    if (rt_dense_alloc(c, in->a->rows, in->k, in->layout, in->prec, err) != 0)
        return rt_err_prefix(err, "output C (%" PRId64 " x %" PRId64 ")", in->a->rows, in->k);
    /* Poisoned once here rather than before every run: a kernel that skips an output never
     * writes it, so the NAN survives to the verification of the first run, and re-poisoning
     * inside run() would add m x K stores to every timed execution. */
    rt_spmm_dense_poison(c);
    return 0;
}

int64_t rt_spmm_cpu_rowwise_chunks(const rt_spmm_cpu_rowwise *w)
{
    return w->rows > 0 ? (w->rows + w->row_block - 1) / w->row_block : 0;
}

/* One definition per precision: T is the storage and arithmetic type. Within a row the
 * accumulation runs over the nonzeros in stored order (increasing column), the same order as the
 * family reference, so fp64 results match it up to FMA contraction. */
#define RT_SPMM_CPU_ROWWISE(NAME, T)                                                               \
    static void NAME(const rt_spmm_cpu_rowwise *w)                                                 \
    {                                                                                              \
        const int64_t k = w->k, cb = w->col_block, rb = w->row_block, rows = w->rows;              \
        const int64_t ldb = w->ldb, ldc = w->ldc;                                                  \
        const int64_t nchunks = rt_spmm_cpu_rowwise_chunks(w);                                     \
        const int64_t *restrict rowptr = w->rowptr;                                                \
        const int64_t *restrict slice_ptr = w->slice_ptr;                                          \
        const int32_t *restrict slice_width = w->slice_width;                                      \
        const int64_t h = w->slice_height > 0 ? w->slice_height : 1;                               \
        const int32_t *restrict colidx = w->colidx;                                                \
        const T *restrict val = w->val;                                                            \
        const T *restrict b = w->b;                                                                \
        T *restrict c = w->c;                                                                      \
        T *restrict scratch = w->scratch;                                                          \
        const int row_major = w->layout == RT_ROW_MAJOR;                                           \
        _Pragma(                                                                                   \
            "omp parallel for schedule(dynamic, 1) num_threads(w->team)") for (int64_t chunk = 0;  \
                                                                               chunk < nchunks;    \
                                                                               ++chunk)            \
        {                                                                                          \
            T *restrict acc = scratch + (int64_t)omp_get_thread_num() * cb;                        \
            const int64_t r0 = chunk * rb;                                                         \
            const int64_t r1 = r0 + rb < rows ? r0 + rb : rows;                                    \
            for (int64_t r = r0; r < r1; ++r) {                                                    \
                int64_t start, count, stride;                                                      \
                if (slice_ptr) {                                                                   \
                    start = slice_ptr[r / h] + r % h;                                              \
                    count = slice_width[r / h];                                                    \
                    stride = h;                                                                    \
                } else {                                                                           \
                    start = rowptr[r];                                                             \
                    count = rowptr[r + 1] - rowptr[r];                                             \
                    stride = 1;                                                                    \
                }                                                                                  \
                for (int64_t j0 = 0; j0 < k; j0 += cb) {                                           \
                    const int64_t jw = j0 + cb < k ? cb : k - j0;                                  \
                    for (int64_t j = 0; j < jw; ++j)                                               \
                        acc[j] = 0;                                                                \
                    for (int64_t t = 0; t < count; ++t) {                                          \
                        const int64_t e = start + t * stride;                                      \
                        const T v = val[e];                                                        \
                        const int64_t col = colidx[e];                                             \
                        if (row_major) {                                                           \
                            const T *restrict brow = b + col * ldb + j0;                           \
                            _Pragma("omp simd") for (int64_t j = 0; j < jw; ++j) acc[j] +=         \
                                v * brow[j];                                                       \
                        } else {                                                                   \
                            const T *restrict bcol = b + j0 * ldb + col;                           \
                            for (int64_t j = 0; j < jw; ++j)                                       \
                                acc[j] += v * bcol[j * ldb];                                       \
                        }                                                                          \
                    }                                                                              \
                    if (row_major) {                                                               \
                        T *restrict crow = c + r * ldc + j0;                                       \
                        _Pragma("omp simd") for (int64_t j = 0; j < jw; ++j) crow[j] = acc[j];     \
                    } else {                                                                       \
                        T *restrict ccol = c + j0 * ldc + r;                                       \
                        for (int64_t j = 0; j < jw; ++j)                                           \
                            ccol[j * ldc] = acc[j];                                                \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

RT_SPMM_CPU_ROWWISE(rowwise_f32, float)
RT_SPMM_CPU_ROWWISE(rowwise_f64, double)

void rt_spmm_cpu_rowwise_run(const rt_spmm_cpu_rowwise *w)
{
    if (w->prec == RT_FP32)
        rowwise_f32(w);
    else
        rowwise_f64(w);
}

int rt_spmm_cpu_rowwise_params(const rt_kernel_desc *self, const rt_params *p,
                               const rt_kernel_env *env, int64_t k, rt_spmm_cpu_rowwise *w,
                               char *why, size_t whylen, rt_err *err)
{
    int64_t row_block = 0, col_block = 0, threads = 0;
    if (rt_schema_int(self->params, self->n_params, self->name, p, "row_block", &row_block, err) !=
            0 ||
        rt_schema_int(self->params, self->n_params, self->name, p, "col_block", &col_block, err) !=
            0 ||
        rt_schema_int(self->params, self->n_params, self->name, p, "threads", &threads, err) != 0)
        return -1;
    int team = 1;
    const int rc = rt_cpu_resolve_threads(threads, env, &team, why, whylen);
    if (rc != 0)
        return rc;
    w->row_block = row_block;
    w->col_block = col_block < k ? col_block : k;
    w->team = team;
    return 0;
}

int rt_spmm_cpu_rowwise_bind(rt_spmm_cpu_rowwise *w, const rt_spmm_inputs *in, rt_dense *c,
                             rt_err *err)
{
    if (rt_spmm_cpu_alloc_output(in, c, err) != 0)
        return -1;
    w->rows = in->a->rows;
    w->k = in->k;
    w->prec = in->prec;
    w->layout = in->layout;
    w->b = in->b.data;
    w->ldb = in->b.ld;
    w->c = c->data;
    w->ldc = c->ld;
    const size_t elem = rt_precision_bytes(in->prec);
    const size_t n = (size_t)w->team * (size_t)w->col_block;
    w->scratch = calloc(n > 0 ? n : 1, elem);
    if (!w->scratch) {
        rt_dense_free(c);
        return rt_err_set(err, "out of memory for %d accumulators of %" PRId64 " columns", w->team,
                          w->col_block);
    }
    return 0;
}

void rt_spmm_cpu_rowwise_unbind(rt_spmm_cpu_rowwise *w, rt_dense *c)
{
    free(w->scratch);
    w->scratch = NULL;
    if (c->data)
        rt_dense_free(c);
    memset(c, 0, sizeof *c);
}

int rt_spmm_cpu_rowwise_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                              const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    const rt_spmm_inputs *in = inputs;
    rt_spmm_cpu_rowwise w;
    memset(&w, 0, sizeof w);
    return rt_spmm_cpu_rowwise_params(self, p, env, in ? in->k : 1, &w, why, whylen, err);
}

int rt_spmm_cpu_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                        const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const rt_spmm_inputs *in = inputs;
    if (!in)
        return rt_err_set(err, "%s: traffic model needs the inputs", self->name);
    /* CSR as the row-wise kernel reads it: values in the point's precision, 4-byte columns,
     * 8-byte row offsets. */
    const double a_bytes = (double)in->a->nnz * ((double)rt_precision_bytes(in->prec) + 4.0) +
                           (double)(in->a->rows + 1) * 8.0;
    if (rt_spmm_traffic_fill(in, a_bytes, 0, t, err) != 0)
        return rt_err_prefix(err, "%s", self->name);
    return 0;
}

int rt_spmm_cpu_point_begin(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                            const rt_kernel_env *env, size_t state_bytes, void **state, rt_err *err)
{
    const rt_spmm_inputs *in = inputs;
    *state = NULL;
    if (!in)
        return rt_err_set(err, "%s: no inputs", self->name);
    rt_spmm_cpu_point *pt = calloc(1, state_bytes);
    if (!pt)
        return rt_err_set(err, "%s: out of memory", self->name);
    char why[256] = "";
    const int rc = rt_spmm_cpu_rowwise_params(self, p, env, in->k, &pt->w, why, sizeof why, err);
    if (rc != 0) {
        free(pt);
        if (rc == RT_INFEASIBLE)
            rt_err_set(err, "%s", why);
        return rc;
    }
    if (rt_spmm_cpu_rowwise_bind(&pt->w, in, &pt->c, err) != 0) {
        rt_spmm_cpu_rowwise_unbind(&pt->w, &pt->c);
        free(pt);
        return rt_err_prefix(err, "%s", self->name);
    }
    *state = pt;
    return 0;
}

int rt_spmm_cpu_point_values(rt_spmm_cpu_point *pt, const double *val, int64_t n, rt_err *err)
{
    if (pt->w.prec == RT_FP32) {
        pt->val32 = rt_spmm_values_to_float(val, n, err);
        if (!pt->val32)
            return -1;
        pt->w.val = pt->val32;
    } else {
        pt->w.val = val;
    }
    pt->team_started = rt_cpu_team_size(pt->w.team);
    return 0;
}

void rt_spmm_cpu_point_end(rt_spmm_cpu_point *pt)
{
    rt_spmm_cpu_rowwise_unbind(&pt->w, &pt->c);
    free(pt->val32);
    pt->val32 = NULL;
}

int rt_spmm_cpu_point_run(void *state, double *seconds, rt_err *err)
{
    const rt_spmm_cpu_point *pt = state;
    rt_spmm_cpu_rowwise_run(&pt->w);
    *seconds = -1.0; /* the runner's wall clock times host kernels */
    return 0;
}

int rt_spmm_cpu_point_output(void *state, double *out, rt_err *err)
{
    const rt_spmm_cpu_point *pt = state;
    rt_spmm_dense_to_rowmajor(&pt->c, out);
    return 0;
}

void rt_spmm_cpu_point_metrics(const rt_spmm_cpu_point *pt, rt_metrics *m)
{
    /* The team depends on the machine when threads = 0, so it is not a deterministic fact. */
    rt_metrics_add(m, "threads", "count", (double)pt->team_started, 0);
    rt_metrics_add(m, "chunks", "count", (double)rt_spmm_cpu_rowwise_chunks(&pt->w), 1);
    rt_metrics_add(m, "col_block_used", "count", (double)pt->w.col_block, 1);
}
