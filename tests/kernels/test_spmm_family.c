/* The spmm family: inputs from problem parameters (and garbage ones), the reference against an
 * independent dense product, tolerance and relative-error logic, traffic, registration. */
#include <math.h>
#include <stdlib.h>

#include "kt_util.h"
#include "rt_kernels.h"
#include "rt_schema.h"
#include "rt_test.h"
#include "spmm_family.h"
#include "spmm_traffic.h"

static void set_problem(rt_params *p, int64_t k, const char *prec, const char *layout, int64_t seed)
{
    rt_err err;
    rt_params_init(p);
    rt_params_set(p, "K", rt_value_int(k), &err);
    rt_params_set(p, "precision", rt_value_str(prec), &err);
    rt_params_set(p, "layout", rt_value_str(layout), &err);
    rt_params_set(p, "seed", rt_value_int(seed), &err);
}

/* The family reference equals the dense product of the triplets, in every layout/precision. */
/* A 5 x 6 random matrix (about half its entries, seed 3) as CSR: the cases about parameters. */
static void small_matrix(rt_csr *a)
{
    kt_coo m;
    kt_coo_random(&m, 5, 6, 0.5, 3, NULL, 0);
    rt_err err;
    RT_CHECK(kt_coo_to_csr(&m, a, &err) == 0);
    kt_coo_free(&m);
}

static void test_reference(void)
{
    const rt_job alone = rt_job_alone(); /* one process: the whole problem */
    const rt_family_desc *fam = rt_spmm_family();
    const int64_t empty[] = {0, 4, 30};
    kt_coo m;
    kt_coo_random(&m, 31, 17, 0.3, 11, empty, 3);
    kt_coo_add(&m, 2, 3, 0.5); /* a duplicate: CSR sums it, the dense builder adds it too */
    kt_coo_add(&m, 2, 3, 0.25);
    rt_csr a;
    rt_err err;
    RT_CHECK(kt_coo_to_csr(&m, &a, &err) == 0);
    const int64_t ks[] = {1, 7, 32};
    const char *precs[] = {"fp32", "fp64"};
    const char *layouts[] = {"row", "col"};
    for (int ki = 0; ki < 3; ++ki)
        for (int pi = 0; pi < 2; ++pi)
            for (int li = 0; li < 2; ++li) {
                rt_params p;
                set_problem(&p, ks[ki], precs[pi], layouts[li], 5 + ki);
                void *vin = NULL;
                RT_CHECK_MSG(fam->make_inputs(&a, &p, &alone, &vin, &err) == 0, "%s", err.msg);
                if (!vin)
                    continue;
                const rt_spmm_inputs *in = vin;
                RT_CHECK(in->k == ks[ki] && in->b.rows == a.cols && in->b.cols == ks[ki]);
                RT_CHECK((int)in->prec == pi && (int)in->layout == li);
                const int64_t n = fam->output_elems(in);
                RT_CHECK(n == a.rows * ks[ki]);
                double *ref = malloc((size_t)n * sizeof *ref);
                double *dense = malloc((size_t)n * sizeof *dense);
                RT_CHECK(fam->reference(in, ref, &err) == 0);
                kt_dense_reference(&m, &in->b, dense);
                const double rel = rt_spmm_rel_error(ref, dense, n);
                RT_CHECK_MSG(rel < 1e-14, "K=%lld %s %s rel=%g", (long long)ks[ki], precs[pi],
                             layouts[li], rel);
                /* Empty rows give exact zeros. */
                for (int64_t j = 0; j < ks[ki]; ++j)
                    RT_CHECK(ref[0 * ks[ki] + j] == 0.0 && ref[30 * ks[ki] + j] == 0.0);
                RT_CHECK(fam->flops(in) == 2.0 * (double)a.nnz * (double)ks[ki]);
                RT_CHECK(fam->nonzeros(in) == (double)a.nnz);
                free(ref);
                free(dense);
                fam->free_inputs(vin);
            }
    /* The same seed gives the same B in both layouts (verification is layout-agnostic). */
    rt_params p;
    void *row_in = NULL, *col_in = NULL;
    set_problem(&p, 5, "fp64", "row", 9);
    RT_CHECK(fam->make_inputs(&a, &p, &alone, &row_in, &err) == 0);
    set_problem(&p, 5, "fp64", "col", 9);
    RT_CHECK(fam->make_inputs(&a, &p, &alone, &col_in, &err) == 0);
    if (row_in && col_in) {
        const rt_spmm_inputs *r = row_in, *c = col_in;
        int same = 1;
        for (int64_t i = 0; i < a.cols; ++i)
            for (int64_t j = 0; j < 5; ++j)
                same &= rt_dense_get(&r->b, i, j) == rt_dense_get(&c->b, i, j);
        RT_CHECK(same);
    }
    fam->free_inputs(row_in);
    fam->free_inputs(col_in);
    rt_csr_free(&a);
    kt_coo_free(&m);
}

