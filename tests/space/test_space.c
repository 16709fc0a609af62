/* rt_space: product sizes and order, defaults, constraint filtering, schema rejections, and the
 * errors a config can provoke (unknown names, bad expressions, too large a space). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_space.h"
#include "rt_fake_kernel.h"
#include "rt_test.h"

static const rt_param_schema test_params[] = {
    {"a", RT_V_INT, "1..64", "8", 1, "an integer range"},
    {"b", RT_V_INT, "1|2|4|8", "2", 0, "a set of integers"},
    {"c", RT_V_STR, "ell|csr", "ell", 1, "a word"},
    {"r", RT_V_REAL, "0..1", "0.5", 0, "a real"},
};
static const rt_kernel_desc test_kernel = {RT_FAKE_KERNEL("spmm.cpu.test", "spmm", test_params)};

/* A kernel config assembled in memory, as rt_config_load would produce it. */
typedef struct cfg_builder {
    rt_kernel_cfg k;
    rt_param_domain doms[8];
    rt_value vals[8][128];
    char cons[8][512];
    rt_src_loc cons_loc[8];
} cfg_builder;

static void cb_init(cfg_builder *cb)
{
    memset(cb, 0, sizeof *cb);
    snprintf(cb->k.name, sizeof cb->k.name, "spmm.cpu.test");
    snprintf(cb->k.loc.file, sizeof cb->k.loc.file, "exp.yaml");
    cb->k.loc.line = 10;
    cb->k.loc.col = 5;
    cb->k.params = cb->doms;
    cb->k.constraints = cb->cons;
    cb->k.constraint_locs = cb->cons_loc;
}

static rt_param_domain *cb_param(cfg_builder *cb, const char *name, int line)
{
    rt_param_domain *d = &cb->doms[cb->k.n_params];
    snprintf(d->name, sizeof d->name, "%s", name);
    d->values = cb->vals[cb->k.n_params];
    snprintf(d->loc.file, sizeof d->loc.file, "exp.yaml");
    d->loc.line = line;
    d->loc.col = 9;
    cb->k.n_params++;
    return d;
}

static void cb_ints(cfg_builder *cb, const char *name, int line, int n, const int *v)
{
    rt_param_domain *d = cb_param(cb, name, line);
    for (int i = 0; i < n; ++i)
        d->values[i] = rt_value_int(v[i]);
    d->n_values = n;
}

static void cb_constraint(cfg_builder *cb, const char *text, int line)
{
    const int i = cb->k.n_constraints++;
    snprintf(cb->cons[i], sizeof cb->cons[i], "%s", text);
    snprintf(cb->cons_loc[i].file, sizeof cb->cons_loc[i].file, "exp.yaml");
    cb->cons_loc[i].line = line;
    cb->cons_loc[i].col = 7;
}

static rt_device_info test_device(void)
{
    const rt_device_info d = {.backend = "cuda",
                              .cc_major = 9,
                              .cc_minor = 0,
                              .warp_size = 32,
                              .max_threads_per_block = 1024,
                              .max_shared_per_block_optin = 232448,
                              .sm_clock_mhz = 1980.0};
    return d;
}

static int count_feasible(const rt_space *s, int *errors)
{
    int n = 0;
    *errors = 0;
    for (int64_t i = 0; i < rt_space_size(s); ++i) {
        rt_params p;
        int ok = -1;
        char why[256];
        rt_err err;
        if (rt_space_point(s, i, &p, &ok, why, sizeof why, &err) != 0)
            ++*errors;
        else
            n += ok;
    }
    return n;
}

