#include "spmm_cpu_tiled.h"

#include <inttypes.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cpu_kernel.h"
#include "rt_clock.h"
#include "rt_schema.h"
#include "rt_tables.h"
#include "spmm_cpu_common.h"
#include "spmm_family.h"
#include "spmm_tiled.h"
#include "spmm_traffic.h"

#define TILED_WARP_SIZE 32

static const rt_param_schema tiled_params[] = {
    RT_PARAM_INT("block_size", "32..1024", "256",
                 "rows per thread block (a multiple of 32 with ELL staging)"),
    RT_PARAM_INT("buffer_kib", "1..228", "48", "shared memory per block, KiB"),
    RT_PARAM_INT("register_tile", "1..64", "8", "columns of C computed per work item"),
    RT_PARAM_STR("staging", "ell|csr", "ell", "stage storage: ELL padded per warp, or CSR per row"),
    RT_PARAM_INT("index_bytes", "2|4", "2", "bytes per staged shared-memory index"),
};
#define TILED_N_PARAMS ((int)(sizeof tiled_params / sizeof tiled_params[0]))

typedef struct tiled_state {
    const rt_spmm_inputs *in;
    rt_tiled_plan plan;
    int64_t register_tile;
    float *val32; /* plan values in fp32 for fp32 points */
    rt_dense c;
    int team;
    void *scratch; /* per thread: buffsize * register_tile staged values, then the accumulators */
    int64_t scratch_elems;
    double preprocess_s;
} tiled_state;

/* Reads the parameters and derives the plan parameters for precision prec. Returns 0,
 * RT_INFEASIBLE (why filled) or -1. */
static int read_params(const rt_kernel_desc *self, const rt_params *p, rt_precision prec,
                       rt_tiled_params *tp, int64_t *register_tile, char *why, size_t whylen,
                       rt_err *err)
{
    int64_t block_size = 0, buffer_kib = 0, rtile = 0, index_bytes = 0;
    char staging[8];
    if (rt_schema_int(tiled_params, TILED_N_PARAMS, self->name, p, "block_size", &block_size,
                      err) != 0 ||
        rt_schema_int(tiled_params, TILED_N_PARAMS, self->name, p, "buffer_kib", &buffer_kib,
                      err) != 0 ||
        rt_schema_int(tiled_params, TILED_N_PARAMS, self->name, p, "register_tile", &rtile, err) !=
            0 ||
        rt_schema_int(tiled_params, TILED_N_PARAMS, self->name, p, "index_bytes", &index_bytes,
                      err) != 0 ||
        rt_schema_str(tiled_params, TILED_N_PARAMS, self->name, p, "staging", staging,
                      sizeof staging, err) != 0)
        return -1;
    memset(tp, 0, sizeof *tp);
    tp->block_size = (int)block_size;
    tp->warp_size = TILED_WARP_SIZE;
    tp->use_ell = strcmp(staging, "ell") == 0;
    tp->index_bytes = (int)index_bytes;
    tp->buffsize = buffer_kib * 1024 / (rtile * (int64_t)rt_precision_bytes(prec));
    *register_tile = rtile;
    if (tp->use_ell && block_size % TILED_WARP_SIZE != 0) {
        snprintf(why, whylen,
                 "block_size = %" PRId64 " is not a multiple of the warp size %d, which ELL "
                 "staging needs",
                 block_size, TILED_WARP_SIZE);
        return RT_INFEASIBLE;
    }
    if (tp->buffsize < 1) {
        snprintf(why, whylen, "buffer_kib = %" PRId64 " holds no slot of %" PRId64 " values",
                 buffer_kib, rtile);
        return RT_INFEASIBLE;
    }
    if (tp->index_bytes == 2 && tp->buffsize > 65536) {
        snprintf(why, whylen,
                 "buffsize = %" PRId64 " slots cannot be addressed with "
                 "index_bytes = 2",
                 tp->buffsize);
        return RT_INFEASIBLE;
    }
    return 0;
}

