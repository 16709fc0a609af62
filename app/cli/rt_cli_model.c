/* rooftune run --model-only: see rt_cli_model.h. */
#define _POSIX_C_SOURCE 200809L
#include "rt_cli_model.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "dspmm_model.h"
#include "rt_cli.h"
#include "rt_cli_common.h"
#include "rt_generators.h"
#include "rt_machine.h"
#include "rt_path.h"
#include "rt_space.h"

static const char *const tiers[RT_TIER_COUNT] = {"socket", "node", "global"};

/* The index-th problem point of the config (first domain slowest, as the runner enumerates). */
static int64_t problem_count(const rt_config *cfg)
{
    int64_t n = 1;
    for (int i = 0; i < cfg->n_problem; ++i)
        n *= cfg->problem[i].n_values > 0 ? cfg->problem[i].n_values : 1;
    return n;
}

static int problem_point(const rt_config *cfg, int64_t index, const rt_family_desc *fam,
                         rt_params *out, rt_err *err)
{
    rt_params given;
    rt_params_init(&given);
    for (int i = cfg->n_problem - 1; i >= 0; --i) {
        const rt_param_domain *d = &cfg->problem[i];
        if (d->n_values <= 0)
            continue;
        if (rt_params_set(&given, d->name, d->values[index % d->n_values], err) != 0)
            return -1;
        index /= d->n_values;
    }
    /* The family's parameters: the ones the config sets, the others at their defaults. */
    rt_params_init(out);
    for (int i = 0; i < fam->n_problem_params; ++i) {
        const rt_param_schema *s = &fam->problem_params[i];
        const rt_value *v = rt_params_get(&given, s->name);
        rt_value dv;
        if (!v) {
            if (rt_param_default(s, &dv, err) != 0)
                return -1;
            v = &dv;
        }
        if (rt_params_set(out, s->name, *v, err) != 0)
            return -1;
    }
    return 0;
}

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