static void test_product_and_order(void)
{
    cfg_builder cb;
    cb_init(&cb);
    const int as[] = {1, 2, 4};
    cb_ints(&cb, "a", 11, 3, as);
    rt_param_domain *c = cb_param(&cb, "c", 12);
    c->values[0] = rt_value_str("ell");
    c->values[1] = rt_value_str("csr");
    c->n_values = 2;
    rt_space *s = NULL;
    rt_err err;
    RT_CHECK_MSG(rt_space_build(&cb.k, &test_kernel, NULL, 100, 100, 1000, NULL, &s, &err) == 0,
                 "%s", err.msg);
    if (!s)
        return;
    RT_CHECK(rt_space_size(s) == 6);
    RT_CHECK(rt_space_n_dims(s) == 4);
    /* Config parameters first, in config order, then the defaulted ones. */
    RT_CHECK(strcmp(rt_space_dim_name(s, 0), "a") == 0);
    RT_CHECK(strcmp(rt_space_dim_name(s, 1), "c") == 0);
    RT_CHECK(strcmp(rt_space_dim_name(s, 2), "b") == 0);
    RT_CHECK(strcmp(rt_space_dim_name(s, 3), "r") == 0);
    RT_CHECK(rt_space_dim_size(s, 0) == 3 && rt_space_dim_size(s, 2) == 1);
    RT_CHECK(rt_space_dim_name(s, 4) == NULL && rt_space_dim_size(s, -1) == 0);

    const char *expect_c[] = {"ell", "csr", "ell", "csr", "ell", "csr"};
    const int expect_a[] = {1, 1, 2, 2, 4, 4};
    for (int64_t i = 0; i < 6; ++i) {
        rt_params p;
        int ok = 0;
        char why[256];
        RT_CHECK(rt_space_point(s, i, &p, &ok, why, sizeof why, &err) == 0);
        RT_CHECK_MSG(ok == 1, "point %d: %s", (int)i, why);
        RT_CHECK(p.n == 4);
        RT_CHECK(rt_params_int(&p, "a", -1) == expect_a[i]);
        RT_CHECK(strcmp(rt_params_str(&p, "c", ""), expect_c[i]) == 0);
        RT_CHECK(rt_params_int(&p, "b", -1) == 2); /* default */
        const rt_value *r = rt_params_get(&p, "r");
        RT_CHECK(r && r->kind == RT_V_REAL && r->r == 0.5);
        int64_t coords[RT_MAX_PARAMS], back = -1;
        RT_CHECK(rt_space_coords(s, i, coords) == 0);
        RT_CHECK(rt_space_index(s, coords, &back) == 0 && back == i);
    }
    rt_params p;
    int ok = 1;
    RT_CHECK(rt_space_point(s, 6, &p, &ok, NULL, 0, &err) != 0 &&
             rt_test_contains(err.msg, "outside"));
    RT_CHECK(rt_space_point(s, -1, &p, &ok, NULL, 0, &err) != 0);
    int64_t bad[4] = {3, 0, 0, 0}, idx;
    RT_CHECK(rt_space_index(s, bad, &idx) != 0);
    RT_CHECK(rt_space_dim_value(s, 0, 2)->i == 4 && rt_space_dim_value(s, 0, 3) == NULL);
    rt_space_free(s);
}

static void test_defaults_only(void)
{
    cfg_builder cb;
    cb_init(&cb);
    rt_space *s = NULL;
    rt_err err;
    RT_CHECK(rt_space_build(&cb.k, &test_kernel, NULL, 1, 1, 1, NULL, &s, &err) == 0);
    if (!s)
        return;
    RT_CHECK(rt_space_size(s) == 1);
    rt_params p;
    int ok = 0;
    RT_CHECK(rt_space_point(s, 0, &p, &ok, NULL, 0, &err) == 0 && ok);
    RT_CHECK(rt_params_int(&p, "a", 0) == 8 && rt_params_int(&p, "b", 0) == 2);
    RT_CHECK(strcmp(rt_params_str(&p, "c", ""), "ell") == 0);
    rt_space_free(s);

    /* A kernel with no parameters at all has exactly one point. */
    rt_kernel_desc bare = test_kernel;
    bare.n_params = 0;
    bare.params = NULL;
    RT_CHECK(rt_space_build(&cb.k, &bare, NULL, 1, 1, 1, NULL, &s, &err) == 0);
    if (s) {
        RT_CHECK(rt_space_size(s) == 1);
        RT_CHECK(rt_space_point(s, 0, &p, &ok, NULL, 0, &err) == 0 && ok && p.n == 0);
        rt_space_free(s);
    }
}

