#include "sptrsv_ppoint.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_schema.h"

int sptrsv_ppoint_read(const rt_param_schema *schema, int n, const char *kernel, const rt_params *p,
                       sptrsv_ppoint *o, rt_err *err)
{
    memset(o, 0, sizeof *o);
    int64_t parts = 0;
    if (rt_schema_int(schema, n, kernel, p, "parts", &parts, err) != 0 ||
        rt_schema_int(schema, n, kernel, p, "chunk_rows", &o->chunk_rows, err) != 0 ||
        rt_schema_int(schema, n, kernel, p, "leaf_kb", &o->leaf_kb, err) != 0 ||
        rt_schema_str(schema, n, kernel, p, "layout", o->layout, sizeof o->layout, err) != 0 ||
        rt_schema_str(schema, n, kernel, p, "map", o->map, sizeof o->map, err) != 0)
        return -1;
    o->parts_param = (int)parts;
    const rt_value *v = rt_params_get(p, "poll_timeout_s");
    o->timeout_s = v ? rt_value_as_double(v) : 30.0;
    return 0;
}

int sptrsv_ppoint_resolve(sptrsv_ppoint *o, int nranks, rt_err *err)
{
    o->parts = o->parts_param > 0 ? o->parts_param : nranks;
    if (o->parts > nranks) {
        rt_err_set(err, "parts = %d but the job has %d rank%s (start at least %d)", o->parts,
                   nranks, nranks == 1 ? "" : "s", o->parts);
        return RT_INFEASIBLE;
    }
    const int P = o->parts;
    if (strcmp(o->layout, "px1") == 0) {
        o->grid_rows = P;
    } else if (strcmp(o->layout, "1xp") == 0) {
        o->grid_rows = 1;
    } else { /* 2d: the most square grid, rows <= columns */
        o->grid_rows = 1;
        for (int d = 1; d * d <= P; ++d)
            if (P % d == 0)
                o->grid_rows = d;
    }
    return 0;
}

int sptrsv_ppoint_check(const sptrsv_ppoint *o, const void *inputs, int nranks, int max_parts,
                        const char *kernel, char *why, size_t whylen)
{
    const rt_sptrsv_inputs *in = inputs;
    sptrsv_ppoint r = *o;
    rt_err e;
    if (sptrsv_ppoint_resolve(&r, nranks, &e) != 0) {
        snprintf(why, whylen, "%s: %s", kernel, e.msg);
        return RT_INFEASIBLE;
    }
    if (r.parts > max_parts) {
        snprintf(why, whylen, "%s: %d parts, at most %d", kernel, r.parts, max_parts);
        return RT_INFEASIBLE;
    }
    for (int64_t s = 0; in && s < in->f.nsuper; ++s)
        if (sptrsv_ncols(&in->f, s) > SPTRSV_PPOINT_MAX_COLUMNS) {
            snprintf(why, whylen,
                     "%s inverts the diagonal blocks: supernode %" PRId64 " has %" PRId64
                     " columns, more than %d (set problem.max_supernode to at most %d)",
                     kernel, s, sptrsv_ncols(&in->f, s), SPTRSV_PPOINT_MAX_COLUMNS,
                     SPTRSV_PPOINT_MAX_COLUMNS);
            return RT_INFEASIBLE;
        }
    return 0;
}

void sptrsv_ppoint_plan_opts(const sptrsv_ppoint *o, const rt_sptrsv_inputs *in,
                             sptrsv_pplan_opts *po)
{
    memset(po, 0, sizeof *po);
    po->parts = o->parts;
    po->grid_rows = o->grid_rows;
    po->map = strcmp(o->map, "subtree") == 0 ? SPTRSV_PMAP_SUBTREE : SPTRSV_PMAP_CYCLIC;
    po->backward = in->backward;
    po->nrhs = in->nrhs;
    po->chunk_rows = o->chunk_rows;
    po->leaf_bytes = o->leaf_kb * 1024;
    po->max_columns = SPTRSV_PPOINT_MAX_COLUMNS;
}