static void json_text(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

/* What one point of the table says. */
typedef struct model_row {
    const char *experiment, *matrix, *kernel, *prec, *comm, *machine;
    int64_t k, minibatch;
    int p_batch;
    const rt_cli_model_opts *o;
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
    json_text(f, m->experiment);
    fprintf(f, ", \"matrix\": ");
    json_text(f, m->matrix);
    fprintf(f,
            ", \"kernel\": \"%s\", \"K\": %" PRId64 ", \"precision\": \"%s\", \"comm\": \"%s\", "
            "\"p_batch\": %d, \"minibatch\": %" PRId64 ", \"ranks\": %d, \"ranks_per_node\": %d, "
            "\"ranks_per_socket\": %d, \"status\": \"%s\", \"reason\": ",
            m->kernel, m->k, m->prec, m->comm, m->p_batch, m->minibatch, m->o->nranks,
            m->o->ranks_per_node, m->o->ranks_per_socket, m->ok ? "ok" : "infeasible");
    json_text(f, m->reason);
    fprintf(f, ", \"machine\": ");
    json_text(f, m->machine);
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

int rt_cli_model_run(const rt_config *cfg, const rt_registry *reg, const rt_cli_model_opts *o,
                     int *n_points, rt_err *err)
{
    *n_points = 0;
    int n_dspmm = 0;
    for (int ki = 0; ki < cfg->n_kernels; ++ki) {
        const rt_kernel_desc *kd = rt_registry_find_kernel(reg, cfg->kernels[ki].name);
        if (kd && strcmp(kd->family, "dspmm") == 0)
            ++n_dspmm;
        else if (o->out)
            fprintf(o->out, "  kernel %s skipped: the model covers the dspmm family only\n",
                    cfg->kernels[ki].name);
    }
    if (n_dspmm == 0)
        return rt_err_set(err,
                          "--model-only: experiment '%s' has no kernel of the dspmm family "
                          "(the distributed SpMM is what the model describes)",
                          cfg->name);

    /* Tier ceilings for the times: the machine file's effective (measured, else spec) values. */
    dspmm_model_opts mo;
    memset(&mo, 0, sizeof mo);
    mo.nranks = o->nranks;
    mo.ranks_per_node = o->ranks_per_node;
    mo.ranks_per_socket = o->ranks_per_socket;
    const char *mpath = o->machine;
    if (!mpath && cfg->machine[0] && strcmp(cfg->machine, "auto") != 0)
        mpath = cfg->machine;
    char machine_name[128] = "";
    if (mpath) {
        rt_machine *m = calloc(1, sizeof *m);
        if (!m)
            return rt_err_set(err, "--model-only: out of memory");
        if (rt_machine_load(mpath, m, err) != 0) {
            free(m);
            return rt_err_prefix(err, "--model-only: machine");
        }
        snprintf(machine_name, sizeof machine_name, "%s", m->name);
        mo.have_tiers = 1;
        for (int t = 0; t < RT_TIER_COUNT; ++t) {
            mo.tier_gbs[t] = m->effective.tier_gbs[t];
            mo.tier_latency_us[t] = m->effective.tier_latency_us[t];
            if (!(mo.tier_gbs[t] > 0)) {
                /* A machine without this tier (one socket per node): a job that never uses the
                 * tier needs no ceiling for it; one that does gets no predicted time. */
                mo.have_tiers = 0;
            }
        }
        free(m);
        if (!mo.have_tiers && o->out)
            fprintf(o->out, "  machine %s lacks a socket, node or global tier: volumes only\n",
                    machine_name);
    } else if (o->out) {
        fprintf(o->out, "  no machine file (`machine: auto` names none for a virtual job): volumes "
                        "only; pass --machine FILE for predicted times\n");
    }

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
        if (rt_matrix_build(mc->generator[0] ? mc->generator : NULL, &mc->gen,
                            mc->file[0] ? mc->file : NULL, mc->ordering[0] ? mc->ordering : NULL,
                            &a, err) != 0) {
            rc = rt_err_prefix(err, "matrix '%s'", mc->name);
            break;
        }
        if (o->out)
            fprintf(o->out, "matrix %s: %" PRId64 " x %" PRId64 ", %" PRId64 " nonzeros\n",
                    mc->name, a.rows, a.cols, a.nnz);
        for (int64_t pi = 0; pi < problem_count(cfg) && rc == 0; ++pi) {
            for (int ki = 0; ki < cfg->n_kernels && rc == 0; ++ki) {
                const rt_kernel_cfg *kc = &cfg->kernels[ki];
                const rt_kernel_desc *kd = rt_registry_find_kernel(reg, kc->name);
                if (!kd || strcmp(kd->family, "dspmm") != 0)
                    continue;
                const rt_family_desc *fam = rt_registry_find_family(reg, kd->family);
                rt_params problem;
                rt_space *space = NULL;
                if (problem_point(cfg, pi, fam, &problem, err) != 0 ||
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

/* mkdir -p of the folder that holds `path`. */
static int make_parent(const char *path, rt_err *err)
{
    char dir[PATH_MAX];
    if (rt_path_format(dir, sizeof dir, err, "%s", path) != 0)
        return -1;
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    for (char *p = dir + 1; *p; ++p)
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0777);
            *p = '/';
        }
    mkdir(dir, 0777);
    return 0;
}

int rt_cli_run_model_only(const char *config_path, const char *const *sets, int n_sets,
                          const char *db, const char *out, int model_only, long ranks,
                          long ranks_per_node, long ranks_per_socket, const char *machine,
                          int quiet)
{
    if (!model_only) {
        fprintf(stderr,
                "rooftune run: --ranks, --machine and --out apply only with --model-only (under "
                "mpirun the job's size is its number of ranks)\n");
        return RT_EXIT_USAGE;
    }
    if (ranks < 1) {
        fprintf(stderr, "rooftune run: --model-only needs --ranks N (the job size to plan for)\n");
        return RT_EXIT_USAGE;
    }
    if (ranks_per_node > 0 && ranks % ranks_per_node != 0) {
        fprintf(stderr,
                "rooftune run: --ranks-per-node %ld does not divide --ranks %ld (every node "
                "of a job is full)\n",
                ranks_per_node, ranks);
        return RT_EXIT_USAGE;
    }
    if (ranks_per_socket > 0 && ranks_per_node > 0 && ranks_per_socket > ranks_per_node) {
        fprintf(stderr, "rooftune run: --ranks-per-socket %ld exceeds --ranks-per-node %ld\n",
                ranks_per_socket, ranks_per_node);
        return RT_EXIT_USAGE;
    }
    rt_err err;
    rt_err_clear(&err);
    rt_config cfg;
    memset(&cfg, 0, sizeof cfg);
    rt_cli_env env;
    memset(&env, 0, sizeof env);
    int status = RT_EXIT_OK;
    if (rt_config_load(config_path, sets, n_sets, &cfg, &err) != 0) {
        fprintf(stderr, "rooftune run: %s\n", err.msg);
        return RT_EXIT_USAGE;
    }
    /* The registry only: the model computes, it never runs a kernel, so no backend is needed. */
    if (rt_cli_env_open(&env, 1, 0, 0, &err) != 0) {
        fprintf(stderr, "rooftune run: %s\n", err.msg);
        rt_config_free(&cfg);
        return RT_EXIT_FAILURE;
    }
    if (rt_config_check(&cfg, &env.registry, &err) != 0) {
        fprintf(stderr, "rooftune run: %s\n", err.msg);
        status = RT_EXIT_USAGE;
        goto done;
    }
    /* The tables go to --out, else beside --db, else to the current folder: never by default
     * over the copies committed under results/. */
    char out_dir[PATH_MAX];
    const char *where = out ? "--out" : "--db";
    int dir_ok = 1;
    if (out) {
        char probe[PATH_MAX];
        dir_ok = rt_path_format(out_dir, sizeof out_dir, &err, "%s", out) == 0 &&
                 rt_path_format(probe, sizeof probe, &err, "%s/x", out) == 0 &&
                 make_parent(probe, &err) == 0;
    } else if (db) {
        dir_ok = rt_path_format(out_dir, sizeof out_dir, &err, "%s", db) == 0 &&
                 make_parent(db, &err) == 0;
        char *slash = strrchr(out_dir, '/');
        if (slash)
            *slash = '\0';
        else
            snprintf(out_dir, sizeof out_dir, ".");
    } else {
        snprintf(out_dir, sizeof out_dir, ".");
    }
    if (!dir_ok) {
        fprintf(stderr, "rooftune run: %s: %s\n", where, err.msg);
        status = RT_EXIT_USAGE;
        goto done;
    }
    if (!quiet) {
        printf("rooftune run --model-only: experiment '%s' (%s) for %ld rank(s)", cfg.name,
               config_path, ranks);
        if (ranks_per_node > 0)
            printf(", %ld per node", ranks_per_node);
        if (ranks_per_socket > 0)
            printf(", %ld per socket", ranks_per_socket);
        printf("; nothing is run or stored\n");
        fflush(stdout);
    }
    rt_cli_model_opts mo = {.nranks = (int)ranks,
                            .ranks_per_node = (int)ranks_per_node,
                            .ranks_per_socket = (int)ranks_per_socket,
                            .machine = machine,
                            .out_dir = out_dir,
                            .out = quiet ? NULL : stdout};
    int n = 0;
    if (rt_cli_model_run(&cfg, &env.registry, &mo, &n, &err) != 0) {
        fprintf(stderr, "rooftune run: %s\n", err.msg);
        status = RT_EXIT_FAILURE;
    }
done:
    rt_cli_env_close(&env);
    rt_config_free(&cfg);
    return status;
}
