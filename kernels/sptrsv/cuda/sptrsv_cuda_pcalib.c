#include "sptrsv_cuda_pcalib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "rt_cuda_ctx.h"

#define LAT_ROUNDS 200
#define BW_ROUNDS  20
#define WARM       5

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int64_t n)
{
    if (n <= 0)
        return 0.0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Every part learns whether every part got through a step; 0 or -1 (err: the failure, or that
 * another part failed). */
static int all_parts(const char *name, MPI_Comm parts, int rc, rt_err *err)
{
    int bad = rc != 0, any = 0;
    if (MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, parts) != MPI_SUCCESS)
        return rt_err_set(err, "%s: calibration: MPI_Allreduce failed", name);
    if (any)
        return rc != 0 ? rc : rt_err_set(err, "%s: calibration: another part failed", name);
    return 0;
}

/* One ping-pong call on parts 0 and 1 (the others only meet the barrier); *seconds on part 0. */
static int pingpong(const char *name, sptrsv_cuda_pdata *d, int part, MPI_Comm parts,
                    double *peer_buf, unsigned long long *peer_flag, int rounds, int doubles,
                    unsigned long long *base, double timeout_s, double *seconds, rt_err *err)
{
    *seconds = 0.0;
    int rc = 0;
    if (MPI_Barrier(parts) != MPI_SUCCESS)
        return rt_err_set(err, "%s: link probe: MPI_Barrier failed", name);
    if (part <= 1) {
        void *st = rt_cuda_ctx_stream(d->ctx);
        long long e[SPTRSV_PERSIST_ERR_WORDS] = {0};
        if (sptrsv_cuda_persist_reset(st, d->ticket_ctr, d->err) != 0 ||
            (part == 0 && rt_cuda_timer_start(d->ctx, name, err) != 0))
            rc = rt_err_set(err, "%s: link probe: starting failed", name);
        if (rc == 0 && sptrsv_cuda_persist_pingpong(st, part == 0, rounds, doubles, *base, peer_buf,
                                                    peer_flag, d->probe_buf, d->probe_flag,
                                                    (long long)(timeout_s * 1e9), d->err) != 0)
            rc = rt_err_set(err, "%s: link probe: launch failed", name);
        if (rc == 0 && part == 0 && rt_cuda_timer_stop(d->ctx, seconds, name, err) != 0)
            rc = -1;
        if (rc == 0 && rt_cuda_download(d->ctx, e, d->err, sizeof e, "the link probe", err) != 0)
            rc = -1;
        if (rc == 0 && e[0] != 0)
            rc = rt_err_set(err,
                            "%s: link probe: part %d waited %.3g s for round %lld of %d "
                            "(%d doubles) from part %d",
                            name, part, timeout_s, e[2], rounds, doubles, 1 - part);
    }
    *base += (unsigned long long)rounds;
    return all_parts(name, parts, rc, err);
}

static int link_probe(const char *name, sptrsv_cuda_pdata *d, int P, MPI_Comm parts,
                      double *peer_buf, unsigned long long *peer_flag, double timeout_s,
                      sptrsv_cuda_pcalib *out, rt_err *err)
{
    if (P < 2)
        return 0;
    const int part = d->dev.part;
    unsigned long long base = 0;
    double t_lat = 0.0, t_bw = 0.0, warm = 0.0;
    if (pingpong(name, d, part, parts, peer_buf, peer_flag, WARM, 1, &base, timeout_s, &warm,
                 err) != 0 ||
        pingpong(name, d, part, parts, peer_buf, peer_flag, LAT_ROUNDS, 1, &base, timeout_s, &t_lat,
                 err) != 0 ||
        pingpong(name, d, part, parts, peer_buf, peer_flag, WARM, SPTRSV_PDATA_PROBE_DOUBLES, &base,
                 timeout_s, &warm, err) != 0 ||
        pingpong(name, d, part, parts, peer_buf, peer_flag, BW_ROUNDS, SPTRSV_PDATA_PROBE_DOUBLES,
                 &base, timeout_s, &t_bw, err) != 0)
        return -1;
    double v[2] = {t_lat / (2.0 * LAT_ROUNDS), 0.0};
    const double one_way = t_bw / (2.0 * BW_ROUNDS), bytes = 8.0 * SPTRSV_PDATA_PROBE_DOUBLES;
    v[1] = one_way > v[0] ? bytes / (one_way - v[0]) : (one_way > 0.0 ? bytes / one_way : 0.0);
    if (MPI_Bcast(v, 2, MPI_DOUBLE, 0, parts) != MPI_SUCCESS)
        return rt_err_set(err, "%s: link probe: MPI_Bcast failed", name);
    out->link_lat_s = v[0];
    out->link_bps = v[1];
    return 0;
}