void sptrsv_ppoint_describe_task(const sptrsv_pplan *p, int64_t task, char *buf, size_t len)
{
    if (task < 0 || task >= p->ntasks) {
        snprintf(buf, len, "task %" PRId64 " (not in the plan)", task);
        return;
    }
    const int64_t code = p->task_step[p->task_step_ptr[task]];
    if (code >= 0)
        snprintf(buf, len, "task %" PRId64 " (DIAG of supernode %" PRId64 ")", task, code);
    else
        snprintf(buf, len, "task %" PRId64 " (a chunk of supernode %" PRId64 ")", task,
                 p->ch_super[SPTRSV_PSTEP_ID(code)]);
}

void sptrsv_ppoint_plan_metrics(const sptrsv_pplan *p, rt_metrics *m)
{
    double link = 0.0, bytes = 0.0;
    int64_t tasks = 0;
    for (int g = 0; g < p->o.parts; ++g) {
        if (p->link_bytes[g] > link)
            link = p->link_bytes[g];
        if (p->bytes_of[g] > bytes)
            bytes = p->bytes_of[g];
        if (p->tasks_of[g] > tasks)
            tasks = p->tasks_of[g];
    }
    rt_metrics_add(m, "parts", "count", (double)p->o.parts, 1);
    rt_metrics_add(m, "grid_rows", "count", (double)p->o.grid_rows, 1);
    rt_metrics_add(m, "grid_cols", "count", (double)p->grid_cols, 1);
    rt_metrics_add(m, "tasks", "count", (double)p->ntasks, 1);
    rt_metrics_add(m, "chunks", "count", (double)p->nchunks, 1);
    rt_metrics_add(m, "leaf_tasks", "count", (double)p->leaf_tasks, 1);
    rt_metrics_add(m, "fused_steps", "count", (double)p->fused_steps, 1);
    rt_metrics_add(m, "x_messages", "count", (double)p->x_messages, 1);
    rt_metrics_add(m, "partial_messages", "count", (double)p->partial_messages, 1);
    rt_metrics_add(m, "part_tasks_max", "count", (double)tasks, 1);
    rt_metrics_add(m, "part_bytes_max", "bytes", bytes, 1);
    rt_metrics_add(m, "part_link_bytes_max", "bytes", link, 1);
}

void sptrsv_ppoint_solution_metrics(const rt_sptrsv_inputs *in, const double *x, rt_metrics *m)
{
    sptrsv_factor_metrics(in, m);
    rt_metrics_add(m, "residual", "ratio", sptrsv_residual(in, x), 0);
}

void sptrsv_ppoint_model_metrics(const sptrsv_prediction *pr, const sptrsv_costs *c, rt_metrics *m)
{
    rt_metrics_add(m, "model_time_s", "s", pr->time_s, 0);
    rt_metrics_add(m, "model_schedule_s", "s", pr->schedule_s, 0);
    rt_metrics_add(m, "model_floor_s", "s", pr->floor_s, 0);
    rt_metrics_add(m, "critical_path_len", "count", (double)pr->path_tasks, 0);
    rt_metrics_add(m, "critical_path_messages", "count", (double)pr->path_messages, 0);
    rt_metrics_add(m, "model_path_compute_s", "s", pr->path_compute_s, 0);
    rt_metrics_add(m, "model_path_comm_s", "s", pr->path_comm_s, 0);
    rt_metrics_add(m, "model_unit_gbs", "GB/s", c->unit_bps * 1e-9, 0);
    rt_metrics_add(m, "model_peak_gbs", "GB/s", c->peak_bps * 1e-9, 0);
    rt_metrics_add(m, "model_task_us", "us", c->task_s * 1e6, 0);
    rt_metrics_add(m, "model_step_us", "us", c->step_s * 1e6, 0);
    rt_metrics_add(m, "model_sync_us", "us", c->sync_s * 1e6, 0);
}