/* Absent parameters take the schema defaults: K 32, fp32, row, seed 1. */
static void test_defaults(void)
{
    const rt_job alone = rt_job_alone(); /* one process: the whole problem */
    const rt_family_desc *fam = rt_spmm_family();
    rt_csr a;
    small_matrix(&a);
    rt_err err;
    rt_params p;
    rt_params_init(&p);
    void *vin = NULL;
    RT_CHECK_MSG(fam->make_inputs(&a, &p, &alone, &vin, &err) == 0, "%s", err.msg);
    if (vin) {
        const rt_spmm_inputs *in = vin;
        RT_CHECK(in->k == 32 && in->prec == RT_FP32 && in->layout == RT_ROW_MAJOR && in->seed == 1);
        fam->free_inputs(vin);
    }
    rt_csr_free(&a);
}

/* Garbage problem parameters and matrices are refused with a message naming the culprit. */
static void test_garbage(void)
{
    const rt_job alone = rt_job_alone(); /* one process: the whole problem */
    const rt_family_desc *fam = rt_spmm_family();
    rt_csr a;
    small_matrix(&a);
    rt_err err;
    struct {
        const char *name;
        rt_value value;
        const char *expect;
    } bad[] = {
        {"K", rt_value_int(0), "K"},
        {"K", rt_value_int(65537), "K"},
        {"K", rt_value_int(-3), "K"},
        {"K", rt_value_str("many"), "K"},
        {"K", rt_value_real(2.5), "K"},
        {"precision", rt_value_str("fp16"), "precision"},
        {"precision", rt_value_int(32), "precision"},
        {"layout", rt_value_str("diagonal"), "layout"},
        {"layout", rt_value_str(""), "layout"},
        {"seed", rt_value_str("x"), "seed"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        rt_params p;
        set_problem(&p, 4, "fp32", "row", 1);
        rt_params_set(&p, bad[i].name, bad[i].value, &err);
        void *vin = NULL;
        rt_err_clear(&err);
        RT_CHECK_MSG(fam->make_inputs(&a, &p, &alone, &vin, &err) != 0 && vin == NULL, "case %zu",
                     i);
        RT_CHECK_MSG(rt_test_contains(err.msg, bad[i].expect), "case %zu: %s", i, err.msg);
        fam->free_inputs(vin);
    }
    rt_params p;
    set_problem(&p, 4, "fp32", "row", 1);
    void *vin = NULL;
    RT_CHECK(fam->make_inputs(NULL, &p, &alone, &vin, &err) != 0 && vin == NULL);
    /* A column index out of range must be refused before a kernel reads B with it. */
    const int32_t saved = a.colidx[0];
    a.colidx[0] = 1000;
    RT_CHECK(fam->make_inputs(&a, &p, &alone, &vin, &err) != 0 && vin == NULL);
    RT_CHECK_MSG(rt_test_contains(err.msg, "malformed"), "%s", err.msg);
    a.colidx[0] = saved;
    rt_spmm_inputs *in = NULL;
    RT_CHECK(rt_spmm_inputs_create(&a, 4, (rt_precision)7, RT_ROW_MAJOR, 1, &in, &err) != 0);
    RT_CHECK(rt_spmm_inputs_create(&a, 4, RT_FP32, (rt_layout)9, 1, &in, &err) != 0);
    RT_CHECK(in == NULL);
    rt_csr_free(&a);
}

/* Matrices with no rows, no columns, no nonzeros. */
static void test_empty_shapes(void)
{
    const rt_job alone = rt_job_alone(); /* one process: the whole problem */
    const rt_family_desc *fam = rt_spmm_family();
    const int64_t shapes[][2] = {{0, 5}, {4, 0}, {6, 6}};
    for (int s = 0; s < 3; ++s) {
        kt_coo m;
        kt_coo_init(&m, shapes[s][0], shapes[s][1]);
        rt_csr a;
        rt_err err;
        RT_CHECK(kt_coo_to_csr(&m, &a, &err) == 0);
        rt_params p;
        set_problem(&p, 3, "fp64", s == 1 ? "col" : "row", 1);
        void *vin = NULL;
        RT_CHECK_MSG(fam->make_inputs(&a, &p, &alone, &vin, &err) == 0, "%s", err.msg);
        if (vin) {
            const int64_t n = fam->output_elems(vin);
            RT_CHECK(n == shapes[s][0] * 3);
            double *ref = malloc((size_t)(n + 1) * sizeof *ref);
            RT_CHECK(fam->reference(vin, ref, &err) == 0);
            for (int64_t i = 0; i < n; ++i)
                RT_CHECK(ref[i] == 0.0);
            RT_CHECK(fam->flops(vin) == 0.0);
            RT_CHECK(fam->tolerance(vin) > 0.0);
            free(ref);
            fam->free_inputs(vin);
        }
        rt_csr_free(&a);
        kt_coo_free(&m);
    }
}

static void test_tolerance_and_error(void)
{
    RT_CHECK(rt_spmm_tolerance_for(RT_FP64, 1) == 1e-12);
    RT_CHECK(rt_spmm_tolerance_for(RT_FP64, 1000000) == 1e-12);
    RT_CHECK(rt_spmm_tolerance_for(RT_FP32, 0) == 1e-5);
    RT_CHECK(rt_spmm_tolerance_for(RT_FP32, 100) == 1e-5); /* the floor governs short rows */
    const double long_rows = rt_spmm_tolerance_for(RT_FP32, 1000000);
    RT_CHECK_MSG(fabs(long_rows - 4.0 * ldexp(1.0, -24) * 1000.0) < 1e-12, "%g", long_rows);
    RT_CHECK(rt_spmm_tolerance_for(RT_FP32, 4000000) > long_rows);

    /* The family's tolerance follows the longest row of the inputs' matrix. */
    kt_coo m;
    kt_coo_init(&m, 3, 200000);
    for (int64_t c = 0; c < 200000; ++c)
        kt_coo_add(&m, 1, c, 1.0);
    rt_csr a;
    rt_err err;
    RT_CHECK(kt_coo_to_csr(&m, &a, &err) == 0);
    RT_CHECK(rt_spmm_max_row_nnz(&a) == 200000);
    rt_spmm_inputs *in = NULL;
    RT_CHECK(rt_spmm_inputs_create(&a, 1, RT_FP32, RT_ROW_MAJOR, 1, &in, &err) == 0);
    if (in)
        RT_CHECK(rt_spmm_family()->tolerance(in) == rt_spmm_tolerance_for(RT_FP32, 200000));
    rt_spmm_inputs_destroy(in);
    rt_csr_free(&a);
    kt_coo_free(&m);

    const double ref[4] = {1.0, -2.0, 0.0, 2.0};
    double out[4] = {1.0, -2.0, 0.0, 2.0};
    RT_CHECK(rt_spmm_rel_error(out, ref, 4) == 0.0);
    out[1] = -2.0 + 3e-3; /* ||d|| / ||ref|| = 3e-3 / 3 */
    RT_CHECK(fabs(rt_spmm_rel_error(out, ref, 4) - 1e-3) < 1e-12);
    out[2] = NAN;
    RT_CHECK(isinf(rt_spmm_rel_error(out, ref, 4)));
    out[2] = INFINITY;
    RT_CHECK(isinf(rt_spmm_rel_error(out, ref, 4)));
    const double zeros[2] = {0.0, 0.0};
    const double small[2] = {3e-3, 4e-3};
    RT_CHECK(fabs(rt_spmm_rel_error(small, zeros, 2) - 5e-3) < 1e-15);
}

static void test_traffic(void)
{
    /* 3 x 4, nnz 5, K 2: A = 5 * (4 + 4) + 4 * 8 = 72 bytes in fp32; B = 4*2*4 = 32; C = 24. */
    kt_coo m;
    kt_coo_init(&m, 3, 4);
    kt_coo_add(&m, 0, 0, 1.0);
    kt_coo_add(&m, 0, 3, 2.0);
    kt_coo_add(&m, 1, 1, 3.0);
    kt_coo_add(&m, 2, 2, 4.0);
    kt_coo_add(&m, 2, 3, 5.0);
    rt_csr a;
    rt_err err;
    RT_CHECK(kt_coo_to_csr(&m, &a, &err) == 0);
    rt_spmm_inputs *in = NULL;
    RT_CHECK(rt_spmm_inputs_create(&a, 2, RT_FP32, RT_COL_MAJOR, 1, &in, &err) == 0);
    if (in) {
        rt_traffic t = rt_spmm_traffic_compulsory(in, RT_FP32);
        RT_CHECK(t.flops == 20.0);
        RT_CHECK_MSG(t.bytes[RT_LEVEL_DRAM] == 72.0 + 32.0 + 24.0, "%g", t.bytes[RT_LEVEL_DRAM]);
        RT_CHECK(t.bytes[RT_LEVEL_L2] == 0.0 && t.net_bytes[RT_TIER_GLOBAL] == 0.0);
        t = rt_spmm_traffic_compulsory(in, RT_FP64); /* A's values in double: 5 more x 4 bytes */
        RT_CHECK(t.bytes[RT_LEVEL_DRAM] == 72.0 + 20.0 + 32.0 + 24.0);
    }
    rt_spmm_inputs_destroy(in);
    rt_csr_free(&a);
    kt_coo_free(&m);
}

static void test_registration(void)
{
    rt_registry reg;
    rt_err err;
    rt_registry_init(&reg);
    RT_CHECK_MSG(rt_kernels_register_builtin(&reg, &err) == 0, "%s", err.msg);
    RT_CHECK(rt_registry_find_family(&reg, "spmm") == rt_spmm_family());
    const char *names[] = {"spmm.cpu.csr", "spmm.cpu.ell", "spmm.cpu.tiled"};
    for (int i = 0; i < 3; ++i) {
        const rt_kernel_desc *k = rt_registry_find_kernel(&reg, names[i]);
        RT_CHECK_MSG(k != NULL, "%s", names[i]);
        if (k)
            RT_CHECK(strcmp(k->family, "spmm") == 0 && strcmp(k->backend, "cpu") == 0 &&
                     k->unavailable == NULL && k->traffic && k->check && k->metrics);
    }
    /* Registering twice is refused, with the duplicated name in the message. */
    RT_CHECK(rt_kernels_register_builtin(&reg, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "spmm"), "%s", err.msg);
    RT_CHECK(rt_kernels_register_builtin(NULL, &err) != 0);
    /* Every schema default lies in its own domain (the registry checks it; the family too). */
    const rt_family_desc *fam = rt_spmm_family();
    for (int i = 0; i < fam->n_problem_params; ++i) {
        rt_value v;
        char why[256];
        RT_CHECK(rt_param_default(&fam->problem_params[i], &v, &err) == 0);
        RT_CHECK_MSG(rt_param_check(&fam->problem_params[i], &v, why, sizeof why) == 0, "%s", why);
    }
}

static void test_param_helpers(void)
{
    static const rt_param_schema schema[] = {
        {"n", RT_V_INT, "1..10", "4", 0, ""},
        {"mode", RT_V_STR, "a|bb", "a", 0, ""},
    };
    rt_params p;
    rt_params_init(&p);
    rt_err err;
    int64_t n = 0;
    char mode[4];
    RT_CHECK(rt_schema_int(schema, 2, "k", &p, "n", &n, &err) == 0 && n == 4);
    RT_CHECK(rt_schema_str(schema, 2, "k", &p, "mode", mode, sizeof mode, &err) == 0 &&
             strcmp(mode, "a") == 0);
    rt_params_set(&p, "n", rt_value_real(7.0), &err);
    RT_CHECK(rt_schema_int(schema, 2, "k", &p, "n", &n, &err) == 0 && n == 7);
    rt_params_set(&p, "n", rt_value_int(11), &err);
    RT_CHECK(rt_schema_int(schema, 2, "kern", &p, "n", &n, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "kern") && rt_test_contains(err.msg, "1..10"), "%s",
                 err.msg);
    RT_CHECK(rt_schema_int(schema, 2, "k", &p, "missing", &n, &err) != 0);
    RT_CHECK(rt_schema_int(schema, 2, "k", &p, "mode", &n, &err) != 0); /* wrong kind */
    rt_params_set(&p, "mode", rt_value_str("bb"), &err);
    char tiny[2];
    RT_CHECK(rt_schema_str(schema, 2, "k", &p, "mode", tiny, sizeof tiny, &err) != 0);
}

int main(void)
{
    test_reference();
    test_defaults();
    test_garbage();
    test_empty_shapes();
    test_tolerance_and_error();
    test_traffic();
    test_registration();
    test_param_helpers();
    return RT_TEST_RESULT();
}
