#include "sptrsv_cuda_pdata.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "rt_clock.h"
#include "rt_cuda_variant.h"
#include "sptrsv_pexec.h"

/* An int64 array as int32 (the kernel's indices), failing on a value that does not fit. */
static int32_t *narrow(const int64_t *v, int64_t n, const char *what, const char *name, rt_err *err)
{
    int32_t *o = malloc((size_t)(n > 0 ? n : 1) * sizeof *o);
    if (!o) {
        rt_err_set(err, "%s: out of host memory for %s", name, what);
        return NULL;
    }
    for (int64_t i = 0; i < n; ++i) {
        if (v[i] > INT32_MAX || v[i] < INT32_MIN) {
            free(o);
            rt_err_set(err, "%s: the plan's %s exceed 32 bits (%" PRId64 ")", name, what, v[i]);
            return NULL;
        }
        o[i] = (int32_t)v[i];
    }
    return o;
}

static int32_t *narrow_int(const int *v, int64_t n, const char *what, const char *name, rt_err *err)
{
    int32_t *o = malloc((size_t)(n > 0 ? n : 1) * sizeof *o);
    if (!o) {
        rt_err_set(err, "%s: out of host memory for %s", name, what);
        return NULL;
    }
    for (int64_t i = 0; i < n; ++i)
        o[i] = v[i];
    return o;
}

/* The plan arrays the kernel reads, in the order of d->plan. */
typedef struct plan_host {
    void *a[SPTRSV_PDATA_PLAN_ARRAYS];
    size_t bytes[SPTRSV_PDATA_PLAN_ARRAYS];
    int owned[SPTRSV_PDATA_PLAN_ARRAYS]; /* 1: a host copy made here (freed here) */
} plan_host;

enum {
    A_TICKET,
    A_STEP_PTR,
    A_STEP,
    A_WAIT_PTR,
    A_WAIT,
    A_CH_SUPER,
    A_CH_P0,
    A_CH_P1,
    A_OUT_PTR,
    A_OUT,
    A_HOME,
    A_TARGET,
    A_XDST_PTR,
    A_XDST,
    A_RECV_PTR,
    A_RECV_OFF,
    A_RED_OFF,
    A_INV_OFF,
    A_INV,
    A_COUNT
};
_Static_assert((int)A_COUNT <= (int)SPTRSV_PDATA_PLAN_ARRAYS, "room for every plan array");

static int host_arrays(const char *name, const sptrsv_factor *f, const sptrsv_pplan *p, int part,
                       plan_host *h, double *inverse_s, rt_err *err)
{
    const int64_t ns = p->nsuper, nt = p->ntasks, nch = p->nchunks;
    memset(h, 0, sizeof *h);
#define NARROW(slot, src, count, what)                                                             \
    do {                                                                                           \
        h->a[slot] = narrow(src, count, what, name, err);                                          \
        h->bytes[slot] = (size_t)((count) > 0 ? (count) : 1) * sizeof(int32_t);                    \
        h->owned[slot] = 1;                                                                        \
        if (!h->a[slot])                                                                           \
            return -1;                                                                             \
    } while (0)
#define SHARE(slot, src, count)                                                                    \
    do {                                                                                           \
        h->a[slot] = (void *)(src);                                                                \
        h->bytes[slot] = (size_t)((count) > 0 ? (count) : 1) * sizeof(int64_t);                    \
    } while (0)
    const int64_t t0 = p->ticket_ptr[part], tn = p->ticket_ptr[part + 1] - t0;
    NARROW(A_TICKET, p->ticket + t0, tn, "tickets");
    NARROW(A_STEP_PTR, p->task_step_ptr, nt + 1, "step pointers");
    NARROW(A_STEP, p->task_step, p->task_step_ptr[nt], "steps");
    NARROW(A_WAIT_PTR, p->task_wait_ptr, nt + 1, "wait pointers");
    NARROW(A_WAIT, p->task_wait, p->task_wait_ptr[nt], "waits");
    NARROW(A_CH_SUPER, p->ch_super, nch, "chunk supernodes");
    h->a[A_CH_P0] = (void *)p->ch_p0;
    h->bytes[A_CH_P0] = (size_t)(nch > 0 ? nch : 1) * sizeof(int32_t);
    h->a[A_CH_P1] = (void *)p->ch_p1;
    h->bytes[A_CH_P1] = (size_t)(nch > 0 ? nch : 1) * sizeof(int32_t);
    NARROW(A_OUT_PTR, p->ch_out_ptr, nch + 1, "output pointers");
    NARROW(A_OUT, p->ch_out, p->ch_out_ptr[nch], "outputs");
    h->a[A_HOME] = narrow_int(p->home, ns, "owners", name, err);
    h->bytes[A_HOME] = (size_t)(ns > 0 ? ns : 1) * sizeof(int32_t);
    h->owned[A_HOME] = 1;
    if (!h->a[A_HOME])
        return -1;
    SHARE(A_TARGET, p->target + (int64_t)part * ns, ns);
    NARROW(A_XDST_PTR, p->xdst_ptr, ns + 1, "x destination pointers");
    h->a[A_XDST] = narrow_int(p->xdst, p->xdst_ptr[ns], "x destinations", name, err);
    h->bytes[A_XDST] = (size_t)(p->xdst_ptr[ns] > 0 ? p->xdst_ptr[ns] : 1) * sizeof(int32_t);
    h->owned[A_XDST] = 1;
    if (!h->a[A_XDST])
        return -1;
    NARROW(A_RECV_PTR, p->recv_ptr, ns + 1, "receive pointers");
    SHARE(A_RECV_OFF, p->recv_off, p->recv_ptr[ns]);
    SHARE(A_RED_OFF, p->red_off + (int64_t)part * ns, ns);
#undef NARROW
#undef SHARE
    /* The inverses of this part's diagonal blocks; the backward solve reads their transposes. */
    const double t = rt_clock_now();
    double *inv = NULL;
    int64_t *off = NULL, total = 0;
    if (sptrsv_pexec_inverses(f, p, part, &inv, &off, &total, err) != 0)
        return rt_err_prefix(err, "%s", name);
    if (p->o.backward)
        for (int64_t s = 0; s < ns; ++s) {
            if (off[s] < 0)
                continue;
            const int64_t nc = sptrsv_ncols(f, s);
            double *m = inv + off[s];
            for (int64_t i = 0; i < nc; ++i)
                for (int64_t j = i + 1; j < nc; ++j) {
                    const double v = m[i * nc + j];
                    m[i * nc + j] = m[j * nc + i];
                    m[j * nc + i] = v;
                }
        }
    *inverse_s = rt_clock_now() - t;
    h->a[A_INV_OFF] = off;
    h->bytes[A_INV_OFF] = (size_t)(ns > 0 ? ns : 1) * sizeof(int64_t);
    h->owned[A_INV_OFF] = 1;
    h->a[A_INV] = inv;
    h->bytes[A_INV] = (size_t)(total > 0 ? total : 1) * sizeof(double);
    h->owned[A_INV] = 1;
    return 0;
}

