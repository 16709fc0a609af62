#include "dspmm_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dspmm_cpu_sender.h"
#include "dspmm_family.h"
#include "dspmm_part.h"

int dspmm_model_opts_from_point(const rt_params *kernel_params, const rt_params *problem,
                                dspmm_model_opts *o, rt_err *err)
{
    if (rt_dspmm_sender_params(kernel_params, &o->p_batch, &o->comm, &o->minibatch, &o->stages,
                               err) != 0 ||
        rt_dspmm_problem(problem, &o->k, &o->prec, err) != 0)
        return -1;
    return 0;
}

void dspmm_model_result_free(dspmm_model_result *r)
{
    if (!r)
        return;
    free(r->per_rank);
    free(r->pair_bytes);
    r->per_rank = NULL;
    r->pair_bytes = NULL;
}

/* Alpha-beta time of one rank's traffic on the tiers. */
static double ab_time(const dspmm_model_opts *o, const dspmm_tally *t, int only_tier)
{
    double s = 0.0;
    for (int tr = 0; tr < RT_TIER_COUNT; ++tr) {
        if (only_tier >= 0 && tr != only_tier)
            continue;
        if (t->msgs[tr] == 0 && t->bytes[tr] == 0)
            continue;
        s += (double)t->msgs[tr] * o->tier_latency_us[tr] * 1e-6 +
             (double)t->bytes[tr] / (o->tier_gbs[tr] * 1e9);
    }
    return s;
}

int dspmm_model_run(const rt_csr *a, const dspmm_model_opts *o, dspmm_model_result *r, char *why,
                    size_t whylen, rt_err *err)
{
    memset(r, 0, sizeof *r);
    for (int k = 0; k < DSPMM_MAX_HOPS; ++k)
        r->hop_time_s[k] = NAN;
    for (int t = 0; t < RT_TIER_COUNT; ++t)
        r->tier_time_s[t] = NAN;
    r->comm_time_s = NAN;
    if (!a || !o)
        return rt_err_set(err, "dspmm model: no matrix or options");
    if (o->have_tiers)
        for (int t = 0; t < RT_TIER_COUNT; ++t)
            if (!(o->tier_gbs[t] > 0) || !(o->tier_latency_us[t] >= 0))
                return rt_err_set(err,
                                  "dspmm model: tier %d has bandwidth %g GB/s and latency %g "
                                  "us (need > 0 and >= 0)",
                                  t, o->tier_gbs[t], o->tier_latency_us[t]);
    dspmm_topo topo;
    if (dspmm_topo_virtual(o->nranks, o->ranks_per_node, o->ranks_per_socket, &topo, err) != 0)
        return -1;
    dspmm_grid grid;
    int rc = dspmm_grid_build(a, o->k, o->p_batch, &topo, &grid, why, whylen, err);
    if (rc != 0) {
        dspmm_topo_free(&topo);
        return rc;
    }
    const int n = o->nranks;
    const size_t esize = rt_precision_bytes(o->prec);
    r->nranks = n;
    r->p_data = grid.p_data;
    r->p_batch = grid.p_batch;
    r->per_rank = calloc((size_t)n, sizeof *r->per_rank);
    dspmm_tally *hop_rank = calloc((size_t)n, sizeof *hop_rank);
    double *hop_t = calloc((size_t)n * DSPMM_MAX_HOPS, sizeof *hop_t);
    if (o->want_pairs)
        r->pair_bytes = calloc((size_t)n * (size_t)n, sizeof *r->pair_bytes);
    if (!r->per_rank || !hop_rank || !hop_t || (o->want_pairs && !r->pair_bytes)) {
        rc = rt_err_set(err, "dspmm model: out of memory for %d ranks", n);
        goto out;
    }
    for (int b = 0; b < grid.p_batch && rc == 0; ++b) {
        dspmm_plan plan;
        if (dspmm_plan_build(a, &grid, b, &topo, o->comm, &plan, err) != 0) {
            rc = -1;
            break;
        }
        r->hops = plan.hops;
        const int64_t chunks = dspmm_chunks(plan.k_cols, o->minibatch, o->stages);
        if (chunks > r->chunks_max)
            r->chunks_max = chunks;
        for (int k = 0; k < plan.hops && rc == 0; ++k) {
            r->hop_phase[k] = dspmm_hop_phase(&plan, k);
            r->partial_bytes[k] += plan.level[k].nrows * plan.k_cols * (int64_t)esize;
            /* One hop at a time, so each hop's time is known per rank. */
            for (int d = 0; d < plan.p_data; ++d)
                memset(&hop_rank[plan.member[d]], 0, sizeof *hop_rank);
            if (dspmm_plan_tally(&plan, &topo, k, esize, o->minibatch, o->stages, hop_rank,
                                 r->pair_bytes, err) != 0) {
                rc = -1;
                break;
            }
            for (int d = 0; d < plan.p_data; ++d) {
                const int w = plan.member[d];
                for (int t = 0; t < RT_TIER_COUNT; ++t) {
                    r->per_rank[w].bytes[t] += hop_rank[w].bytes[t];
                    r->per_rank[w].msgs[t] += hop_rank[w].msgs[t];
                }
                if (o->have_tiers)
                    hop_t[(size_t)w * DSPMM_MAX_HOPS + k] = ab_time(o, &hop_rank[w], -1);
            }
        }
        dspmm_plan_free(&plan);
    }
    if (rc != 0)
        goto out;
    for (int w = 0; w < n; ++w)
        for (int t = 0; t < RT_TIER_COUNT; ++t) {
            const dspmm_tally *p = &r->per_rank[w];
            r->bytes_total[t] += p->bytes[t];
            r->msgs_total[t] += p->msgs[t];
            if (p->bytes[t] > r->bytes_max[t])
                r->bytes_max[t] = p->bytes[t];
            if (p->msgs[t] > r->msgs_max[t])
                r->msgs_max[t] = p->msgs[t];
        }
    if (o->have_tiers) {
        r->comm_time_s = 0.0;
        for (int k = 0; k < r->hops; ++k) {
            double worst = 0.0;
            for (int w = 0; w < n; ++w)
                if (hop_t[(size_t)w * DSPMM_MAX_HOPS + k] > worst)
                    worst = hop_t[(size_t)w * DSPMM_MAX_HOPS + k];
            r->hop_time_s[k] = worst;
            r->comm_time_s += worst;
        }
        for (int t = 0; t < RT_TIER_COUNT; ++t) {
            double worst = 0.0;
            for (int w = 0; w < n; ++w) {
                const double v = ab_time(o, &r->per_rank[w], t);
                if (v > worst)
                    worst = v;
            }
            r->tier_time_s[t] = worst;
        }
    }
out:
    free(hop_rank);
    free(hop_t);
    dspmm_grid_free(&grid);
    dspmm_topo_free(&topo);
    return rc;
}