static void test_constraints(void)
{
    cfg_builder cb;
    cb_init(&cb);
    const int as[] = {1, 2, 4, 8}, bs[] = {1, 2, 4};
    cb_ints(&cb, "a", 11, 4, as);
    cb_ints(&cb, "b", 12, 3, bs);
    cb_constraint(&cb, "a * b <= 4", 14);
    rt_space *s = NULL;
    rt_err err;
    RT_CHECK_MSG(rt_space_build(&cb.k, &test_kernel, NULL, 10, 10, 10, NULL, &s, &err) == 0, "%s",
                 err.msg);
    if (!s)
        return;
    RT_CHECK(rt_space_size(s) == 12);
    int errors = 0;
    RT_CHECK(count_feasible(s, &errors) == 6 && errors == 0);
    rt_params p;
    int ok = 1;
    char why[256];
    RT_CHECK(rt_space_point(s, 11, &p, &ok, why, sizeof why, &err) == 0); /* a=8, b=4 */
    RT_CHECK(ok == 0);
    RT_CHECK_MSG(strcmp(why, "constraint 'a * b <= 4' is false") == 0, "%s", why);
    rt_space_free(s);

    /* Problem parameters, matrix facts and device fields. */
    cb_init(&cb);
    const int as2[] = {16, 32, 64};
    cb_ints(&cb, "a", 11, 3, as2);
    cb_constraint(&cb, "a <= K", 20);
    cb_constraint(&cb, "a * device.warp_size <= device.max_threads_per_block", 21);
    cb_constraint(&cb, "matrix.nnz > 100 && device.cc_major >= 9 && device.sm_clock_mhz > 1000",
                  22);
    rt_params problem;
    rt_params_init(&problem);
    rt_params_set(&problem, "K", rt_value_int(32), &err);
    rt_params_set(&problem, "precision", rt_value_str("fp32"), &err);
    const rt_device_info dev = test_device();
    RT_CHECK_MSG(rt_space_build(&cb.k, &test_kernel, &problem, 10, 10, 1000, &dev, &s, &err) == 0,
                 "%s", err.msg);
    if (s) {
        RT_CHECK(count_feasible(s, &errors) == 2 && errors == 0); /* 16 and 32 */
        RT_CHECK(rt_space_point(s, 2, &p, &ok, why, sizeof why, &err) == 0 && !ok);
        RT_CHECK_MSG(rt_test_contains(why, "a <= K"), "%s", why);
        rt_space_free(s);
    }
    /* The same with too few nonzeros: the third constraint rules out everything. */
    RT_CHECK(rt_space_build(&cb.k, &test_kernel, &problem, 10, 10, 50, &dev, &s, &err) == 0);
    if (s) {
        RT_CHECK(count_feasible(s, &errors) == 0 && errors == 0);
        rt_space_free(s);
    }
}

static void expect_build_error(cfg_builder *cb, const rt_params *problem, const rt_device_info *dev,
                               const char *needle1, const char *needle2, int line)
{
    rt_space *s = (rt_space *)0x1;
    rt_err err;
    err.msg[0] = '\0';
    const int rc = rt_space_build(&cb->k, &test_kernel, problem, 10, 10, 10, dev, &s, &err);
    RT_CHECK_MSG(rc != 0, "case at line %d built", line);
    RT_CHECK(s == NULL);
    RT_CHECK_MSG(rt_test_contains(err.msg, needle1), "line %d: '%s' lacks '%s'", line, err.msg,
                 needle1);
    if (needle2)
        RT_CHECK_MSG(rt_test_contains(err.msg, needle2), "line %d: '%s' lacks '%s'", line, err.msg,
                     needle2);
    if (rc == 0)
        rt_space_free(s);
}

