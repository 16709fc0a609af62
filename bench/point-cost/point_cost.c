/* point_cost: the host side of one Tiled SpMM tuning point, timed step by step on a machine with
 * no GPU (issue 35: where the per-point overhead of tuning goes). For every matrix of a config it
 * builds the problem the runner builds (K, precision and layout given on the command line, B from
 * the family's default seed), then for each register_tile of the sweep times what the runner and
 * the CUDA plugin do on the host for one point:
 *   fingerprint  the matrix pattern's fingerprint that keys the plan summary (setup and the
 *                traffic model each take one)
 *   b_rows       the traffic model's count of the rows of B that A reads
 *   plan build   rt_tiled_plan_build at the point's buffsize (shared_kib * 1024 / (register_tile *
 *                value bytes), as spmm.cuda.tiled computes it): the whole build, footprints
 *                included, as a point without the sweep's footprints pays it
 *   plan from fp rt_tiled_plan_build_with from the matrix's footprints (rt_tiled_footprints_build,
 *                timed once per matrix), what every point of a sweep after the first pays
 *   plan verify  rt_tiled_plan_verify of that plan
 *   poison       the verify gate's NaN fill of the m x K output (rt_verify_poison)
 *   convert      the device's C (here: the reference in the point's precision and layout) into
 *                row-major doubles (rt_spmm_dense_to_rowmajor, what the plugin's output hook uses)
 *   compare      rt_verify_output against the reference with the elementwise scale
 * The verify gate runs poison + convert + compare twice per point (once before the repetitions,
 * once after). Times are medians over the sweep's points, in milliseconds; the GPU steps (uploads,
 * allocations, module loads, the kernel) are not here.
 *
 *   point_cost CONFIG [--k 64] [--fp64] [--row] [--tiles 1-32] [--shared-kib 227]
 *              [--block 1024] [--reps 1]
 * OMP_NUM_THREADS sets the threads, as in a tuning run. Exit status 2 on bad arguments. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "rt_clock.h"
#include "rt_comm.h"
#include "rt_config.h"
#include "rt_kernels.h"
#include "rt_registry.h"
#include "rt_verify.h"
#include "rt_walk.h"
#include "spmm_inputs.h"
#include "spmm_tiled.h"
#include "spmm_traffic.h"

typedef struct opts {
    const char *config;
    int64_t k, shared_kib, block;
    rt_precision prec;
    rt_layout layout;
    int tile_lo, tile_hi, reps;
} opts;

static int usage(const char *why)
{
    fprintf(stderr,
            "point_cost: %s\nusage: point_cost CONFIG [--k N] [--fp64] [--row] [--tiles LO-HI] "
            "[--shared-kib N] [--block N] [--reps N]\n",
            why);
    return 2;
}

static int parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end = NULL;
    const long long v = strtoll(s, &end, 10);
    if (!s[0] || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse(int argc, char **argv, opts *o)
{
    *o = (opts){.k = 64,
                .shared_kib = 227,
                .block = 1024,
                .prec = RT_FP32,
                .layout = RT_COL_MAJOR,
                .tile_lo = 1,
                .tile_hi = 32,
                .reps = 1};
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int64_t x = 0, y = 0;
        if (strcmp(a, "--fp64") == 0)
            o->prec = RT_FP64;
        else if (strcmp(a, "--row") == 0)
            o->layout = RT_ROW_MAJOR;
        else if (strcmp(a, "--k") == 0 && v && parse_int(v, 1, 65536, &o->k) == 0)
            ++i;
        else if (strcmp(a, "--shared-kib") == 0 && v && parse_int(v, 1, 1024, &o->shared_kib) == 0)
            ++i;
        else if (strcmp(a, "--block") == 0 && v && parse_int(v, 32, 1024, &o->block) == 0 &&
                 o->block % 32 == 0)
            ++i;
        else if (strcmp(a, "--reps") == 0 && v && parse_int(v, 1, 100, &x) == 0) {
            o->reps = (int)x;
            ++i;
        } else if (strcmp(a, "--tiles") == 0 && v) {
            char lo[16], hi[16];
            if (sscanf(v, "%15[0-9]-%15[0-9]", lo, hi) != 2 || parse_int(lo, 1, 256, &x) != 0 ||
                parse_int(hi, x, 256, &y) != 0)
                return usage("--tiles takes LO-HI, 1 <= LO <= HI <= 256");
            o->tile_lo = (int)x;
            o->tile_hi = (int)y;
            ++i;
        } else if (a[0] != '-' && !o->config)
            o->config = a;
        else {
            char why[128];
            snprintf(why, sizeof why, "bad argument '%s'", a);
            return usage(why);
        }
    }
    return o->config ? 0 : usage("no config given");
}

static int cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

enum { T_FP, T_BROWS, T_BUILD, T_WITH, T_PVERIFY, T_POISON, T_CONVERT, T_COMPARE, T_N };
static const char *const step_names[T_N] = {"fingerprint", "b_rows", "plan build", "plan from fp",
                                            "plan verify", "poison", "convert",    "compare"};

/* The device's C as the plugin reads it back: the reference in the point's storage. */
static int device_c(const rt_spmm_inputs *in, const double *ref, rt_dense *c, rt_err *err)
{
    const int64_t m = in->a->rows, k = in->k;
    const size_t elem = rt_precision_bytes(in->prec);
    *c = (rt_dense){.rows = m,
                    .cols = k,
                    .ld = in->layout == RT_ROW_MAJOR ? k : m,
                    .prec = in->prec,
                    .layout = in->layout};
    c->data = malloc((size_t)(m * k > 0 ? m * k : 1) * elem);
    if (!c->data)
        return rt_err_set(err, "out of memory for C");
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < k; ++j) {
            const int64_t at = in->layout == RT_ROW_MAJOR ? i * k + j : j * m + i;
            if (in->prec == RT_FP32)
                ((float *)c->data)[at] = (float)ref[i * k + j];
            else
                ((double *)c->data)[at] = ref[i * k + j];
        }
    return 0;
}

