/* dspmm's model-only mode: see dspmm_model_only.h. */
#include "dspmm_model_only.h"

#include "rt_path.h"

#include <inttypes.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "dspmm_model.h"
#include "rt_generators.h"
#include "rt_json.h"
#include "rt_problem.h"
#include "rt_space.h"

static const char *const tiers[RT_TIER_COUNT] = {"socket", "node", "global"};

static void csv_header(FILE *f)
{
    fprintf(f, "experiment,matrix,kernel,K,precision,comm,p_batch,minibatch,ranks,ranks_per_node,"
               "ranks_per_socket,status,reason,p_data,chunks");
    for (int t = 0; t < RT_TIER_COUNT; ++t)
        fprintf(f, ",bytes_%s_total,bytes_%s_max,msgs_%s_total,msgs_%s_max", tiers[t], tiers[t],
                tiers[t], tiers[t]);
    for (int k = 0; k < DSPMM_MAX_HOPS; ++k)
        fprintf(f, ",partial_bytes_l%d", k);
    for (int t = 0; t < RT_TIER_COUNT; ++t)
        fprintf(f, ",time_%s_s", tiers[t]);
    for (int t = 0; t < RT_TIER_COUNT; ++t)
        fprintf(f, ",tier_time_%s_s", tiers[t]);
    fprintf(f, ",comm_time_s,machine\r\n");
}

/* A CSV field: quoted when it holds a comma, quote or line break (RFC 4180, as export does). */
static void csv_text(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* What one point of the table says. */
typedef struct model_row {
    const char *experiment, *matrix, *kernel, *prec, *comm, *machine;
    int64_t k, minibatch;
    int p_batch;
    const rt_model_job *o;
    int ok;
    char reason[512];
    const dspmm_model_result *r;
} model_row;

/* The time of the hop reported under phase name `tier`, or NAN. */
static double phase_time(const dspmm_model_result *r, int tier)
{
    for (int k = 0; k < r->hops; ++k)
        if (r->hop_phase[k] && strcmp(r->hop_phase[k], tiers[tier]) == 0)
            return r->hop_time_s[k];
    return NAN;
}

static void csv_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, ",%.17g", v);
    else
        fputc(',', f);
}

static void csv_row(FILE *f, const model_row *m)
{
    const dspmm_model_result *r = m->r;
    csv_text(f, m->experiment);
    fputc(',', f);
    csv_text(f, m->matrix);
    fprintf(f, ",%s,%" PRId64 ",%s,%s,%d,%" PRId64 ",%d,%d,%d,%s,", m->kernel, m->k, m->prec,
            m->comm, m->p_batch, m->minibatch, m->o->nranks, m->o->ranks_per_node,
            m->o->ranks_per_socket, m->ok ? "ok" : "infeasible");
    csv_text(f, m->reason);
    if (!m->ok) {
        const int empty = 2 + 4 * RT_TIER_COUNT + DSPMM_MAX_HOPS + 2 * RT_TIER_COUNT + 1;
        for (int i = 0; i < empty; ++i)
            fputc(',', f);
    } else {
        fprintf(f, ",%d,%" PRId64, r->p_data, r->chunks_max);
        for (int t = 0; t < RT_TIER_COUNT; ++t)
            fprintf(f, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64, r->bytes_total[t],
                    r->bytes_max[t], r->msgs_total[t], r->msgs_max[t]);
        for (int k = 0; k < DSPMM_MAX_HOPS; ++k) {
            if (k < r->hops)
                fprintf(f, ",%" PRId64, r->partial_bytes[k]);
            else
                fputc(',', f);
        }
        for (int t = 0; t < RT_TIER_COUNT; ++t)
            csv_num(f, phase_time(r, t));
        for (int t = 0; t < RT_TIER_COUNT; ++t)
            csv_num(f, r->tier_time_s[t]);
        csv_num(f, r->comm_time_s);
    }
    fputc(',', f);
    csv_text(f, m->machine);
    fputs("\r\n", f);
}

static void json_num(FILE *f, const char *key, double v)
{
    if (isfinite(v))
        fprintf(f, ", \"%s\": %.17g", key, v);
    else
        fprintf(f, ", \"%s\": null", key);
}

