#define _GNU_SOURCE
#include "rt_cli_common.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_cli.h"
#include "rt_comm.h"
#include "rt_config.h"
#include "rt_criterion.h"
#include "rt_kernels.h"
#include "rt_machine.h"
#include "rt_path.h"
#include "rt_roofline_plot.h"
#include "rt_store_read.h"
#include "rt_strutil.h"
#include "user_register.h"

int rt_cli_env_open(rt_cli_env *env, int cpu_only, int local_rank, int verbose, rt_err *err)
{
    memset(env, 0, sizeof *env);
    rt_registry_init(&env->registry);
    if (rt_kernels_register_builtin(&env->registry, err) != 0)
        return rt_err_prefix(err, "registering built-in kernels");
    rt_backend_options bo = {.plugin_dir = NULL,
                             .cache_dir = NULL,
                             .local_rank = local_rank,
                             .disable_cuda = cpu_only,
                             .verbose = verbose};
    if (rt_backend_open(&env->backend, &bo, &env->registry, err) != 0)
        return -1;
    env->backend_open = 1;
    return 0;
}

void rt_cli_env_close(rt_cli_env *env)
{
    /* Before the backend: the specs' CUDA kernels hold the plugin's context. */
    rt_user_set_free(env->user, &env->registry);
    env->user = NULL;
    if (env->backend_open)
        rt_backend_close(&env->backend, &env->registry);
    env->backend_open = 0;
}

int rt_cli_env_user_kernels(rt_cli_env *env, rt_config *cfg, rt_err *err)
{
    if (cfg->n_user_kernels == 0)
        return 0;
    char cache[PATH_MAX], worker[PATH_MAX + 32] = "rooftune-user-worker", exe[PATH_MAX];
    if (rt_backend_default_cache_dir(cache, sizeof cache, err) != 0)
        return rt_err_prefix(err, "user_kernels");
    /* The worker is built beside the rooftune binary. */
    if (rt_path_exe_dir(exe, sizeof exe) == 0) {
        if (rt_path_format(worker, sizeof worker, err, "%s/rooftune-user-worker", exe) != 0)
            return rt_err_prefix(err, "user_kernels");
    }
    const char *paths[RT_USER_MAX_SPECS];
    if (cfg->n_user_kernels > RT_USER_MAX_SPECS) {
        const rt_src_loc *at = &cfg->user_kernel_locs[RT_USER_MAX_SPECS];
        return rt_err_set(err, "%s:%d:%d: user_kernels: %d specs, at most %d in one config",
                          at->file, at->line, at->col, cfg->n_user_kernels, RT_USER_MAX_SPECS);
    }
    /* The config resolved each against the folder of the file that names it. */
    for (int i = 0; i < cfg->n_user_kernels; ++i)
        paths[i] = cfg->user_kernels[i];
    const rt_user_options opt = {
        .cache_dir = cache, .worker_path = worker, .timeout_s = cfg->measure.point_timeout_s};
    if (rt_user_set_load(paths, cfg->n_user_kernels, &opt, &env->registry, &env->user, err) != 0) {
        const rt_src_loc *at = &cfg->user_kernel_locs[0];
        return rt_err_prefix(err, "%s:%d:%d: user_kernels", at->file, at->line, at->col);
    }
    char both[40];
    snprintf(both, sizeof both, "%s%s", cfg->hash, rt_user_set_hash(env->user));
    rt_hash_hex(rt_hash64(both, strlen(both), 0), cfg->hash);
    return 0;
}

int rt_cli_parse_int(const char *option, const char *text, long min, long max, long *out,
                     rt_err *err)
{
    char *end = NULL;
    errno = 0;
    const long v = strtol(text, &end, 10);
    if (errno != 0 || !end || *end != '\0' || end == text || v < min || v > max)
        return rt_err_set(err, "%s expects an integer from %ld to %ld, got '%s'", option, min, max,
                          text);
    *out = v;
    return 0;
}

int rt_cli_parse_ll(const char *option, const char *text, long long min, long long max,
                    long long *out, rt_err *err)
{
    char *end = NULL;
    errno = 0;
    const long long v = strtoll(text, &end, 10);
    if (errno != 0 || !end || *end != '\0' || end == text || v < min || v > max)
        return rt_err_set(err, "%s expects an integer from %lld to %lld, got '%s'", option, min,
                          max, text);
    *out = v;
    return 0;
}

int rt_cli_parse_real(const char *option, const char *text, double min, double max, double *out,
                      rt_err *err)
{
    char *end = NULL;
    errno = 0;
    const double v = strtod(text, &end);
    if (!end || *end != '\0' || end == text || !isfinite(v) || v < min || v > max)
        return rt_err_set(err, "%s expects a number from %g to %g, got '%s'", option, min, max,
                          text);
    *out = v;
    return 0;
}

