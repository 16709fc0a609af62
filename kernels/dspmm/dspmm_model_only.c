/* dspmm's model-only hook: see dspmm_model_only.h. */
#include "dspmm_model_only.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dspmm_model.h"

/* The table's columns, in the order of `columns` below. */
enum {
    C_EXPERIMENT,
    C_MATRIX,
    C_KERNEL,
    C_K,
    C_PRECISION,
    C_COMM,
    C_P_BATCH,
    C_MINIBATCH,
    C_RANKS,
    C_RANKS_PER_NODE,
    C_RANKS_PER_SOCKET,
    C_STATUS,
    C_REASON,
    C_P_DATA,
    C_CHUNKS,
    C_TIER0, /* bytes_<tier>_total, bytes_<tier>_max, msgs_<tier>_total, msgs_<tier>_max */
    C_PARTIAL = C_TIER0 + 4 * RT_TIER_COUNT,
    C_TIME,                               /* time_<tier>_s: each hop's time under its phase name */
    C_TIER_TIME = C_TIME + RT_TIER_COUNT, /* tier_time_<tier>_s */
    C_COMM_TIME = C_TIER_TIME + RT_TIER_COUNT,
    C_MACHINE,
    N_COLUMNS
};

#define OWN(name, kind)                                                                            \
    {                                                                                              \
        name, kind, RT_MODEL_OWN, 0, 0                                                             \
    }
#define RESULT(name, kind)                                                                         \
    {                                                                                              \
        name, kind, RT_MODEL_OWN, 1, 0                                                             \
    }
#define TIER_COUNTS(t)                                                                             \
    RESULT("bytes_" t "_total", RT_MODEL_INT), RESULT("bytes_" t "_max", RT_MODEL_INT),            \
        RESULT("msgs_" t "_total", RT_MODEL_INT), RESULT("msgs_" t "_max", RT_MODEL_INT)

static const rt_model_column columns[] = {
    RT_MODEL_COLUMN_EXPERIMENT,
    RT_MODEL_COLUMN_MATRIX,
    RT_MODEL_COLUMN_KERNEL,
    OWN("K", RT_MODEL_INT),
    OWN("precision", RT_MODEL_TEXT),
    OWN("comm", RT_MODEL_TEXT),
    OWN("p_batch", RT_MODEL_INT),
    OWN("minibatch", RT_MODEL_INT),
    RT_MODEL_COLUMNS_JOB,
    RT_MODEL_COLUMNS_STATUS,
    RESULT("p_data", RT_MODEL_INT),
    RESULT("chunks", RT_MODEL_INT),
    TIER_COUNTS("socket"),
    TIER_COUNTS("node"),
    TIER_COUNTS("global"),
    {"partial_bytes", RT_MODEL_INTS, RT_MODEL_OWN, 1, DSPMM_MAX_HOPS},
    RESULT("time_socket_s", RT_MODEL_REAL),
    RESULT("time_node_s", RT_MODEL_REAL),
    RESULT("time_global_s", RT_MODEL_REAL),
    RESULT("tier_time_socket_s", RT_MODEL_REAL),
    RESULT("tier_time_node_s", RT_MODEL_REAL),
    RESULT("tier_time_global_s", RT_MODEL_REAL),
    RESULT("comm_time_s", RT_MODEL_REAL),
    RT_MODEL_COLUMN_MACHINE,
};

_Static_assert(sizeof columns / sizeof columns[0] == N_COLUMNS, "one column per index");
_Static_assert(DSPMM_MAX_HOPS <= RT_MODEL_MAX_LIST, "partial_bytes fits a list cell");

static const char *const tiers[RT_TIER_COUNT] = {"socket", "node", "global"};

/* The time of the hop reported under phase name `tier`, or NAN. */
static double phase_time(const dspmm_model_result *r, int tier)
{
    for (int k = 0; k < r->hops; ++k)
        if (r->hop_phase[k] && strcmp(r->hop_phase[k], tiers[tier]) == 0)
            return r->hop_time_s[k];
    return NAN;
}