static void json_row(FILE *f, const model_row *m, int first)
{
    const dspmm_model_result *r = m->r;
    fprintf(f, "%s  {\"experiment\": ", first ? "" : ",\n");
    rt_json_fputs(f, m->experiment);
    fprintf(f, ", \"matrix\": ");
    rt_json_fputs(f, m->matrix);
    fprintf(f,
            ", \"kernel\": \"%s\", \"K\": %" PRId64 ", \"precision\": \"%s\", \"comm\": \"%s\", "
            "\"p_batch\": %d, \"minibatch\": %" PRId64 ", \"ranks\": %d, \"ranks_per_node\": %d, "
            "\"ranks_per_socket\": %d, \"status\": \"%s\", \"reason\": ",
            m->kernel, m->k, m->prec, m->comm, m->p_batch, m->minibatch, m->o->nranks,
            m->o->ranks_per_node, m->o->ranks_per_socket, m->ok ? "ok" : "infeasible");
    rt_json_fputs(f, m->reason);
    fprintf(f, ", \"machine\": ");
    rt_json_fputs(f, m->machine);
    if (m->ok) {
        fprintf(f, ", \"p_data\": %d, \"chunks\": %" PRId64, r->p_data, r->chunks_max);
        for (int t = 0; t < RT_TIER_COUNT; ++t)
            fprintf(f,
                    ", \"bytes_%s_total\": %" PRId64 ", \"bytes_%s_max\": %" PRId64
                    ", \"msgs_%s_total\": %" PRId64 ", \"msgs_%s_max\": %" PRId64,
                    tiers[t], r->bytes_total[t], tiers[t], r->bytes_max[t], tiers[t],
                    r->msgs_total[t], tiers[t], r->msgs_max[t]);
        fprintf(f, ", \"partial_bytes\": [");
        for (int k = 0; k < r->hops; ++k)
            fprintf(f, "%s%" PRId64, k ? ", " : "", r->partial_bytes[k]);
        fprintf(f, "]");
        char key[32];
        for (int t = 0; t < RT_TIER_COUNT; ++t) {
            snprintf(key, sizeof key, "time_%s_s", tiers[t]);
            json_num(f, key, phase_time(r, t));
        }
        for (int t = 0; t < RT_TIER_COUNT; ++t) {
            snprintf(key, sizeof key, "tier_time_%s_s", tiers[t]);
            json_num(f, key, r->tier_time_s[t]);
        }
        json_num(f, "comm_time_s", r->comm_time_s);
    }
    fprintf(f, "}");
}

static void table_row(FILE *f, const model_row *m)
{
    if (!f)
        return;
    if (!m->ok) {
        fprintf(f,
                "  %-18s K=%-5" PRId64 " %-4s %-11s p_batch=%-3d mb=%-4" PRId64 " infeasible: %s\n",
                m->matrix, m->k, m->prec, m->comm, m->p_batch, m->minibatch, m->reason);
        return;
    }
    const dspmm_model_result *r = m->r;
    fprintf(f,
            "  %-18s K=%-5" PRId64 " %-4s %-11s p_batch=%-3d mb=%-4" PRId64
            " | MB socket %10.3f node %10.3f global %10.3f | max msgs/rank global %6" PRId64,
            m->matrix, m->k, m->prec, m->comm, m->p_batch, m->minibatch,
            r->bytes_total[RT_TIER_SOCKET] / 1e6, r->bytes_total[RT_TIER_NODE] / 1e6,
            r->bytes_total[RT_TIER_GLOBAL] / 1e6, r->msgs_max[RT_TIER_GLOBAL]);
    if (isfinite(r->comm_time_s))
        fprintf(f, " | predicted comm %.4g ms", r->comm_time_s * 1e3);
    fputc('\n', f);
}