int rt_cli_check_arch(const char *option, const char *arch, rt_err *err)
{
    if (strcmp(arch, "cpu") == 0)
        return 0;
    const size_t n = strlen(arch);
    int digits = strncmp(arch, "sm_", 3) == 0 && (n == 5 || n == 6) && arch[3] != '0';
    for (size_t k = 3; digits && k < n; ++k)
        digits = arch[k] >= '0' && arch[k] <= '9';
    if (!digits)
        return rt_err_set(err,
                          "%s expects sm_XY or sm_XYZ (a compute capability, e.g. sm_90 or "
                          "sm_120) or cpu, got '%s'",
                          option, arch);
    return 0;
}

int rt_cli_machine_dir(char *buf, unsigned long len, rt_err *err)
{
    const char *env = getenv("ROOFTUNE_MACHINE_DIR");
    if (env && *env)
        return rt_path_format(buf, len, err, "%s", env) == 0
                   ? 0
                   : rt_err_prefix(err, "ROOFTUNE_MACHINE_DIR");
    /* The binary lives in <source>/build/; machine files in <source>/roofline/machines. */
    char exe[PATH_MAX];
    if (rt_path_exe_dir(exe, sizeof exe) == 0) {
        char candidate[PATH_MAX + 64];
        if (rt_path_format(candidate, sizeof candidate, err, "%s/../roofline/machines", exe) != 0)
            return rt_err_prefix(err, "the machine folder");
        if (access(candidate, R_OK) == 0)
            return rt_path_format(buf, len, err, "%s", candidate) == 0
                       ? 0
                       : rt_err_prefix(err, "the machine folder");
    }
    return rt_path_format(buf, len, err, "roofline/machines");
}

int rt_cli_roofline_figure(struct sqlite3 *db, const char *experiment, const char *machine_path,
                           const char *out_dir, rt_err *err)
{
    char path[PATH_MAX] = "";
    int generic = 0;
    if (machine_path) {
        if (rt_path_format(path, sizeof path, err, "%s", machine_path) != 0)
            return rt_err_prefix(err, "roofline figure");
    } else {
        char device[256] = "", dir[PATH_MAX];
        rt_store_run run;
        int found = 0;
        rt_err run_err;
        if (rt_store_newest_run(db, experiment, &run, &found, &run_err) == 0 && found)
            snprintf(device, sizeof device, "%s", run.device);
        rt_store_run_free(&run);
        if (rt_cli_machine_dir(dir, sizeof dir, err) != 0)
            return -1;
        rt_err find_err;
        if (rt_machine_find(dir, device, 0, path, sizeof path, &generic, &find_err) != 0) {
            printf("roofline: no machine file for device '%s' (%s); figure skipped\n", device,
                   find_err.msg);
            return 0;
        }
    }
    rt_machine m;
    if (rt_machine_load(path, &m, err) != 0)
        return -1;
    rt_roofline_plot_opts ro = {.out_dir = out_dir, .stem = NULL, .title = NULL, .run_gnuplot = 1};
    rt_roofline_plot_result rr;
    if (rt_roofline_plot_store(db, experiment, &m, &ro, &rr, err) != 0)
        return -1;
    printf("roofline: %d figure(s), %d point(s) against machine '%s'%s%s%s\n", rr.n_figures,
           rr.n_points, m.name, generic ? " (generic ceilings)" : "", rr.message[0] ? ": " : "",
           rr.message);
    return 0;
}

int rt_cli_mpi_start(const char *cmd, long ranks_per_node, long ranks_per_socket, int defer,
                     struct rt_comm **comm)
{
    rt_err err;
    rt_err_clear(&err);
    const rt_comm_opts copt = {.ranks_per_node = (int)ranks_per_node,
                               .ranks_per_socket = (int)ranks_per_socket};
    const int alone = defer && !rt_comm_launched();
    if (!alone)
        MPI_Init(NULL, NULL);
    if ((alone ? rt_comm_create_alone(&copt, comm, &err) : rt_comm_create(&copt, comm, &err)) !=
        0) {
        fprintf(stderr, "rooftune %s: %s\n", cmd, err.msg);
        rt_comm_mpi_end();
        return -1;
    }
    return 0;
}

int rt_cli_reps_warn(const struct rt_config *cfg, FILE *log)
{
    const rt_criterion_params p = {.target_rel_ci = cfg->measure.target_rel_ci,
                                   .confidence = cfg->measure.confidence,
                                   .max_noise = cfg->measure.max_noise};
    char msg[512];
    if (!rt_criterion_check_reps(cfg->measure.stop, &p, cfg->measure.max_reps, msg, sizeof msg))
        return 0;
    if (log)
        fprintf(log, "  warning: %s\n", msg);
    return 1;
}
