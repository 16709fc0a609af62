/* CPU SpMM kernels (spmm.cpu.csr, spmm.cpu.ell) against a dense product computed here from the
 * triplets, over awkward shapes and many parameter combinations; parameter garbage; metrics; and
 * a deliberately broken kernel showing that the NAN poisoning of C exposes an unwritten row. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kt_util.h"
#include "rt_test.h"
#include "spmm_cpu_common.h"
#include "spmm_cpu_csr.h"
#include "spmm_cpu_ell.h"
#include "spmm_family.h"

typedef struct test_matrix {
    const char *name;
    kt_coo coo;
    rt_csr csr;
} test_matrix;

static int n_points = 0;

/* The matrices every kernel test sweeps: each stresses a different corner. */
static int make_matrices(test_matrix *t)
{
    rt_err err;
    int n = 0;
    const int64_t empty[] = {0, 5, 36}; /* first, middle and last rows empty */
    t[n].name = "random-37x23-empty-rows";
    kt_coo_random(&t[n].coo, 37, 23, 0.25, 1, empty, 3);
    ++n;
    t[n].name = "one-dense-row";
    kt_coo_dense_row(&t[n].coo, 9, 300, 4, 5, 7, 0.5, 299, -0.75);
    ++n;
    t[n].name = "single-column";
    kt_coo_column(&t[n].coo, 40, 3, 0.1);
    ++n;
    t[n].name = "no-nonzeros";
    kt_coo_init(&t[n].coo, 10, 7);
    ++n;
    t[n].name = "no-rows";
    kt_coo_init(&t[n].coo, 0, 5);
    ++n;
    t[n].name = "skewed-300x250";
    kt_coo_init(&t[n].coo, 300, 250);
    {
        uint64_t st = 77;
        for (int64_t r = 0; r < 300; ++r) {
            const int64_t len = (r % 17 == 0) ? 120 : (int64_t)(kt_rand(&st) % 6);
            for (int64_t j = 0; j < len; ++j)
                kt_coo_add(&t[n].coo, r, (int64_t)(kt_rand(&st) % 250), kt_value(&st));
        }
    }
    ++n;
    for (int i = 0; i < n; ++i)
        if (kt_coo_to_csr(&t[i].coo, &t[i].csr, &err) != 0) {
            fprintf(stderr, "%s: %s\n", t[i].name, err.msg);
            return -1;
        }
    return n;
}

static void free_matrices(test_matrix *t, int n)
{
    for (int i = 0; i < n; ++i) {
        rt_csr_free(&t[i].csr);
        kt_coo_free(&t[i].coo);
    }
}

/* Runs kernel k with params p on inputs and compares with the dense reference. */
static void check_point(const rt_kernel_desc *k, const test_matrix *t, const rt_spmm_inputs *in,
                        const double *dense, const rt_params *p)
{
    rt_err err;
    rt_err_clear(&err);
    const int64_t n = t->csr.rows * in->k;
    double *out = malloc((size_t)(n > 0 ? n : 1) * sizeof *out);
    rt_metrics m;
    rt_metrics_init(&m);
    const int rc = kt_run_kernel(k, in, p, out, &m, &err);
    char desc[512];
    rt_params_to_json(p, desc, sizeof desc);
    RT_CHECK_MSG(rc == 0, "%s on %s K=%lld %s %s %s: %s", k->name, t->name, (long long)in->k,
                 rt_precision_name(in->prec), rt_layout_name(in->layout), desc, err.msg);
    if (rc == 0) {
        const double rel = rt_spmm_rel_error(out, dense, n);
        const double tol = rt_spmm_family()->tolerance(in);
        RT_CHECK_MSG(rel <= tol, "%s on %s K=%lld %s %s %s: relative error %g > %g", k->name,
                     t->name, (long long)in->k, rt_precision_name(in->prec),
                     rt_layout_name(in->layout), desc, rel, tol);
        const rt_metric *chunks = rt_metrics_get(&m, "chunks");
        const int64_t rb = rt_params_int(p, "row_block", 256);
        RT_CHECK(chunks && chunks->deterministic &&
                 chunks->value == (double)((t->csr.rows + rb - 1) / rb));
        const rt_metric *threads = rt_metrics_get(&m, "threads");
        RT_CHECK(threads && threads->value >= 1);
        ++n_points;
    }
    free(out);
}

