#include "sptrsv_cuda_superdata.h"

#include <stdlib.h>
#include <string.h>

#include "rt_cuda_variant.h"

/* The host arrays the device needs in 32-bit form, the level order and the predecessor counts. */
typedef struct super_host {
    int32_t *first, *ld, *succ_ptr, *succ, *order, *pending;
} super_host;

static void super_host_free(super_host *h)
{
    free(h->first);
    free(h->ld);
    free(h->succ_ptr);
    free(h->succ);
    free(h->order);
    free(h->pending);
}

static int super_host_build(const char *name, const rt_sptrsv_inputs *in, super_host *h,
                            rt_err *err)
{
    const sptrsv_factor *f = &in->f;
    const sptrsv_dag *g = &in->dag;
    const int64_t ns = f->nsuper, ne = g->n_edges;
    h->first = malloc((size_t)(ns + 1) * sizeof *h->first);
    h->ld = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *h->ld);
    h->succ_ptr = malloc((size_t)(ns + 1) * sizeof *h->succ_ptr);
    h->succ = malloc((size_t)(ne > 0 ? ne : 1) * sizeof *h->succ);
    h->order = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *h->order);
    h->pending = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *h->pending);
    int64_t *count = calloc((size_t)g->super_levels + 1, sizeof *count);
    if (!h->first || !h->ld || !h->succ_ptr || !h->succ || !h->order || !h->pending || !count) {
        free(count);
        return rt_err_set(err, "%s: out of host memory staging L", name);
    }
    for (int64_t s = 0; s <= ns; ++s) {
        h->first[s] = (int32_t)f->first[s];
        h->succ_ptr[s] = (int32_t)g->succ_ptr[s];
    }
    for (int64_t s = 0; s < ns; ++s) {
        h->ld[s] = (int32_t)f->ld[s];
        h->pending[s] = (int32_t)(g->pred_ptr[s + 1] - g->pred_ptr[s]);
    }
    for (int64_t e = 0; e < ne; ++e)
        h->succ[e] = (int32_t)g->succ[e];
    /* Level order by a counting sort on the supernodal levels: every predecessor of s is on a
     * lower level, so it comes first (the ticket's deadlock freedom rests on this). */
    for (int64_t s = 0; s < ns; ++s)
        ++count[g->super_level[s] + 1];
    for (int64_t l = 0; l < g->super_levels; ++l)
        count[l + 1] += count[l];
    for (int64_t s = 0; s < ns; ++s)
        h->order[count[g->super_level[s]]++] = (int32_t)s;
    free(count);
    return 0;
}

static int upload(sptrsv_cuda_superdata *s, const rt_sptrsv_inputs *in, const super_host *h,
                  rt_err *err)
{
    const sptrsv_factor *f = &in->f;
    const int64_t ns = f->nsuper, ne = in->dag.n_edges, nrow = f->rowstart[ns];
    rt_cuda_ctx *ctx = s->ctx;
    struct {
        const void *src;
        size_t bytes;
        const char *what;
    } const up[] = {
        {h->first, (size_t)(ns + 1) * 4, "supernode columns"},
        {f->rowstart, (size_t)(ns + 1) * 8, "supernode row starts"},
        {f->rows, (size_t)(nrow > 0 ? nrow : 1) * 4, "supernode rows"},
        {f->valstart, (size_t)(ns > 0 ? ns : 1) * 8, "supernode value starts"},
        {h->ld, (size_t)(ns > 0 ? ns : 1) * 4, "supernode leading dimensions"},
        {f->val, (size_t)(f->nval > 0 ? f->nval : 1) * 8, "supernode values"},
        {h->succ_ptr, (size_t)(ns + 1) * 4, "successor pointers"},
        {h->succ, (size_t)(ne > 0 ? ne : 1) * 4, "successors"},
        {h->order, (size_t)(ns > 0 ? ns : 1) * 4, "supernode order"},
    };
    _Static_assert(sizeof up / sizeof up[0] == sizeof s->dev / sizeof s->dev[0],
                   "one device buffer per upload");
    for (size_t i = 0; i < sizeof up / sizeof up[0]; ++i) {
        const int rc = rt_cuda_upload_new(ctx, up[i].src, up[i].bytes, &s->dev[i], up[i].what, err);
        if (rc != 0)
            return rc;
    }
    s->f = (sptrsv_super_dev){.nsuper = (int32_t)ns,
                              .first = s->dev[0],
                              .rowstart = s->dev[1],
                              .rows = s->dev[2],
                              .valstart = s->dev[3],
                              .ld = s->dev[4],
                              .val = s->dev[5],
                              .succ_ptr = s->dev[6],
                              .succ = s->dev[7],
                              .order = s->dev[8]};
    const size_t pb = (size_t)(ns > 0 ? ns : 1) * sizeof(int32_t);
    return rt_cuda_upload_new(ctx, h->pending, pb, (void **)&s->pending0, "predecessor counts",
                              err);
}

int sptrsv_cuda_superdata_create(const char *name, rt_cuda_ctx *ctx, const rt_sptrsv_inputs *in,
                                 sptrsv_cuda_superdata *out, rt_err *err)
{
    memset(out, 0, sizeof *out);
    out->ctx = ctx;
    super_host h = {0};
    int rc = super_host_build(name, in, &h, err);
    if (rc == 0)
        rc = upload(out, in, &h, err);
    super_host_free(&h);
    if (rc != 0 && rc != RT_INFEASIBLE)
        rt_err_prefix(err, "%s", name);
    return rc;
}

void sptrsv_cuda_superdata_free(sptrsv_cuda_superdata *d)
{
    if (!d || !d->ctx)
        return;
    for (size_t i = 0; i < sizeof d->dev / sizeof d->dev[0]; ++i)
        rt_cuda_free(d->ctx, d->dev[i]);
    rt_cuda_free(d->ctx, d->pending0);
    memset(d, 0, sizeof *d);
}