static int one_matrix(const opts *o, const rt_registry *reg, rt_comm *comm, const rt_matrix_cfg *mc,
                      rt_err *err)
{
    rt_csr a;
    double t0 = rt_clock_now();
    if (rt_walk_build_matrix(mc, &a, err) != 0)
        return -1;
    printf("%s: %lld x %lld, nnz %lld (built in %.2f s)\n", mc->name, (long long)a.rows,
           (long long)a.cols, (long long)a.nnz, rt_clock_now() - t0);
    rt_spmm_inputs *in = NULL;
    if (rt_spmm_inputs_create(&a, o->k, o->prec, o->layout, 1, &in, err) != 0) {
        rt_csr_free(&a);
        return -1;
    }
    const rt_family_desc *fam = rt_registry_find_family(reg, "spmm");
    const int64_t n = a.rows * o->k;
    double *ref = malloc((size_t)n * sizeof *ref), *scale = malloc((size_t)n * sizeof *scale);
    double *out = malloc((size_t)n * sizeof *out);
    rt_dense c = {0};
    int rc = -1;
    if (!fam || !ref || !scale || !out) {
        rt_err_set(err, "out of memory (or no spmm family) for %lld outputs", (long long)n);
        goto done;
    }
    if (fam->reference(in, ref, err) != 0 || fam->reference_scale(in, scale, err) != 0 ||
        device_c(in, ref, &c, err) != 0)
        goto done;
    const double tol = fam->tolerance(in);
    rt_tiled_footprints fps;
    t0 = rt_clock_now();
    if (rt_tiled_footprints_build(&a, (int)o->block, &fps, err) != 0)
        goto done;
    printf("  footprints (once per matrix and block size): %.1f ms\n", (rt_clock_now() - t0) * 1e3);
    const int npts = (o->tile_hi - o->tile_lo + 1) * o->reps;
    double *t[T_N];
    for (int s = 0; s < T_N; ++s)
        t[s] = calloc((size_t)npts, sizeof(double));
    int pt = 0;
    for (int rep = 0; rep < o->reps; ++rep)
        for (int tile = o->tile_lo; tile <= o->tile_hi; ++tile, ++pt) {
            const int64_t elem = (int64_t)rt_precision_bytes(o->prec);
            const rt_tiled_params p = {.block_size = (int)o->block,
                                       .buffsize = o->shared_kib * 1024 / (tile * elem),
                                       .warp_size = 32,
                                       .use_ell = 1,
                                       .index_bytes = 2};
            t0 = rt_clock_now();
            volatile uint64_t fp = rt_tiled_pattern_fingerprint(&a);
            (void)fp;
            t[T_FP][pt] = rt_clock_now() - t0;
            int64_t rows_read = 0;
            t0 = rt_clock_now();
            if (rt_spmm_b_rows_read(&a, &rows_read, err) != 0)
                goto freet;
            t[T_BROWS][pt] = rt_clock_now() - t0;
            rt_tiled_plan plan;
            t0 = rt_clock_now();
            if (rt_tiled_plan_build(&a, &p, &plan, err) != 0)
                goto freet;
            t[T_BUILD][pt] = rt_clock_now() - t0;
            rt_tiled_plan_free(&plan);
            t0 = rt_clock_now();
            if (rt_tiled_plan_build_with(&a, &p, &fps, &plan, err) != 0)
                goto freet;
            t[T_WITH][pt] = rt_clock_now() - t0;
            t0 = rt_clock_now();
            const int bad = rt_tiled_plan_verify(&plan, &a, err);
            t[T_PVERIFY][pt] = rt_clock_now() - t0;
            rt_tiled_plan_free(&plan);
            if (bad)
                goto freet;
            t0 = rt_clock_now();
            rt_verify_poison(out, n);
            t[T_POISON][pt] = rt_clock_now() - t0;
            t0 = rt_clock_now();
            rt_spmm_dense_to_rowmajor(&c, out);
            t[T_CONVERT][pt] = rt_clock_now() - t0;
            rt_verify_result vr;
            t0 = rt_clock_now();
            if (rt_verify_output(comm, out, ref, scale, n, tol, &vr, err) != 0)
                goto freet;
            t[T_COMPARE][pt] = rt_clock_now() - t0;
            if (!rt_verify_passed(&vr)) {
                rt_err_set(err, "the output did not verify: relative error %g", vr.rel_error);
                goto freet;
            }
        }
    printf("  %d point(s), %d thread(s); median ms per point:", npts, omp_get_max_threads());
    double total = 0;
    for (int s = 0; s < T_N; ++s) {
        const double ms = median(t[s], npts) * 1e3;
        /* Per point: two fingerprints (setup, traffic model), the plan from the footprints (not
         * the whole build) and two verify passes. */
        total += s == T_BUILD ? 0.0 : ms * ((s == T_FP || s >= T_POISON) ? 2.0 : 1.0);
        printf(" %s %.1f", step_names[s], ms);
    }
    printf("\n  host total per point (2 fingerprints, the plan from the footprints, 2 verify "
           "passes): %.1f ms\n",
           total);
    rc = 0;
freet:
    for (int s = 0; s < T_N; ++s)
        free(t[s]);
    rt_tiled_footprints_free(&fps);
done:
    free(ref);
    free(scale);
    free(out);
    free(c.data);
    rt_spmm_inputs_destroy(in);
    rt_csr_free(&a);
    return rc;
}

int main(int argc, char **argv)
{
    opts o;
    if (parse(argc, argv, &o) != 0)
        return 2;
    MPI_Init(&argc, &argv);
    rt_err err;
    rt_err_clear(&err);
    rt_config cfg;
    rt_registry reg;
    rt_registry_init(&reg);
    rt_comm *comm = NULL;
    int rc = 0;
    if (rt_config_load(o.config, NULL, 0, &cfg, &err) != 0) {
        fprintf(stderr, "point_cost: %s\n", err.msg);
        MPI_Finalize();
        return 2;
    }
    if (rt_kernels_register_builtin(&reg, &err) != 0 || rt_comm_create_self(&comm, &err) != 0)
        rc = 1;
    for (int i = 0; i < cfg.n_matrices && rc == 0; ++i)
        if (one_matrix(&o, &reg, comm, &cfg.matrices[i], &err) != 0)
            rc = 1;
    if (rc)
        fprintf(stderr, "point_cost: %s\n", err.msg);
    rt_comm_free(comm);
    rt_config_free(&cfg);
    MPI_Finalize();
    return rc;
}