static void sweep_kernel(const rt_kernel_desc *k, test_matrix *mats, int n_mats)
{
    const int64_t ks[] = {1, 5, 16, 71};
    const int64_t row_blocks[] = {1, 3, 16, 1024};
    const int64_t col_blocks[] = {1, 4, 16, 65536};
    const int64_t threads[] = {0, 1, 2, 3};
    const int64_t slice_heights[] = {1, 4, 32};
    for (int mi = 0; mi < n_mats; ++mi)
        for (int ki = 0; ki < 4; ++ki)
            for (int prec = 0; prec < 2; ++prec)
                for (int lay = 0; lay < 2; ++lay) {
                    rt_spmm_inputs *in = NULL;
                    rt_err err;
                    if (rt_spmm_inputs_create(&mats[mi].csr, ks[ki], (rt_precision)prec,
                                              (rt_layout)lay, 3 + (uint64_t)ki, &in, &err) != 0) {
                        RT_CHECK_MSG(0, "%s: %s", mats[mi].name, err.msg);
                        continue;
                    }
                    const int64_t n = mats[mi].csr.rows * ks[ki];
                    double *dense = malloc((size_t)(n > 0 ? n : 1) * sizeof *dense);
                    kt_dense_reference(&mats[mi].coo, &in->b, dense);
                    int combo = 0;
                    for (int rb = 0; rb < 4; ++rb)
                        for (int cb = 0; cb < 4; ++cb, ++combo) {
                            rt_params p;
                            rt_params_init(&p);
                            rt_params_set(&p, "row_block", rt_value_int(row_blocks[rb]), &err);
                            rt_params_set(&p, "col_block", rt_value_int(col_blocks[cb]), &err);
                            rt_params_set(&p, "threads", rt_value_int(threads[combo % 4]), &err);
                            if (rt_kernel_find_param(k, "slice_height"))
                                rt_params_set(&p, "slice_height",
                                              rt_value_int(slice_heights[combo % 3]), &err);
                            check_point(k, &mats[mi], in, dense, &p);
                        }
                    free(dense);
                    rt_spmm_inputs_destroy(in);
                }
}

/* Out-of-domain and ill-typed parameters are errors naming the parameter; oversubscription is
 * infeasible, not an error. */