static void test_constraint_errors(void)
{
    const int as[] = {1, 2, 4};
    const rt_device_info dev = test_device();
    rt_params problem;
    rt_err err;
    rt_params_init(&problem);
    rt_params_set(&problem, "K", rt_value_int(32), &err);
    rt_params_set(&problem, "precision", rt_value_str("fp32"), &err);
    cfg_builder cb;

    cb_init(&cb);
    cb_ints(&cb, "a", 11, 3, as);
    cb_constraint(&cb, "a * 2 <= device.warpsize", 30);
    expect_build_error(&cb, &problem, &dev, "exp.yaml:30:7", "device.warp_size", __LINE__);

    cb_init(&cb);
    cb_ints(&cb, "a", 11, 3, as);
    cb_constraint(&cb, "a * * 2", 31);
    expect_build_error(&cb, &problem, &dev, "exp.yaml:31:7", "a * * 2", __LINE__);

    cb_init(&cb);
    cb_ints(&cb, "a", 11, 3, as);
    cb_constraint(&cb, "", 32);
    expect_build_error(&cb, &problem, &dev, "exp.yaml:32:7", NULL, __LINE__);

    cb_init(&cb);
    cb_ints(&cb, "a", 11, 3, as);
    cb_constraint(&cb, "c > 1", 33); /* c is a string parameter */
    expect_build_error(&cb, &problem, &dev, "exp.yaml:33:7", "string", __LINE__);

    cb_init(&cb);
    cb_ints(&cb, "a", 11, 3, as);
    cb_constraint(&cb, "precision > 1", 34);
    expect_build_error(&cb, &problem, &dev, "exp.yaml:34:7", "string", __LINE__);

    cb_init(&cb);
    cb_ints(&cb, "a", 11, 3, as);
    cb_constraint(&cb, "a < device.warp_size", 35);
    expect_build_error(&cb, &problem, NULL, "exp.yaml:35:7", "no device", __LINE__);

    cb_init(&cb);
    cb_ints(&cb, "a", 11, 3, as);
    cb_constraint(&cb, "matrix.nonzeros > 1", 36);
    expect_build_error(&cb, &problem, &dev, "exp.yaml:36:7", "matrix.nnz", __LINE__);

    cb_init(&cb);
    cb_ints(&cb, "a", 11, 3, as);
    cb_constraint(&cb, "a * 2 <= warp_size", 38); /* the device prefix forgotten */
    expect_build_error(&cb, &problem, &dev, "exp.yaml:38:7", "did you mean 'device.warp_size'",
                       __LINE__);

    cb_init(&cb);
    cb_ints(&cb, "a", 11, 3, as);
    cb_constraint(&cb, "a <= nnz", 39);
    expect_build_error(&cb, &problem, &dev, "exp.yaml:39:7", "did you mean 'matrix.nnz'", __LINE__);

    /* Garbage bytes in the expression text. */
    cb_init(&cb);
    cb_ints(&cb, "a", 11, 3, as);
    cb_constraint(&cb, "a \x01\xff <= 3 $$", 37);
    expect_build_error(&cb, &problem, &dev, "exp.yaml:37:7", NULL, __LINE__);

    /* Evaluation errors are errors at the point, naming the constraint's location. */
    cb_init(&cb);
    cb_ints(&cb, "a", 11, 3, as);
    cb_constraint(&cb, "K / (a - 2) != 0", 40);
    rt_space *s = NULL;
    RT_CHECK(rt_space_build(&cb.k, &test_kernel, &problem, 1, 1, 1, &dev, &s, &err) == 0);
    if (s) {
        rt_params p;
        int ok = 0;
        RT_CHECK(rt_space_point(s, 0, &p, &ok, NULL, 0, &err) == 0 && ok); /* a = 1 */
        RT_CHECK(rt_space_point(s, 1, &p, &ok, NULL, 0, &err) != 0);       /* a = 2 */
        RT_CHECK_MSG(rt_test_contains(err.msg, "exp.yaml:40:7"), "%s", err.msg);
        RT_CHECK_MSG(rt_test_contains(err.msg, "\"a\":2"), "%s", err.msg);
        rt_space_free(s);
    }
}