int dspmm_model_only(const rt_family_desc *self, const rt_config *cfg, const rt_registry *reg,
                     const rt_model_job *job, int *n_points, rt_err *err)
{
    *n_points = 0;
    const rt_model_job *o = job;
    dspmm_model_opts mo;
    memset(&mo, 0, sizeof mo);
    mo.nranks = o->nranks;
    mo.ranks_per_node = o->ranks_per_node;
    mo.ranks_per_socket = o->ranks_per_socket;
    mo.have_tiers = o->have_tiers;
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        mo.tier_gbs[t] = o->tier_gbs[t];
        mo.tier_latency_us[t] = o->tier_latency_us[t];
    }
    const char *machine_name = o->machine_name;
    char csv_path[PATH_MAX], json_path[PATH_MAX];
    if (rt_path_format(csv_path, sizeof csv_path, err, "%s/%s-model.csv", o->out_dir, cfg->name) !=
            0 ||
        rt_path_format(json_path, sizeof json_path, err, "%s/%s-model.json", o->out_dir,
                       cfg->name) != 0)
        return rt_err_prefix(err, "--model-only");
    FILE *csv = fopen(csv_path, "w");
    FILE *json = csv ? fopen(json_path, "w") : NULL;
    if (!csv || !json) {
        if (csv)
            fclose(csv);
        return rt_err_set(err, "--model-only: cannot write %s", csv ? json_path : csv_path);
    }
    csv_header(csv);
    fprintf(json, "[\n");
    int rc = 0, first = 1;
    for (int mi = 0; mi < cfg->n_matrices && rc == 0; ++mi) {
        const rt_matrix_cfg *mc = &cfg->matrices[mi];
        rt_csr a;
        memset(&a, 0, sizeof a);
        /* Building a large matrix is most of a model run's time: say so before it starts. */
        if (job->out) {
            fprintf(job->out, "matrix %s: building (%s%s, ordering %s)...\n", mc->name,
                    mc->generator[0] ? "generator " : "file ",
                    mc->generator[0] ? mc->generator : mc->file,
                    mc->ordering[0] ? mc->ordering : "natural");
            fflush(job->out);
        }
        if (rt_matrix_build(mc->generator[0] ? mc->generator : NULL, &mc->gen,
                            mc->file[0] ? mc->file : NULL, mc->ordering[0] ? mc->ordering : NULL,
                            &a, err) != 0) {
            rc = rt_err_prefix(err, "matrix '%s'", mc->name);
            break;
        }
        if (o->out)
            fprintf(o->out, "matrix %s: %" PRId64 " x %" PRId64 ", %" PRId64 " nonzeros\n",
                    mc->name, a.rows, a.cols, a.nnz);
        for (int64_t pi = 0; pi < rt_problem_count(cfg) && rc == 0; ++pi) {
            for (int ki = 0; ki < cfg->n_kernels && rc == 0; ++ki) {
                const rt_kernel_cfg *kc = &cfg->kernels[ki];
                const rt_kernel_desc *kd = rt_registry_find_kernel(reg, kc->name);
                if (!kd || strcmp(kd->family, self->name) != 0)
                    continue;
                rt_params given, problem;
                rt_space *space = NULL;
                if (rt_problem_point(cfg, pi, &given, err) != 0 ||
                    rt_problem_for_family(self, &given, &problem, err) != 0 ||
                    rt_space_build(kc, kd, &problem, a.rows, a.cols, a.nnz, NULL, &space, err) !=
                        0) {
                    rc = -1;
                    break;
                }
                for (int64_t idx = 0; idx < rt_space_size(space) && rc == 0; ++idx) {
                    rt_params params;
                    int feasible = 1;
                    model_row row;
                    memset(&row, 0, sizeof row);
                    if (rt_space_point(space, idx, &params, &feasible, row.reason,
                                       sizeof row.reason, err) != 0 ||
                        dspmm_model_opts_from_point(&params, &problem, &mo, err) != 0) {
                        rc = -1;
                        break;
                    }
                    dspmm_model_result res;
                    memset(&res, 0, sizeof res);
                    row.ok = feasible;
                    if (feasible) {
                        const int m =
                            dspmm_model_run(&a, &mo, &res, row.reason, sizeof row.reason, err);
                        if (m < 0) {
                            dspmm_model_result_free(&res);
                            rc = rt_err_prefix(err, "matrix '%s'", mc->name);
                            break;
                        }
                        row.ok = m == 0;
                    }
                    row.experiment = cfg->name;
                    row.matrix = mc->name;
                    row.kernel = kd->name;
                    row.prec = rt_precision_name(mo.prec);
                    row.comm = dspmm_comm_name(mo.comm);
                    row.machine = machine_name;
                    row.k = mo.k;
                    row.minibatch = mo.minibatch;
                    row.p_batch = mo.p_batch;
                    row.o = o;
                    row.r = &res;
                    csv_row(csv, &row);
                    json_row(json, &row, first);
                    table_row(o->out, &row);
                    first = 0;
                    ++*n_points;
                    dspmm_model_result_free(&res);
                }
                rt_space_free(space);
            }
        }
        rt_csr_free(&a);
    }
    fprintf(json, "\n]\n");
    const int bad_close = (fclose(csv) != 0) | (fclose(json) != 0);
    if (rc == 0 && bad_close)
        rc = rt_err_set(err, "--model-only: writing %s or %s failed", csv_path, json_path);
    if (rc == 0 && o->out)
        fprintf(o->out, "model: %d point(s) for %d ranks; table in %s and %s\n", *n_points,
                o->nranks, csv_path, json_path);
    return rc;
}