static void test_param_garbage(const rt_kernel_desc *k, const test_matrix *t)
{
    rt_spmm_inputs *in = NULL;
    rt_err err;
    RT_CHECK(rt_spmm_inputs_create(&t->csr, 4, RT_FP32, RT_ROW_MAJOR, 1, &in, &err) == 0);
    if (!in)
        return;
    struct {
        const char *name;
        rt_value v;
    } bad[] = {
        {"row_block", rt_value_int(0)},       {"row_block", rt_value_int(2000000)},
        {"col_block", rt_value_int(-1)},      {"col_block", rt_value_str("wide")},
        {"threads", rt_value_int(-2)},        {"threads", rt_value_real(1.5)},
        {"threads", rt_value_int(5000)},      {"slice_height", rt_value_int(0)},
        {"slice_height", rt_value_int(4096)},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        if (!rt_kernel_find_param(k, bad[i].name))
            continue;
        rt_params p;
        rt_params_init(&p);
        rt_params_set(&p, bad[i].name, bad[i].v, &err);
        void *state = NULL;
        rt_kernel_env env;
        memset(&env, 0, sizeof env);
        rt_err_clear(&err);
        RT_CHECK_MSG(k->setup(k, in, &p, &env, &state, &err) == -1 && state == NULL, "%s %s",
                     k->name, bad[i].name);
        RT_CHECK_MSG(rt_test_contains(err.msg, bad[i].name) && rt_test_contains(err.msg, k->name),
                     "%s", err.msg);
    }
    /* More threads than 4x the cores: infeasible from check and from setup alike. */
    rt_device_info dev;
    memset(&dev, 0, sizeof dev);
    snprintf(dev.backend, sizeof dev.backend, "cpu");
    dev.sm_count = 2;
    rt_kernel_env env;
    memset(&env, 0, sizeof env);
    env.device = &dev;
    rt_params p;
    rt_params_init(&p);
    rt_params_set(&p, "threads", rt_value_int(9), &err);
    char why[256] = "";
    RT_CHECK(k->check(k, in, &p, &env, why, sizeof why, &err) == RT_INFEASIBLE);
    RT_CHECK_MSG(rt_test_contains(why, "threads = 9") && rt_test_contains(why, "2"), "%s", why);
    void *state = NULL;
    RT_CHECK(k->setup(k, in, &p, &env, &state, &err) == RT_INFEASIBLE && state == NULL);
    RT_CHECK(rt_test_contains(err.msg, "threads"));
    rt_params_set(&p, "threads", rt_value_int(8), &err);
    RT_CHECK(k->check(k, in, &p, &env, why, sizeof why, &err) == 0);
    /* An empty parameter set runs on the schema defaults. */
    rt_params_init(&p);
    RT_CHECK(k->check(k, in, &p, &env, why, sizeof why, &err) == 0);
    rt_traffic tr;
    RT_CHECK(k->traffic(k, in, &p, &env, &tr, &err) == 0 &&
             tr.flops == 2.0 * (double)t->csr.nnz * 4.0 && tr.bytes[RT_LEVEL_DRAM] > 0);
    RT_CHECK(k->traffic(k, NULL, &p, &env, &tr, &err) != 0);
    RT_CHECK(k->setup(k, NULL, &p, &env, &state, &err) != 0 && state == NULL);
    rt_spmm_inputs_destroy(in);
}

/* ELL padding overhead on a hand-computed case: rows of length 1, 3 | 2, 0 with slices of 2
 * store 2*3 + 2*2 = 10 entries for 6 nonzeros. */
static void test_ell_padding_metric(void)
{
    kt_coo m;
    kt_coo_init(&m, 4, 5);
    kt_coo_add(&m, 0, 1, 1.0);
    kt_coo_add(&m, 1, 0, 1.0);
    kt_coo_add(&m, 1, 2, 1.0);
    kt_coo_add(&m, 1, 4, 1.0);
    kt_coo_add(&m, 2, 3, 1.0);
    kt_coo_add(&m, 2, 4, 1.0);
    rt_csr a;
    rt_err err;
    RT_CHECK(kt_coo_to_csr(&m, &a, &err) == 0);
    rt_spmm_inputs *in = NULL;
    RT_CHECK(rt_spmm_inputs_create(&a, 3, RT_FP64, RT_ROW_MAJOR, 1, &in, &err) == 0);
    rt_params p;
    rt_params_init(&p);
    rt_params_set(&p, "slice_height", rt_value_int(2), &err);
    double out[12];
    rt_metrics met;
    rt_metrics_init(&met);
    RT_CHECK(kt_run_kernel(rt_spmm_cpu_ell_kernel(), in, &p, out, &met, &err) == 0);
    const rt_metric *pad = rt_metrics_get(&met, "padding_overhead");
    RT_CHECK_MSG(pad && pad->deterministic && fabs(pad->value - (10.0 / 6.0 - 1.0)) < 1e-15, "%g",
                 pad ? pad->value : -1.0);
    const rt_metric *stored = rt_metrics_get(&met, "ell_stored");
    RT_CHECK(stored && stored->value == 10.0);
    rt_spmm_inputs_destroy(in);
    rt_csr_free(&a);
    kt_coo_free(&m);
}

/* ---- A broken kernel: CSR that skips row 3. Its C comes from rt_spmm_cpu_alloc_output, so
 * the row it never writes stays NAN and verification must fail. ---- */
typedef struct broken_state {
    const rt_spmm_inputs *in;
    rt_dense c;
} broken_state;