/* The traced execution's fit: step_s and unit_bps (run times against steps and bytes), task_s
 * (gaps between one block's tasks, plus the wait check of a task that waits for nothing), sync_s
 * (a task of this part waiting for another of this part: the producer's end to its start). */
static int fit_trace(const char *name, sptrsv_cuda_pdata *d, const sptrsv_pplan *p,
                     const sptrsv_factor *f, sptrsv_cuda_pcalib *out, rt_err *err)
{
    const int part = d->dev.part;
    const int64_t t0 = p->ticket_ptr[part], n = p->ticket_ptr[part + 1] - t0;
    long long *tr = malloc((size_t)(n > 0 ? 4 * n : 1) * sizeof *tr);
    double *gap = malloc((size_t)(n > 0 ? n : 1) * sizeof *gap);
    double *quick = malloc((size_t)(n > 0 ? n : 1) * sizeof *quick);
    double *hand = malloc((size_t)(n > 0 ? n : 1) * sizeof *hand);
    int64_t *slot = malloc((size_t)(p->ntasks > 0 ? p->ntasks : 1) * sizeof *slot);
    long long *last = calloc(65536, sizeof *last); /* per block: its last task's end */
    int rc = 0;
    if (!tr || !gap || !quick || !hand || !slot || !last) {
        rc = rt_err_set(err, "%s: out of memory for the trace", name);
        goto done;
    }
    if (n > 0 && rt_cuda_download(d->ctx, tr, d->trace, (size_t)(4 * n) * sizeof *tr, "the trace",
                                  err) != 0) {
        rc = -1;
        goto done;
    }
    for (int64_t t = 0; t < p->ntasks; ++t)
        slot[t] = -1;
    for (int64_t i = 0; i < n; ++i)
        slot[p->ticket[t0 + i]] = i;
    double snn = 0, snb = 0, sbb = 0, sny = 0, sby = 0, sy = 0, sb = 0;
    int64_t ng = 0, nq = 0, nh = 0;
    for (int64_t i = 0; i < n; ++i) {
        const int64_t t = p->ticket[t0 + i];
        const long long a = tr[4 * i], r = tr[4 * i + 1], e = tr[4 * i + 2];
        const long long blk = tr[4 * i + 3];
        double bytes = 0.0;
        for (int64_t q = p->task_step_ptr[t]; q < p->task_step_ptr[t + 1]; ++q)
            bytes += sptrsv_pplan_step_bytes(f, p, p->task_step[q]);
        const double steps = (double)(p->task_step_ptr[t + 1] - p->task_step_ptr[t]);
        const double y = 1e-9 * (double)(e - r);
        snn += steps * steps;
        snb += steps * bytes;
        sbb += bytes * bytes;
        sny += steps * y;
        sby += bytes * y;
        sy += y;
        sb += bytes;
        if (blk >= 0 && blk < 65536) {
            if (last[blk] > 0 && a >= last[blk])
                gap[ng++] = 1e-9 * (double)(a - last[blk]);
            last[blk] = e;
        }
        if (p->task_wait_ptr[t] == p->task_wait_ptr[t + 1]) {
            quick[nq++] = 1e-9 * (double)(r - a);
            continue;
        }
        /* the latest producer of this part it waited for (x waits; counters have many) */
        long long latest = 0;
        int local_only = 1;
        for (int64_t w = p->task_wait_ptr[t]; w < p->task_wait_ptr[t + 1]; ++w) {
            const int64_t code = p->task_wait[w];
            if (code < 0 || p->home[code] != part || slot[p->diag_task[code]] < 0) {
                local_only = 0;
                break;
            }
            const long long pe = tr[4 * slot[p->diag_task[code]] + 2];
            if (pe > latest)
                latest = pe;
        }
        if (local_only && latest > a && r >= latest)
            hand[nh++] = 1e-9 * (double)(r - latest);
    }
    sptrsv_costs *c = &out->costs;
    const double det = snn * sbb - snb * snb;
    double step_s = det != 0.0 ? (sny * sbb - sby * snb) / det : 0.0;
    double per_byte = det != 0.0 ? (snn * sby - snb * sny) / det : 0.0;
    if (!(per_byte > 0.0) || step_s < 0.0) { /* no separable fit: all of it is bandwidth */
        step_s = 0.0;
        per_byte = sb > 0.0 ? sy / sb : 0.0;
    }
    c->step_s = step_s;
    c->unit_bps = per_byte > 0.0 ? 1.0 / per_byte : 0.0;
    c->task_s = median(gap, ng) + median(quick, nq);
    c->sync_s = median(hand, nh);
    out->fit_tasks = n;
    out->sync_samples = nh;
done:
    free(tr);
    free(gap);
    free(quick);
    free(hand);
    free(slot);
    free(last);
    return rc;
}