static int tiled_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    const rt_spmm_inputs *in = inputs;
    rt_tiled_params tp;
    int64_t rtile = 0;
    return read_params(self, p, in ? in->prec : RT_FP32, &tp, &rtile, why, whylen, err);
}

static void tiled_teardown(void *state)
{
    tiled_state *s = state;
    if (!s)
        return;
    rt_tiled_plan_free(&s->plan);
    free(s->val32);
    free(s->scratch);
    rt_dense_free(&s->c);
    free(s);
}

static int tiled_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, void **state, rt_err *err)
{
    const rt_spmm_inputs *in = inputs;
    *state = NULL;
    if (!in)
        return rt_err_set(err, "%s: no inputs", self->name);
    rt_tiled_params tp;
    int64_t rtile = 0;
    char why[256] = "";
    const int rc = read_params(self, p, in->prec, &tp, &rtile, why, sizeof why, err);
    if (rc != 0) {
        if (rc == RT_INFEASIBLE)
            rt_err_set(err, "%s", why);
        return rc;
    }
    tiled_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory", self->name);
    s->in = in;
    s->register_tile = rtile;
    const double t0 = rt_clock_now();
    if (rt_tiled_plan_build(in->a, &tp, &s->plan, err) != 0) {
        free(s);
        return rt_err_prefix(err, "%s", self->name);
    }
    s->preprocess_s = rt_clock_now() - t0;
    if (in->prec == RT_FP32) {
        s->val32 = rt_spmm_values_to_float(s->plan.value, s->plan.stored, err);
        if (!s->val32) {
            tiled_teardown(s);
            return rt_err_prefix(err, "%s", self->name);
        }
    }
    if (rt_spmm_cpu_alloc_output(in, &s->c, err) != 0) {
        tiled_teardown(s);
        return rt_err_prefix(err, "%s", self->name);
    }
    s->team = rt_cpu_available_cores(env);
    s->scratch_elems = tp.buffsize * rtile + (int64_t)tp.block_size * rtile;
    s->scratch = calloc((size_t)s->team * (size_t)s->scratch_elems, rt_precision_bytes(in->prec));
    if (!s->scratch) {
        const int team = s->team;
        const int64_t elems = s->scratch_elems;
        tiled_teardown(s);
        return rt_err_set(err, "%s: out of memory for %d staging buffers of %" PRId64 " values",
                          self->name, team, elems);
    }
    *state = s;
    return 0;
}

/* One definition per (value type T, index type IT). The local buffer holds slot i's register
 * tile contiguously (shared[i * rt + k]) so the innermost loop over k vectorises on a CPU; on the
 * GPU the same values sit at shared[k * buffsize + i]. Both orders give each output the same
 * sequence of multiply-adds. */