static void host_free(plan_host *h)
{
    for (int i = 0; i < A_COUNT; ++i)
        if (h->owned[i])
            free(h->a[i]);
}

static int alloc_zero(rt_cuda_ctx *ctx, void **ptr, size_t bytes, const char *what, rt_err *err)
{
    const int rc = rt_cuda_alloc(ctx, ptr, bytes, what, err);
    if (rc != 0)
        return rc;
    return rt_cuda_fill(ctx, *ptr, 0, bytes, what, err);
}

int sptrsv_cuda_pdata_create(const char *name, rt_cuda_ctx *ctx, const rt_sptrsv_inputs *in,
                             const sptrsv_pplan *p, int part, sptrsv_cuda_pdata *d, rt_err *err)
{
    memset(d, 0, sizeof *d);
    d->ctx = ctx;
    const sptrsv_factor *f = &in->f;
    const int64_t ns = p->nsuper, nk = in->n * in->nrhs;
    if (rt_cuda_ctx_make_current(ctx, err) != 0)
        return -1;
    plan_host h;
    int rc = host_arrays(name, f, p, part, &h, &d->inverse_s, err);
    const double t0 = rt_clock_now();
    if (rc == 0)
        rc = sptrsv_cuda_superdata_create(name, ctx, in, &d->sd, err);
    for (int i = 0; i < A_COUNT && rc == 0; ++i)
        rc = rt_cuda_upload_new(ctx, h.a[i], h.bytes[i], &d->plan[i], "the plan", err);
    host_free(&h);
    const size_t vb = (size_t)(nk > 0 ? nk : 1) * sizeof(double);
    const size_t fb = (size_t)(ns > 0 ? ns : 1) * sizeof(unsigned long long);
    const size_t rb = (size_t)(p->recv_doubles[part] > 0 ? p->recv_doubles[part] : 1) * 8;
    d->trace_words = 4 * (p->ticket_ptr[part + 1] - p->ticket_ptr[part]);
    if (rc == 0)
        rc = rt_cuda_upload_new(ctx, in->b, vb, (void **)&d->b, "B", err);
    if (rc == 0)
        rc = rt_cuda_alloc(ctx, (void **)&d->x, vb, "X", err);
    if (rc == 0) /* NaN: a row no step writes fails the gate */
        rc = rt_cuda_fill(ctx, d->x, 0xff, vb, "X", err);
    if (rc == 0)
        rc = alloc_zero(ctx, (void **)&d->lsum, vb, "the partial sums", err);
    if (rc == 0)
        rc = alloc_zero(ctx, (void **)&d->recv, rb, "the reduction slots", err);
    if (rc == 0)
        rc = alloc_zero(ctx, (void **)&d->xflag, fb, "the x flags", err);
    if (rc == 0)
        rc = alloc_zero(ctx, (void **)&d->count, fb, "the counters", err);
    if (rc == 0)
        rc = alloc_zero(ctx, (void **)&d->ticket_ctr, sizeof *d->ticket_ctr, "the ticket", err);
    if (rc == 0)
        rc = alloc_zero(ctx, (void **)&d->err, SPTRSV_PERSIST_ERR_WORDS * sizeof(long long),
                        "the error words", err);
    if (rc == 0)
        rc = alloc_zero(ctx, (void **)&d->trace,
                        (size_t)(d->trace_words > 0 ? d->trace_words : 1) * sizeof(long long),
                        "the trace", err);
    if (rc == 0)
        rc = alloc_zero(ctx, (void **)&d->probe_buf, SPTRSV_PDATA_PROBE_DOUBLES * sizeof(double),
                        "the link probe", err);
    if (rc == 0)
        rc = alloc_zero(ctx, (void **)&d->probe_flag, sizeof(unsigned long long), "the link probe",
                        err);
    d->upload_s = rt_clock_now() - t0;
    if (rc != 0)
        return rc;
    sptrsv_persist_dev *v = &d->dev;
    memset(v, 0, sizeof *v);
    v->first = d->sd.f.first;
    v->rowstart = d->sd.f.rowstart;
    v->rows = d->sd.f.rows;
    v->valstart = d->sd.f.valstart;
    v->ld = d->sd.f.ld;
    v->val = d->sd.f.val;
    v->ntickets = (int32_t)(p->ticket_ptr[part + 1] - p->ticket_ptr[part]);
    v->ticket = d->plan[A_TICKET];
    v->task_step_ptr = d->plan[A_STEP_PTR];
    v->task_step = d->plan[A_STEP];
    v->task_wait_ptr = d->plan[A_WAIT_PTR];
    v->task_wait = d->plan[A_WAIT];
    v->ch_super = d->plan[A_CH_SUPER];
    v->ch_p0 = d->plan[A_CH_P0];
    v->ch_p1 = d->plan[A_CH_P1];
    v->ch_out_ptr = d->plan[A_OUT_PTR];
    v->ch_out = d->plan[A_OUT];
    v->home = d->plan[A_HOME];
    v->target = d->plan[A_TARGET];
    v->xdst_ptr = d->plan[A_XDST_PTR];
    v->xdst = d->plan[A_XDST];
    v->recv_ptr = d->plan[A_RECV_PTR];
    v->recv_off = d->plan[A_RECV_OFF];
    v->red_off = d->plan[A_RED_OFF];
    v->inv_off = d->plan[A_INV_OFF];
    v->inv = d->plan[A_INV];
    v->b = d->b;
    v->x = d->x;
    v->lsum = d->lsum;
    v->recv = d->recv;
    v->xflag = d->xflag;
    v->count = d->count;
    v->ticket_ctr = d->ticket_ctr;
    v->err = d->err;
    v->part = part;
    v->nrhs = (int32_t)in->nrhs;
    v->backward = p->o.backward;
    v->peer_x[part] = d->x;
    v->peer_recv[part] = d->recv;
    v->peer_xflag[part] = d->xflag;
    v->peer_count[part] = d->count;
    return 0;
}

