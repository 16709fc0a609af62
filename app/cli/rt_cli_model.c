/* rooftune run --model-only: see rt_cli_model.h. */
#define _POSIX_C_SOURCE 200809L
#include "rt_cli_model.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cli.h"
#include "rt_cli_common.h"
#include "rt_machine.h"
#include "rt_model_run.h"
#include "rt_path.h"

int rt_cli_model_run(const rt_config *cfg, const rt_registry *reg, const rt_cli_model_opts *o,
                     int *n_points, rt_err *err)
{
    *n_points = 0;
    /* Tier ceilings for the times: the machine file's effective (measured, else spec) values. */
    rt_model_job job;
    memset(&job, 0, sizeof job);
    job.nranks = o->nranks;
    job.ranks_per_node = o->ranks_per_node;
    job.ranks_per_socket = o->ranks_per_socket;
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
            rt_err_prefix(err, "--model-only: machine");
            return RT_CLI_MODEL_BAD_INPUT; /* the user's file: exit 2, like any bad input */
        }
        snprintf(machine_name, sizeof machine_name, "%s", m->name);
        job.have_tiers = 1;
        for (int t = 0; t < RT_TIER_COUNT; ++t) {
            job.tier_gbs[t] = m->effective.tier_gbs[t];
            job.tier_latency_us[t] = m->effective.tier_latency_us[t];
            if (!(job.tier_gbs[t] > 0)) {
                /* A machine without this tier (one socket per node): a job that never uses the
                 * tier needs no ceiling for it; one that does gets no predicted time. */
                job.have_tiers = 0;
            }
        }
        free(m);
        if (!job.have_tiers && o->out)
            fprintf(o->out, "  machine %s lacks a socket, node or global tier: volumes only\n",
                    machine_name);
    } else if (o->out) {
        fprintf(o->out, "  no machine file (`machine: auto` names none for a virtual job): volumes "
                        "only; pass --machine FILE for predicted times\n");
    }
    job.machine_name = machine_name;
    return rt_model_run(cfg, reg, &job, o->out_dir, o->out, n_points, err);
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
                 rt_path_make_parent(probe, &err) == 0;
    } else if (db) {
        dir_ok = rt_path_format(out_dir, sizeof out_dir, &err, "%s", db) == 0 &&
                 rt_path_make_parent(db, &err) == 0;
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
    const int model_rc = rt_cli_model_run(&cfg, &env.registry, &mo, &n, &err);
    if (model_rc != 0) {
        fprintf(stderr, "rooftune run: %s\n", err.msg);
        status = model_rc == RT_CLI_MODEL_BAD_INPUT ? RT_EXIT_USAGE : RT_EXIT_FAILURE;
    }
done:
    rt_cli_env_close(&env);
    rt_config_free(&cfg);
    return status;
}