#define RT_SPMM_CPU_TILED(NAME, T, IT, INDEX_FIELD)                                                \
    static void NAME(const tiled_state *st, const T *restrict val)                                 \
    {                                                                                              \
        const rt_tiled_plan *pl = &st->plan;                                                       \
        const rt_spmm_inputs *in = st->in;                                                         \
        const int64_t k = in->k, rt = st->register_tile, bs = pl->p.block_size;                    \
        const int64_t ws = pl->p.warp_size, wpb = pl->warps_per_block;                             \
        const int64_t ntiles = (k + rt - 1) / rt, nitems = pl->nblocks * ntiles;                   \
        const int64_t rows = pl->rows, ldb = in->b.ld, ldc = st->c.ld;                             \
        const int row_major = in->layout == RT_ROW_MAJOR;                                          \
        const IT *restrict index = pl->INDEX_FIELD;                                                \
        const T *restrict b = in->b.data;                                                          \
        T *restrict c = st->c.data;                                                                \
        T *restrict scratch = st->scratch;                                                         \
        _Pragma("omp parallel for schedule(dynamic, 1) num_threads(st->team)") for (int64_t item = \
                                                                                        0;         \
                                                                                    item < nitems; \
                                                                                    ++item)        \
        {                                                                                          \
            T *restrict shared = scratch + (int64_t)omp_get_thread_num() * st->scratch_elems;      \
            T *restrict acc = shared + pl->p.buffsize * rt;                                        \
            const int64_t blk = item / ntiles, k0 = (item % ntiles) * rt;                          \
            const int64_t kw = k0 + rt < k ? rt : k - k0;                                          \
            for (int64_t i = 0; i < bs * rt; ++i)                                                  \
                acc[i] = 0;                                                                        \
            for (int64_t s = pl->buffdispl[blk]; s < pl->buffdispl[blk + 1]; ++s) {                \
                const int32_t *restrict map = pl->map + pl->mapdispl[s];                           \
                const int64_t slots = pl->mapdispl[s + 1] - pl->mapdispl[s];                       \
                for (int64_t i = 0; i < slots; ++i) {                                              \
                    const int64_t col = map[i];                                                    \
                    if (row_major) {                                                               \
                        _Pragma("omp simd") for (int64_t q = 0; q < kw; ++q) shared[i * rt + q] =  \
                            b[col * ldb + k0 + q];                                                 \
                    } else                                                                         \
                        for (int64_t q = 0; q < kw; ++q)                                           \
                            shared[i * rt + q] = b[(k0 + q) * ldb + col];                          \
                }                                                                                  \
                if (wpb > 0) {                                                                     \
                    for (int64_t w = 0; w < wpb; ++w)                                              \
                        for (int64_t m = pl->displ[s * wpb + w]; m < pl->displ[s * wpb + w + 1];   \
                             ++m)                                                                  \
                            for (int64_t lane = 0; lane < ws; ++lane) {                            \
                                const int64_t e = m * ws + lane;                                   \
                                const T v = val[e];                                                \
                                const T *restrict src = shared + (int64_t)index[e] * rt;           \
                                T *restrict dst = acc + (w * ws + lane) * rt;                      \
                                _Pragma("omp simd") for (int64_t q = 0; q < kw; ++q) dst[q] +=     \
                                    v * src[q];                                                    \
                            }                                                                      \
                } else {                                                                           \
                    for (int64_t lr = 0; lr < bs; ++lr) {                                          \
                        T *restrict dst = acc + lr * rt;                                           \
                        for (int64_t e = pl->rowdispl[s * bs + lr];                                \
                             e < pl->rowdispl[s * bs + lr + 1]; ++e) {                             \
                            const T v = val[e];                                                    \
                            const T *restrict src = shared + (int64_t)index[e] * rt;               \
                            _Pragma("omp simd") for (int64_t q = 0; q < kw; ++q) dst[q] +=         \
                                v * src[q];                                                        \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
            const int64_t r0 = blk * bs;                                                           \
            const int64_t r1 = r0 + bs < rows ? r0 + bs : rows;                                    \
            for (int64_t r = r0; r < r1; ++r)                                                      \
                for (int64_t q = 0; q < kw; ++q) {                                                 \
                    if (row_major)                                                                 \
                        c[r * ldc + k0 + q] = acc[(r - r0) * rt + q];                              \
                    else                                                                           \
                        c[(k0 + q) * ldc + r] = acc[(r - r0) * rt + q];                            \
                }                                                                                  \
        }                                                                                          \
    }

RT_SPMM_CPU_TILED(tiled_f32_i16, float, uint16_t, index16)
RT_SPMM_CPU_TILED(tiled_f32_i32, float, int32_t, index32)
RT_SPMM_CPU_TILED(tiled_f64_i16, double, uint16_t, index16)
RT_SPMM_CPU_TILED(tiled_f64_i32, double, int32_t, index32)

static int tiled_run(void *state, double *seconds, rt_err *err)
{
    const tiled_state *s = state;
    const int narrow = s->plan.index16 != NULL;
    if (s->in->prec == RT_FP32) {
        if (narrow)
            tiled_f32_i16(s, s->val32);
        else
            tiled_f32_i32(s, s->val32);
    } else {
        if (narrow)
            tiled_f64_i16(s, s->plan.value);
        else
            tiled_f64_i32(s, s->plan.value);
    }
    *seconds = -1.0; /* the runner's wall clock times host kernels */
    return 0;
}

static int tiled_output(void *state, double *out, rt_err *err)
{
    const tiled_state *s = state;
    rt_spmm_dense_to_rowmajor(&s->c, out);
    return 0;
}

static int tiled_metrics(void *state, rt_metrics *m, rt_err *err)
{
    const tiled_state *s = state;
    rt_tiled_plan_metrics(&s->plan, m);
    rt_metrics_add(
        m, "staged_bytes", "bytes",
        (double)s->plan.nmap * (double)s->in->k * (double)rt_precision_bytes(s->in->prec), 1);
    rt_metrics_add(m, "buffsize", "count", (double)s->plan.p.buffsize, 1);
    rt_metrics_add(m, "preprocess_s", "s", s->preprocess_s, 0);
    rt_metrics_add(m, "threads", "count", (double)s->team, 0);
    return 0;
}

/* Traffic of one execution (spmm_traffic.h): DRAM compulsory with A as the plan this kernel
 * reads (values in the point's precision, 2- or 4-byte shared indices, stage ranges, maps), and
 * the shared level as the kernel's own model: each thread's local buffer stands in for a GPU
 * block's shared memory, written once per staged entry and read once per stored entry (padding
 * included), kw columns at a time over all of K. A CPU machine has no shared ceiling, so the bound
 * leaves that term out there (rt_bound.h); the metric still records what the kernel moves.
 * The plan is rebuilt here (the same O(nnz log) work as setup): the hook gets no kernel state. */
static int tiled_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                         const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const rt_spmm_inputs *in = inputs;
    if (!in)
        return rt_err_set(err, "%s: traffic model needs the inputs", self->name);
    rt_tiled_params tp;
    int64_t rtile = 0;
    char why[256] = "";
    const int rc = read_params(self, p, in->prec, &tp, &rtile, why, sizeof why, err);
    if (rc != 0)
        return rc == RT_INFEASIBLE
                   ? rt_err_set(err, "%s: no traffic model for an infeasible point: %s", self->name,
                                why)
                   : -1;
    rt_tiled_plan plan;
    if (rt_tiled_plan_build(in->a, &tp, &plan, err) != 0) {
        rt_tiled_plan_free(&plan);
        return rt_err_prefix(err, "%s: traffic model", self->name);
    }
    const size_t elem = rt_precision_bytes(in->prec);
    const double a_bytes =
        rt_spmm_tiled_plan_bytes(&plan.p, plan.nblocks, plan.nstages, plan.nmap, plan.stored, elem);
    const double shared = rt_spmm_tiled_shared_bytes(plan.nmap, plan.stored, in->k, elem);
    rt_tiled_plan_free(&plan);
    if (rt_spmm_traffic_fill(in, a_bytes, 0, t, err) != 0)
        return rt_err_prefix(err, "%s", self->name);
    t->bytes[RT_LEVEL_SHARED] = shared;
    return 0;
}

static const rt_kernel_desc tiled_desc =
    RT_CPU_KERNEL("spmm.cpu.tiled", "spmm",
                  "Tiled SpMM plan (staged B, register tiling) executed on the host as on a GPU",
                  tiled_params, tiled_check, tiled_setup, tiled_run, tiled_output, tiled_metrics,
                  tiled_teardown, tiled_traffic);

const rt_kernel_desc *rt_spmm_cpu_tiled_kernel(void)
{
    return &tiled_desc;
}