static void fill_results(const dspmm_model_result *r, rt_model_row *row)
{
    rt_model_cell *c = row->cell;
    c[C_P_DATA].i = r->p_data;
    c[C_CHUNKS].i = r->chunks_max;
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        c[C_TIER0 + 4 * t].i = r->bytes_total[t];
        c[C_TIER0 + 4 * t + 1].i = r->bytes_max[t];
        c[C_TIER0 + 4 * t + 2].i = r->msgs_total[t];
        c[C_TIER0 + 4 * t + 3].i = r->msgs_max[t];
        c[C_TIME + t].r = phase_time(r, t);
        c[C_TIER_TIME + t].r = r->tier_time_s[t];
    }
    c[C_PARTIAL].n = r->hops;
    for (int k = 0; k < r->hops; ++k)
        c[C_PARTIAL].list[k] = r->partial_bytes[k];
    c[C_COMM_TIME].r = r->comm_time_s;
}

static int model_point(const rt_model_point *pt, rt_model_row *row, rt_err *err)
{
    const rt_model_job *job = pt->job;
    dspmm_model_opts mo;
    memset(&mo, 0, sizeof mo);
    mo.nranks = job->nranks;
    mo.ranks_per_node = job->ranks_per_node;
    mo.ranks_per_socket = job->ranks_per_socket;
    mo.have_tiers = job->have_tiers;
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        mo.tier_gbs[t] = job->tier_gbs[t];
        mo.tier_latency_us[t] = job->tier_latency_us[t];
    }
    if (dspmm_model_opts_from_point(pt->params, pt->problem, &mo, err) != 0)
        return -1;
    rt_model_cell *c = row->cell;
    c[C_K].i = mo.k;
    snprintf(c[C_PRECISION].s, sizeof c[C_PRECISION].s, "%s", rt_precision_name(mo.prec));
    snprintf(c[C_COMM].s, sizeof c[C_COMM].s, "%s", dspmm_comm_name(mo.comm));
    c[C_P_BATCH].i = mo.p_batch;
    c[C_MINIBATCH].i = mo.minibatch;
    const int n = snprintf(
        row->line, sizeof row->line, "%-18s K=%-5" PRId64 " %-4s %-11s p_batch=%-3d mb=%-4" PRId64,
        pt->matrix_name, mo.k, c[C_PRECISION].s, c[C_COMM].s, mo.p_batch, mo.minibatch);
    if (!row->ok)
        return 0;
    dspmm_model_result res;
    memset(&res, 0, sizeof res);
    const int m = dspmm_model_run(pt->matrix, &mo, &res, row->reason, sizeof row->reason, err);
    if (m < 0) {
        dspmm_model_result_free(&res);
        return -1;
    }
    row->ok = m == 0;
    if (row->ok) {
        fill_results(&res, row);
        const size_t used = n > 0 && (size_t)n < sizeof row->line ? (size_t)n : 0;
        const int more = snprintf(
            row->line + used, sizeof row->line - used,
            " | MB socket %10.3f node %10.3f global %10.3f | max msgs/rank global %6" PRId64,
            res.bytes_total[RT_TIER_SOCKET] / 1e6, res.bytes_total[RT_TIER_NODE] / 1e6,
            res.bytes_total[RT_TIER_GLOBAL] / 1e6, res.msgs_max[RT_TIER_GLOBAL]);
        const size_t at = used + (more > 0 ? (size_t)more : 0);
        if (isfinite(res.comm_time_s) && at < sizeof row->line)
            snprintf(row->line + at, sizeof row->line - at, " | predicted comm %.4g ms",
                     res.comm_time_s * 1e3);
    }
    dspmm_model_result_free(&res);
    return 0;
}

const rt_family_model dspmm_model = {
    .columns = columns, .n_columns = N_COLUMNS, .point = model_point};
