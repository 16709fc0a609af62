/* The stopping criterion a config picks (measure.stop), through the real runner: a test-only
 * kernel reports synthetic times from a deterministic stream (steady: 0.1% noise; wide: +-50%,
 * the same all along) instead of timing itself, and each config runs both streams into a store.
 * With stop: confidence the steady point stops at the first 95% interval of the median (6
 * samples) and the wide one runs to max_reps, noisy; with stop: noise the steady point stops at
 * the first noise estimate (5 samples) and the wide one once its noise has settled, well before
 * max_reps, noisy as well.
 *
 * Usage: test_stop_run WORK_DIR */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mpi.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_backend.h"
#include "rt_comm.h"
#include "rt_config.h"
#include "rt_kernels.h"
#include "rt_runner.h"
#include "rt_test.h"

#define N_OUT    4
#define MAX_REPS 300

/* The family: an output of N_OUT ones, whatever the matrix. */
static int stream_make_inputs(const rt_csr *a, const rt_params *problem, void **inputs, rt_err *err)
{
    (void)a;
    (void)problem;
    *inputs = calloc(1, sizeof(int));
    return *inputs ? 0 : rt_err_set(err, "out of memory");
}

static int64_t stream_output_elems(const void *inputs)
{
    (void)inputs;
    return N_OUT;
}

static double stream_tolerance(const void *inputs)
{
    (void)inputs;
    return 1e-12;
}

static int stream_reference(const void *inputs, double *out, rt_err *err)
{
    (void)inputs;
    (void)err;
    for (int i = 0; i < N_OUT; ++i)
        out[i] = 1.0;
    return 0;
}

static double stream_flops(const void *inputs)
{
    (void)inputs;
    return 1e6;
}

static const rt_family_desc stream_family = {.name = "stream",
                                             .summary = "synthetic times",
                                             .make_inputs = stream_make_inputs,
                                             .free_inputs = free,
                                             .output_elems = stream_output_elems,
                                             .tolerance = stream_tolerance,
                                             .reference = stream_reference,
                                             .flops = stream_flops};

/* The kernel: each run reports the next value of its stream. */
typedef struct stream_state {
    double spread;
    uint64_t rng;
} stream_state;

static const rt_param_schema stream_params[] = {
    {"shape", RT_V_STR, "steady|wide", "steady", 0, "steady: 0.1% noise; wide: +-50%"}};

static int stream_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                        const rt_kernel_env *env, void **state, rt_err *err)
{
    (void)self;
    (void)inputs;
    (void)env;
    stream_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "out of memory");
    s->spread = strcmp(rt_params_str(p, "shape", "steady"), "wide") == 0 ? 0.5 : 0.001;
    s->rng = 7;
    *state = s;
    return 0;
}

/* 1 ms x (1 + spread x u), u uniform in [-1, 1) (splitmix64). */
static int stream_run(void *state, double *seconds, rt_err *err)
{
    (void)err;
    stream_state *s = state;
    uint64_t z = (s->rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    const double u = 2.0 * ((double)(z >> 11) / 9007199254740992.0) - 1.0;
    *seconds = 1e-3 * (1.0 + s->spread * u);
    return 0;
}

static int stream_output(void *state, double *out, rt_err *err)
{
    (void)state;
    (void)err;
    for (int i = 0; i < N_OUT; ++i)
        out[i] = 1.0;
    return 0;
}

static const rt_kernel_desc stream_kernel = {.name = "stream.cpu.synthetic",
                                             .family = "stream",
                                             .backend = "cpu",
                                             .summary = "synthetic times",
                                             .params = stream_params,
                                             .n_params = 1,
                                             .setup = stream_setup,
                                             .run = stream_run,
                                             .output = stream_output,
                                             .teardown = free};

/* Samples and the noisy metric of the point of `shape`. */
static void read_point(const char *db, const char *shape, int *n_samples, int *noisy)
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT (SELECT count(*) FROM samples s WHERE s.point_id = p.id), "
             "EXISTS (SELECT 1 FROM metrics m WHERE m.point_id = p.id AND m.name = 'noisy' "
             "AND m.value = 1) FROM points p WHERE params->>'shape' = '%s' AND status = 'ok'",
             shape);
    *n_samples = *noisy = -1;
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
        *n_samples = sqlite3_column_int(st, 0);
        *noisy = sqlite3_column_int(st, 1);
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
}