/* Flops of a step: the inverse's triangle (nc (nc + 1) per rhs) or the chunk's rectangle. */
static double step_flops(const sptrsv_factor *f, const sptrsv_pplan *p, int64_t code)
{
    const double k = (double)p->o.nrhs;
    if (code >= 0) {
        const double nc = (double)sptrsv_ncols(f, code);
        return nc * (nc + 1.0) * k;
    }
    const int64_t c = SPTRSV_PSTEP_ID(code);
    return 2.0 * (double)(p->ch_p1[c] - p->ch_p0[c]) * (double)sptrsv_ncols(f, p->ch_super[c]) * k;
}

/* Bytes a step must read from memory, whatever caches hold: L's rows and their indices, or the
 * inverse block's triangle. x and the partial sums may stay in the L2 between steps: they count
 * once per supernode the part owns (b read, x written), below. */
static double step_compulsory(const sptrsv_factor *f, const sptrsv_pplan *p, int64_t code)
{
    if (code >= 0) {
        const double nc = (double)sptrsv_ncols(f, code);
        return 4.0 * nc * (nc + 1.0);
    }
    const int64_t c = SPTRSV_PSTEP_ID(code);
    const double rows = (double)(p->ch_p1[c] - p->ch_p0[c]);
    return 8.0 * rows * (double)sptrsv_ncols(f, p->ch_super[c]) + 4.0 * rows;
}

void sptrsv_ppoint_part_traffic(const sptrsv_factor *f, const sptrsv_pplan *p, int part,
                                const int *tier_of, rt_traffic *t)
{
    memset(t, 0, sizeof *t);
    const int64_t ns = p->nsuper, k = p->o.nrhs;
    for (int64_t q = p->ticket_ptr[part]; q < p->ticket_ptr[part + 1]; ++q) {
        const int64_t task = p->ticket[q];
        for (int64_t i = p->task_step_ptr[task]; i < p->task_step_ptr[task + 1]; ++i) {
            t->flops += step_flops(f, p, p->task_step[i]);
            t->bytes[RT_LEVEL_DRAM] += step_compulsory(f, p, p->task_step[i]);
        }
    }
    t->overlap = 1; /* blocks write into other GPUs while others read L: max, not sum */
    for (int64_t s = 0; s < ns; ++s) {
        const double msg = 8.0 * (double)(sptrsv_ncols(f, s) * k) + 8.0;
        if (p->home[s] == part) {
            t->bytes[RT_LEVEL_DRAM] += 16.0 * (double)(sptrsv_ncols(f, s) * k);
            for (int64_t d = p->xdst_ptr[s]; d < p->xdst_ptr[s + 1]; ++d)
                t->net_bytes[tier_of[p->xdst[d]]] += msg;
        }
        if (p->red_off[(int64_t)part * ns + s] >= 0)
            t->net_bytes[tier_of[p->home[s]]] += msg;
    }
}

int sptrsv_ppoint_traffic(const sptrsv_ppoint *o, const rt_sptrsv_inputs *in, rt_comm *comm,
                          rt_traffic *t, rt_err *err)
{
    memset(t, 0, sizeof *t);
    const int me = rt_comm_world_rank(comm);
    if (me >= o->parts)
        return 0; /* takes no part: nothing to bound */
    sptrsv_pplan_opts po;
    sptrsv_ppoint_plan_opts(o, in, &po);
    sptrsv_pplan p;
    if (sptrsv_pplan_build(&in->f, &in->dag, &po, &p, err) != 0)
        return -1;
    int *tier_of = malloc((size_t)o->parts * sizeof *tier_of);
    if (!tier_of) {
        sptrsv_pplan_free(&p);
        return rt_err_set(err, "sptrsv traffic: out of memory");
    }
    for (int q = 0; q < o->parts; ++q)
        tier_of[q] = q == me ? RT_TIER_SOCKET : rt_comm_tier_of(comm, q);
    sptrsv_ppoint_part_traffic(&in->f, &p, me, tier_of, t);
    free(tier_of);
    sptrsv_pplan_free(&p);
    return 0;
}