static void test_schema(void)
{
    rt_err err;
    cfg_builder cb;
    rt_space *s = NULL;

    /* Values outside the schema make points infeasible with the schema's reason. */
    cb_init(&cb);
    const int as[] = {32, 64, 65};
    cb_ints(&cb, "a", 11, 3, as);
    rt_param_domain *bd = cb_param(&cb, "b", 12);
    bd->values[0] = rt_value_int(4);
    bd->values[1] = rt_value_int(3);
    bd->values[2] = rt_value_str("four");
    bd->values[3] = rt_value_real(8.0); /* an integral real is taken as the integer 8 */
    bd->n_values = 4;
    RT_CHECK_MSG(rt_space_build(&cb.k, &test_kernel, NULL, 1, 1, 1, NULL, &s, &err) == 0, "%s",
                 err.msg);
    if (s) {
        int errors = 0;
        RT_CHECK(count_feasible(s, &errors) == 4 && errors == 0); /* a in {32,64} x b in {4,8} */
        rt_params p;
        int ok = 1;
        char why[256];
        RT_CHECK(rt_space_point(s, 8, &p, &ok, why, sizeof why, &err) == 0 && !ok); /* a=65 */
        RT_CHECK_MSG(rt_test_contains(why, "1..64"), "%s", why);
        RT_CHECK(rt_space_point(s, 1, &p, &ok, why, sizeof why, &err) == 0 && !ok); /* b=3 */
        RT_CHECK_MSG(rt_test_contains(why, "1|2|4|8"), "%s", why);
        RT_CHECK(rt_space_point(s, 2, &p, &ok, why, sizeof why, &err) == 0 && !ok); /* "four" */
        RT_CHECK(rt_space_point(s, 3, &p, &ok, why, sizeof why, &err) == 0 && ok);
        const rt_value *b = rt_params_get(&p, "b");
        RT_CHECK(b && b->kind == RT_V_INT && b->i == 8);
        rt_space_free(s);
    }

    /* Unknown parameter: an error at its location, with a suggestion. */
    cb_init(&cb);
    const int one[] = {1};
    cb_ints(&cb, "aa", 17, 1, one);
    expect_build_error(&cb, NULL, NULL, "exp.yaml:17:9", "did you mean 'a'", __LINE__);

    cb_init(&cb);
    cb_ints(&cb, "a", 17, 1, one);
    cb_ints(&cb, "a", 18, 1, one);
    expect_build_error(&cb, NULL, NULL, "exp.yaml:18:9", "twice", __LINE__);

    cb_init(&cb);
    cb_ints(&cb, "a", 19, 0, one);
    expect_build_error(&cb, NULL, NULL, "exp.yaml:19:9", "no values", __LINE__);

    /* A schema whose default is unusable. */
    static const rt_param_schema broken[] = {{"x", RT_V_INT, "", "lots", 0, ""}};
    rt_kernel_desc bk = test_kernel;
    bk.params = broken;
    bk.n_params = 1;
    cb_init(&cb);
    RT_CHECK(rt_space_build(&cb.k, &bk, NULL, 1, 1, 1, NULL, &s, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "default"), "%s", err.msg);

    /* Malformed config structures are refused, not dereferenced. */
    cb_init(&cb);
    cb.k.n_params = 2;
    cb.k.params = NULL;
    RT_CHECK(rt_space_build(&cb.k, &test_kernel, NULL, 1, 1, 1, NULL, &s, &err) != 0);
    RT_CHECK(rt_space_build(NULL, &test_kernel, NULL, 1, 1, 1, NULL, &s, &err) != 0);
}

static void test_too_large(void)
{
    static const rt_param_schema big[] = {
        {"p", RT_V_INT, "", "1", 0, ""},
        {"q", RT_V_INT, "", "1", 0, ""},
        {"s", RT_V_INT, "", "1", 0, ""},
        {"t", RT_V_INT, "", "1", 0, ""},
    };
    rt_kernel_desc bk = test_kernel;
    bk.params = big;
    bk.n_params = 4;
    cfg_builder cb;
    cb_init(&cb);
    int vals[100];
    for (int i = 0; i < 100; ++i)
        vals[i] = i;
    cb_ints(&cb, "p", 11, 100, vals);
    cb_ints(&cb, "q", 12, 100, vals);
    cb_ints(&cb, "s", 13, 100, vals);
    rt_space *s = NULL;
    rt_err err;
    /* 10^6 points: allowed. */
    RT_CHECK_MSG(rt_space_build(&cb.k, &bk, NULL, 1, 1, 1, NULL, &s, &err) == 0, "%s", err.msg);
    if (s) {
        RT_CHECK(rt_space_size(s) == 1000000);
        rt_params p;
        int ok = 0;
        RT_CHECK(rt_space_point(s, 999999, &p, &ok, NULL, 0, &err) == 0 && ok);
        RT_CHECK(rt_params_int(&p, "p", -1) == 99 && rt_params_int(&p, "s", -1) == 99);
        rt_space_free(s);
    }
    /* 10^8: refused, with the way out. */
    cb_ints(&cb, "t", 14, 100, vals);
    RT_CHECK(rt_space_build(&cb.k, &bk, NULL, 1, 1, 1, NULL, &s, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "random") && rt_test_contains(err.msg, "budget") &&
                     rt_test_contains(err.msg, "exp.yaml:10:5") &&
                     rt_test_contains(err.msg, "10000000"),
                 "%s", err.msg);
}

int main(void)
{
    test_product_and_order();
    test_defaults_only();
    test_constraints();
    test_constraint_errors();
    test_schema();
    test_too_large();
    return RT_TEST_RESULT();
}
