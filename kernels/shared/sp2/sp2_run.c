#include "sp2_run.h"

#include <string.h>

#include "rt_clock.h"
#include "sp2_state.h"
#include "sp2_stationary.h"
#include "sp2_steal.h"
#include "sp2_summa.h"

/* ---------------------------------------------------------------------------------------------
 * One execution */

static int finalize_c(sp2_state *s, rt_err *err)
{
    if (!s->spgemm)
        return 0;
    const double t0 = rt_clock_now();
    for (int q = 0; q < s->n_c; ++q)
        if (sp2_spacc_finalize(&s->c_acc[q], &s->spa, &s->c_csr[q], err) != 0)
            return -1;
    s->run.accum += rt_clock_now() - t0;
    return 0;
}

int sp2_run(void *state, double *seconds, rt_err *err)
{
    sp2_state *s = state;
    const sp2_layout *L = &s->L;
    memset(&s->run, 0, sizeof s->run);
    s->run_flops = 0.0;
    s->tasks_exec = s->tasks_stolen = 0;
    for (int k = 0; k < L->KT; ++k)
        s->stage_flops[k] = 0.0;
    if (s->task_seen)
        memset(s->task_seen, 0, (size_t)s->n_task_ids * sizeof *s->task_seen);
    int64_t bytes0[RT_TIER_COUNT], bytes1[RT_TIER_COUNT];
    rt_comm_counters_read(s->comm, bytes0, NULL);

    const double start = rt_clock_now();
    int ok = 1;
    rt_err local;
    rt_err_clear(&local);
    sp2_c_zero(s);
    if (s->eng->begin_run(s->es, &local) != 0)
        ok = 0;
    if (ok && s->queue && sp2_queue_reset(s->queue, &local) != 0)
        ok = 0;
    if (ok && s->wg && sp2_workgrid_reset(s->wg, &local) != 0)
        ok = 0;
    /* Nobody may push or claim before every rank has cleared its queue and grid. */
    if (sp2_is_rdma(s->alg) && rt_comm_barrier(s->comm, &local) != 0)
        ok = 0;
    s->run.comm += rt_clock_now() - start;

    if (ok) {
        if (sp2_is_rdma(s->alg))
            ok = sp2_rdma_loop(s, &local) == 0;
        else if (s->alg == SP2_ALG_SUMMA)
            ok = sp2_summa_loop(s, &local) == 0;
        else
            ok = sp2_summa_a_loop(s, &local) == 0;
    }
    /* A rank that failed still announces and drains, so no other rank waits for it forever. */
    if (s->queue) {
        rt_err qerr;
        if (sp2_queue_finish(s->queue, ok ? &local : &qerr) != 0)
            ok = 0;
        double idle = 0.0;
        const double t0 = rt_clock_now(), h0 = sp2_handler_time(s);
        if (sp2_queue_drain_all(s->queue, &idle, ok ? &local : &qerr) != 0)
            ok = 0;
        const double h = sp2_handler_time(s) - h0;
        s->run.accum += h;
        s->run.imbalance += idle;
        s->run.comm += (rt_clock_now() - t0) - h - idle;
        sp2_queue_stats_read(s->queue, &s->qstats);
    }
    if (ok && finalize_c(s, &local) != 0)
        ok = 0;
    const double tb = rt_clock_now();
    rt_err berr;
    if (rt_comm_barrier(s->comm, &berr) != 0 && ok) {
        local = berr;
        ok = 0;
    }
    const double end = rt_clock_now();
    s->run.imbalance += end - tb;
    s->run.total = end - start;
    *seconds = end - start;
    rt_comm_counters_read(s->comm, bytes1, NULL);
    for (int t = 0; t < RT_TIER_COUNT; ++t)
        s->run_bytes[t] = bytes1[t] - bytes0[t];

    if (ok && sp2_is_ws(s->alg) && sp2_check_tasks(s, &local) != 0)
        ok = 0;
    s->sum.compute += s->run.compute;
    s->sum.comm += s->run.comm;
    s->sum.accum += s->run.accum;
    s->sum.imbalance += s->run.imbalance;
    s->sum.total += s->run.total;
    s->sum.staging += s->run.staging;
    s->runs++;
    if (!ok)
        *err = local;
    if (sp2_agree(s->comm, ok, err) != 0)
        return rt_err_prefix(err, "%s", s->desc->name);
    return 0;
}

int sp2_flush(void *state, rt_err *err)
{
    sp2_state *s = state;
    if (!s->eng->flush)
        return 0;
    return s->eng->flush(s->es, err) == 0 ? 0 : rt_err_prefix(err, "%s flush", s->desc->name);
}