int sptrsv_cuda_pcalib_run(const char *name, sptrsv_cuda_pdata *d, const sptrsv_pplan *p,
                           const sptrsv_factor *f, MPI_Comm parts, double *peer_buf,
                           unsigned long long *peer_flag, double timeout_s,
                           sptrsv_pcalib_launch launch, void *launch_ctx, sptrsv_cuda_pcalib *out,
                           rt_err *err)
{
    memset(out, 0, sizeof *out);
    const int P = p->o.parts, part = d->dev.part;
    int rc = link_probe(name, d, P, parts, peer_buf, peer_flag, timeout_s, out, err);
    /* The traced solve and the run without waits: every part launches, so every part must
     * know the others got this far. */
    if ((rc = all_parts(name, parts, rc, err)) != 0)
        return rc;
    if (MPI_Barrier(parts) != MPI_SUCCESS)
        return rt_err_set(err, "%s: calibration: MPI_Barrier failed", name);
    rc = launch(launch_ctx, 1, 0, &out->trace_s, err);
    if (rc == 0)
        rc = fit_trace(name, d, p, f, out, err);
    if ((rc = all_parts(name, parts, rc, err)) != 0)
        return rc;
    if (MPI_Barrier(parts) != MPI_SUCCESS)
        return rt_err_set(err, "%s: calibration: MPI_Barrier failed", name);
    rc = launch(launch_ctx, 0, 1, &out->nowait_s, err);
    if (rc == 0) /* the run without waits left partial sums behind */
        rc = sptrsv_cuda_pdata_clear_sums(d, p, err);
    if ((rc = all_parts(name, parts, rc, err)) != 0)
        return rc;
    /* The parts' average, so every rank predicts the same. */
    sptrsv_costs *c = &out->costs;
    c->peak_bps = out->nowait_s > 0.0 ? p->bytes_of[part] / out->nowait_s : 0.0;
    double v[5] = {c->unit_bps, c->peak_bps, c->task_s, c->step_s, c->sync_s}, sum[5];
    if (MPI_Allreduce(v, sum, 5, MPI_DOUBLE, MPI_SUM, parts) != MPI_SUCCESS)
        return rt_err_set(err, "%s: calibration: MPI_Allreduce failed", name);
    c->unit_bps = sum[0] / P;
    c->peak_bps = sum[1] / P;
    c->task_s = sum[2] / P;
    c->step_s = sum[3] / P;
    c->sync_s = sum[4] / P;
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        c->lat_s[t] = out->link_lat_s;
        c->bw_bps[t] = out->link_bps;
    }
    (void)part;
    return 0;
}