static int broken_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                        const rt_kernel_env *env, void **state, rt_err *err)
{
    broken_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "out of memory");
    s->in = inputs;
    if (rt_spmm_cpu_alloc_output(s->in, &s->c, err) != 0) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static int broken_run(void *state, double *seconds, rt_err *err)
{
    broken_state *s = state;
    const rt_csr *a = s->in->a;
    for (int64_t r = 0; r < a->rows; ++r) {
        if (r == 3)
            continue; /* the bug under test */
        for (int64_t j = 0; j < s->in->k; ++j) {
            double acc = 0.0;
            for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e)
                acc += a->val[e] * rt_dense_get(&s->in->b, a->colidx[e], j);
            rt_dense_set(&s->c, r, j, acc);
        }
    }
    *seconds = -1.0;
    return 0;
}

static int broken_output(void *state, double *out, rt_err *err)
{
    const broken_state *s = state;
    rt_spmm_dense_to_rowmajor(&s->c, out);
    return 0;
}

static void broken_teardown(void *state)
{
    broken_state *s = state;
    rt_dense_free(&s->c);
    free(s);
}

static void test_poison_catches_unwritten_row(void)
{
    static const rt_kernel_desc broken = {.name = "spmm.cpu.broken_skips_row3",
                                          .family = "spmm",
                                          .backend = "cpu",
                                          .setup = broken_setup,
                                          .run = broken_run,
                                          .output = broken_output,
                                          .teardown = broken_teardown};
    rt_registry reg;
    rt_err err;
    rt_registry_init(&reg);
    RT_CHECK(rt_registry_add_family(&reg, rt_spmm_family(), &err) == 0);
    RT_CHECK(rt_registry_add_kernel(&reg, &broken, &err) == 0);

    kt_coo m;
    kt_coo_random(&m, 12, 9, 0.4, 21, NULL, 0);
    rt_csr a;
    RT_CHECK(kt_coo_to_csr(&m, &a, &err) == 0);
    const rt_precision precs[] = {RT_FP32, RT_FP64};
    const rt_layout layouts[] = {RT_ROW_MAJOR, RT_COL_MAJOR};
    for (int pi = 0; pi < 2; ++pi)
        for (int li = 0; li < 2; ++li) {
            rt_spmm_inputs *in = NULL;
            RT_CHECK(rt_spmm_inputs_create(&a, 6, precs[pi], layouts[li], 2, &in, &err) == 0);
            if (!in)
                continue;
            double out[72], dense[72];
            rt_params p;
            rt_params_init(&p);
            kt_dense_reference(&m, &in->b, dense);
            RT_CHECK(kt_run_kernel(&broken, in, &p, out, NULL, &err) == 0);
            const double rel = rt_spmm_rel_error(out, dense, 72);
            RT_CHECK_MSG(!(rel <= rt_spmm_family()->tolerance(in)), "rel %g", rel);
            RT_CHECK(isinf(rel) || isnan(rel));
            for (int64_t j = 0; j < 6; ++j)
                RT_CHECK(isnan(out[3 * 6 + j]));
            /* The rows it did write are right: only the skipped row is caught. */
            RT_CHECK(fabs(out[2 * 6 + 1] - dense[2 * 6 + 1]) < 1e-5);
            rt_spmm_inputs_destroy(in);
        }
    rt_csr_free(&a);
    kt_coo_free(&m);
}

int main(void)
{
    test_matrix mats[8];
    const int n = make_matrices(mats);
    RT_CHECK(n > 0);
    if (n > 0) {
        sweep_kernel(rt_spmm_cpu_csr_kernel(), mats, n);
        sweep_kernel(rt_spmm_cpu_ell_kernel(), mats, n);
        test_param_garbage(rt_spmm_cpu_csr_kernel(), &mats[0]);
        test_param_garbage(rt_spmm_cpu_ell_kernel(), &mats[0]);
        free_matrices(mats, n);
    }
    test_ell_padding_metric();
    test_poison_catches_unwritten_row();
    printf("%d kernel points verified\n", n_points);
    RT_CHECK(n_points == 2 * 6 * 4 * 2 * 2 * 16);
    return RT_TEST_RESULT();
}