static int run_with(rt_comm *comm, const char *work, const char *stop, rt_run_summary *sum,
                    char *db, size_t db_len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/stop-%s.yaml", work, stop);
    snprintf(db, db_len, "%s/stop-%s.db", work, stop);
    unlink(db);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f,
            "experiment: {name: stop-%s}\n"
            "matrices: [{name: m, generator: banded, rows: 8, bandwidth: 1}]\n"
            "kernels: [{name: stream.cpu.synthetic, params: {shape: [steady, wide]}}]\n"
            "measure: {stop: %s, warmup: 0, min_reps: 1, max_reps: %d, max_time_s: 100,\n"
            "          target_rel_ci: 0.02, max_noise: 0.01}\n",
            stop, stop, MAX_REPS);
    fclose(f);
    rt_err err = {{0}};
    rt_registry reg = {0};
    rt_backend be = {0};
    rt_config cfg = {0};
    const rt_backend_options bo = {.disable_cuda = 1};
    int rc = -1;
    *sum = (rt_run_summary){0};
    /* The built-in registry too: the backend registers the CUDA catalog's families' kernels. */
    if (rt_kernels_register_builtin(&reg, &err) != 0 ||
        rt_registry_add_family(&reg, &stream_family, &err) != 0 ||
        rt_registry_add_kernel(&reg, &stream_kernel, &err) != 0 ||
        rt_backend_open(&be, &bo, &reg, &err) != 0 ||
        rt_config_load(path, NULL, 0, &cfg, &err) != 0 || rt_config_check(&cfg, &reg, &err) != 0)
        goto out;
    const rt_run_options ro = {.db_path = db, .machine_dir = "", .command_line = "test"};
    rc = rt_run_experiment(&cfg, &reg, &be, comm, &ro, sum, &err);
out:
    if (rc != 0)
        fprintf(stderr, "stop: %s: %s\n", stop, err.msg);
    rt_config_free(&cfg);
    rt_backend_close(&be, &reg);
    return rc;
}

static void check_criteria(rt_comm *comm, const char *work)
{
    char db[1100];
    rt_run_summary sum;
    int n, noisy;

    RT_CHECK(run_with(comm, work, "confidence", &sum, db, sizeof db) == 0);
    RT_CHECK_MSG(sum.measured == 2 && sum.noisy == 1, "confidence: %d measured, %d noisy",
                 sum.measured, sum.noisy);
    read_point(db, "steady", &n, &noisy);
    RT_CHECK_MSG(n == 6 && noisy == 0, "confidence, steady: %d samples, noisy %d", n, noisy);
    read_point(db, "wide", &n, &noisy);
    RT_CHECK_MSG(n == MAX_REPS && noisy == 1, "confidence, wide: %d samples, noisy %d", n, noisy);

    RT_CHECK(run_with(comm, work, "noise", &sum, db, sizeof db) == 0);
    RT_CHECK_MSG(sum.measured == 2 && sum.noisy == 1, "noise: %d measured, %d noisy", sum.measured,
                 sum.noisy);
    read_point(db, "steady", &n, &noisy);
    RT_CHECK_MSG(n == 5 && noisy == 0, "noise, steady: %d samples, noisy %d", n, noisy);
    read_point(db, "wide", &n, &noisy);
    RT_CHECK_MSG(n >= 80 && n <= 160 && n % 16 == 0 && noisy == 1,
                 "noise, wide: %d samples (settled at a multiple of 16), noisy %d", n, noisy);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    rt_comm *comm = NULL;
    rt_err err;
    rt_err_clear(&err);
    const int ok = argc == 2 && rt_comm_create(NULL, &comm, &err) == 0;
    if (ok) {
        mkdir(argv[1], 0777); /* it may be there from an earlier run */
        check_criteria(comm, argv[1]);
    } else {
        fprintf(stderr, "%s\n", argc == 2 ? err.msg : "usage: test_stop_run WORK_DIR");
    }
    rt_comm_free(comm);
    MPI_Finalize();
    return ok ? RT_TEST_RESULT() : 2;
}