void sptrsv_cuda_pdata_free(sptrsv_cuda_pdata *d)
{
    if (!d || !d->ctx)
        return;
    rt_err ignored;
    (void)rt_cuda_ctx_make_current(d->ctx, &ignored);
    sptrsv_cuda_superdata_free(&d->sd);
    for (int i = 0; i < A_COUNT; ++i)
        rt_cuda_free(d->ctx, d->plan[i]);
    void *bufs[] = {d->b,     d->x,          d->lsum,       d->recv, d->probe_buf, d->xflag,
                    d->count, d->probe_flag, d->ticket_ctr, d->err,  d->trace};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
        rt_cuda_free(d->ctx, bufs[i]);
    memset(d, 0, sizeof *d);
}

int sptrsv_cuda_pdata_clear_sums(sptrsv_cuda_pdata *d, const sptrsv_pplan *p, rt_err *err)
{
    const size_t vb = (size_t)(p->n * p->o.nrhs > 0 ? p->n * p->o.nrhs : 1) * sizeof(double);
    const int part = d->dev.part;
    const size_t rb = (size_t)(p->recv_doubles[part] > 0 ? p->recv_doubles[part] : 1) * 8;
    if (rt_cuda_fill(d->ctx, d->lsum, 0, vb, "the partial sums", err) != 0 ||
        rt_cuda_fill(d->ctx, d->recv, 0, rb, "the reduction slots", err) != 0)
        return -1;
    return rt_cuda_sync(d->ctx, "clearing the partial sums", err);
}
