/* The real path: a YAML config read by rt_config_load, its kernel turned into a space. Checks the
 * point count after constraints, the order, and that errors point at the YAML line. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_config.h"
#include "rt_search.h"
#include "rt_space.h"
#include "rt_fake_kernel.h"
#include "rt_test.h"

static const rt_param_schema test_params[] = {
    {"a", RT_V_INT, "1..64", "8", 1, ""},
    {"b", RT_V_INT, "1..8", "2", 0, ""},
    {"mode", RT_V_STR, "fast|safe", "safe", 0, ""},
};
static const rt_kernel_desc test_kernel = {RT_FAKE_KERNEL("spmm.cpu.test", "spmm", test_params)};

static int write_config(const char *path, const char *constraint2)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f,
            "experiment: {name: spacetest}\n"                                         /* 1 */
            "matrices:\n"                                                             /* 2 */
            "  - {name: band, generator: banded, rows: 100, bandwidth: 4, seed: 1}\n" /* 3 */
            "problem: {K: [32]}\n"                                                    /* 4 */
            "kernels:\n"                                                              /* 5 */
            "  - name: spmm.cpu.test\n"                                               /* 6 */
            "    params:\n"                                                           /* 7 */
            "      a: {pow2: [1, 64]}\n"                                              /* 8 */
            "      b: [1, 2, 4]\n"                                                    /* 9 */
            "    constraints:\n"                                                      /* 10 */
            "      - \"a * b <= 16\"\n"                                               /* 11 */
            "      - \"%s\"\n",                                                       /* 12 */
            constraint2);
    return fclose(f);
}

static int load_space(const char *path, rt_config *cfg, rt_space **s, rt_err *err)
{
    if (rt_config_load(path, NULL, 0, cfg, err) != 0)
        return -1;
    rt_params problem;
    rt_params_init(&problem);
    rt_params_set(&problem, "K", rt_value_int(32), err);
    rt_device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.warp_size = 32;
    const int rc =
        rt_space_build(&cfg->kernels[0], &test_kernel, &problem, 100, 100, 500, &dev, s, err);
    rt_config_free(cfg);
    return rc;
}

int main(void)
{
    char dir[] = "/tmp/rt_space_yaml_XXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(stderr, "mkdtemp failed\n");
        return 1;
    }
    char path[256];
    snprintf(path, sizeof path, "%s/exp.yaml", dir);
    rt_config cfg;
    rt_err err;
    rt_space *s = NULL;

    RT_CHECK(write_config(path, "a <= K") == 0);
    RT_CHECK_MSG(load_space(path, &cfg, &s, &err) == 0, "%s", err.msg);
    if (s) {
        /* a in {1,2,4,...,64} (7) x b in {1,2,4} (3) x mode default (1). */
        RT_CHECK(rt_space_size(s) == 21);
        int feasible = 0;
        for (int64_t i = 0; i < rt_space_size(s); ++i) {
            rt_params p;
            int ok = 0;
            char why[256];
            RT_CHECK(rt_space_point(s, i, &p, &ok, why, sizeof why, &err) == 0);
            feasible += ok;
            if (i == 0)
                RT_CHECK(rt_params_int(&p, "a", 0) == 1 && rt_params_int(&p, "b", 0) == 1 &&
                         strcmp(rt_params_str(&p, "mode", ""), "safe") == 0);
            if (i == 20) /* a = 64, b = 4 */
                RT_CHECK(!ok && strcmp(why, "constraint 'a * b <= 16' is false") == 0);
        }
        /* a*b <= 16: 3 + 3 + 3 + 2 + 1 = 12 (a = 32, 64 never). */
        RT_CHECK_MSG(feasible == 12, "%d feasible", feasible);
        /* Random search over it yields only those 12, each once. */
        rt_search_cfg sc;
        memset(&sc, 0, sizeof sc);
        snprintf(sc.strategy, sizeof sc.strategy, "random");
        sc.budget = 100;
        sc.seed = 11;
        rt_search *se = NULL;
        RT_CHECK(rt_search_create(&sc, s, &se, &err) == 0);
        int64_t idx;
        int n = 0;
        while (se && rt_search_next(se, &idx) == 1 && n < 100)
            ++n;
        RT_CHECK(n == 12 && rt_strategy_counts_of(rt_search_driver(se)).skipped == 9);
        rt_search_free(se);
        rt_space_free(s);
    }

    /* An unknown identifier: the error names the YAML line of that constraint. */
    s = NULL;
    RT_CHECK(write_config(path, "a <= device.warp_sise") == 0);
    RT_CHECK(load_space(path, &cfg, &s, &err) != 0 && s == NULL);
    RT_CHECK_MSG(rt_test_contains(err.msg, "exp.yaml:12:") &&
                     rt_test_contains(err.msg, "device.warp_size"),
                 "%s", err.msg);

    /* An evaluation error at a point: also located. */
    RT_CHECK(write_config(path, "K % (a - 1) >= 0") == 0);
    RT_CHECK_MSG(load_space(path, &cfg, &s, &err) == 0, "%s", err.msg);
    if (s) {
        rt_params p;
        int ok = 0;
        RT_CHECK(rt_space_point(s, 0, &p, &ok, NULL, 0, &err) != 0); /* a = 1: modulo by zero */
        RT_CHECK_MSG(rt_test_contains(err.msg, "exp.yaml:12:"), "%s", err.msg);
        RT_CHECK(rt_space_point(s, 3, &p, &ok, NULL, 0, &err) == 0 && ok); /* a = 2, b = 1 */
        rt_space_free(s);
    }

    unlink(path);
    rmdir(dir);
    return RT_TEST_RESULT();
}
