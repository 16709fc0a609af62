/* Core contracts: canonical parameter JSON, schema domain checks, registry rules. */
#include <math.h>

#include "rt_params.h"
#include "rt_registry.h"
#include "rt_strutil.h"
#include "rt_fake_kernel.h"
#include "rt_test.h"

int main(void)
{
    rt_err err;
    rt_params p;
    rt_params_init(&p);
    RT_CHECK(rt_params_set(&p, "zeta", rt_value_int(3), &err) == 0);
    RT_CHECK(rt_params_set(&p, "alpha", rt_value_str("fp32"), &err) == 0);
    RT_CHECK(rt_params_set(&p, "mid", rt_value_real(0.5), &err) == 0);
    RT_CHECK(rt_params_set(&p, "zeta", rt_value_int(4), &err) == 0); /* replace */
    char json[256];
    RT_CHECK(rt_params_to_json(&p, json, sizeof json) > 0);
    RT_CHECK_MSG(strcmp(json, "{\"alpha\":\"fp32\",\"mid\":0.5,\"zeta\":4}") == 0, "%s", json);
    RT_CHECK(rt_params_int(&p, "zeta", 0) == 4);
    RT_CHECK(rt_params_int(&p, "missing", 7) == 7);
    RT_CHECK(strcmp(rt_params_str(&p, "alpha", ""), "fp32") == 0);
    char tiny[8];
    RT_CHECK(rt_params_to_json(&p, tiny, sizeof tiny) < 0); /* truncation is reported */

    const rt_param_schema s_range = {"register_tile", RT_V_INT, "1..64", "8", 1, ""};
    const rt_param_schema s_enum = {"staging", RT_V_STR, "ell|csr", "ell", 1, ""};
    char why[256];
    rt_value v = rt_value_int(64);
    RT_CHECK(rt_param_check(&s_range, &v, why, sizeof why) == 0);
    v = rt_value_int(65);
    RT_CHECK(rt_param_check(&s_range, &v, why, sizeof why) != 0 && rt_test_contains(why, "1..64"));
    v = rt_value_str("coo");
    RT_CHECK(rt_param_check(&s_enum, &v, why, sizeof why) != 0 && rt_test_contains(why, "ell|csr"));
    v = rt_value_str("csr");
    RT_CHECK(rt_param_check(&s_enum, &v, why, sizeof why) == 0);
    v = rt_value_real(2.5);
    RT_CHECK(rt_param_check(&s_range, &v, why, sizeof why) != 0);

    rt_registry reg;
    rt_registry_init(&reg);
    static const rt_family_desc fam = {.name = "spmm"};
    RT_CHECK(rt_registry_add_family(&reg, &fam, &err) == 0);
    RT_CHECK(rt_registry_add_family(&reg, &fam, &err) != 0);
    static const rt_param_schema params[] = {{"register_tile", RT_V_INT, "1..64", "8", 1, ""}};
    static const rt_kernel_desc k = {RT_FAKE_KERNEL("spmm.cpu.test", "spmm", params)};
    RT_CHECK(rt_registry_add_kernel(&reg, &k, &err) == 0);
    RT_CHECK(rt_registry_add_kernel(&reg, &k, &err) != 0 && rt_test_contains(err.msg, "twice"));
    static const rt_kernel_desc orphan = {
        .name = "x.cpu.y", .family = "x", .backend = "cpu", RT_FAKE_KERNEL_HOOKS};
    RT_CHECK(rt_registry_add_kernel(&reg, &orphan, &err) != 0 &&
             rt_test_contains(err.msg, "unknown family"));
    static const rt_param_schema bad_default[] = {{"b", RT_V_INT, "1..4", "9", 0, ""}};
    static const rt_kernel_desc badk = {RT_FAKE_KERNEL("spmm.cpu.bad", "spmm", bad_default)};
    RT_CHECK(rt_registry_add_kernel(&reg, &badk, &err) != 0);
    RT_CHECK(rt_registry_find_kernel(&reg, "spmm.cpu.test") == &k);
    RT_CHECK(rt_registry_suggest(&reg, "spmm.cpu.tset") != NULL);
    RT_CHECK(rt_levenshtein("kitten", "sitting") == 3);
    /* A noisy point's message: 5.0004% against a target of 5% needs 5 digits to differ; 0.01%
     * and 12.5% differ at once (3 digits, and 0.01 keeps its own digits: no "0.0%"). */
    RT_CHECK(rt_distinct_digits(5.0004, 5.0) == 5);
    RT_CHECK(rt_distinct_digits(12.5, 0.01) == 3);
    RT_CHECK(rt_distinct_digits(7.0, 7.0) == 9);

    rt_err_set(&err, "bad value %d", 3);
    rt_err_prefix(&err, "file.yaml:%d:%d", 4, 5);
    RT_CHECK(strcmp(err.msg, "file.yaml:4:5: bad value 3") == 0);
    return RT_TEST_RESULT();
}
