/* ordering: metis in a config: the metis_parts key is read, checked and carried into the
 * ordering text ("metis:PARTS") that rt_matrix_build and the store see. */
#include <stdio.h>
#include <string.h>

#include "rt_config.h"
#include "rt_ordering.h"
#include "rt_test.h"

#ifndef RT_INPUTS_TMP_DIR
#error "RT_INPUTS_TMP_DIR must name a scratch folder"
#endif

static int load_matrices(const char *matrices, rt_config *cfg, rt_err *err)
{
    const char *path = RT_INPUTS_TMP_DIR "/test_ordering_config.yaml";
    FILE *f = fopen(path, "w");
    if (!f) {
        RT_CHECK_MSG(0, "cannot write %s", path);
        return -1;
    }
    fprintf(f, "experiment: {name: metis}\nmatrices:\n%s", matrices);
    fclose(f);
    rt_err_clear(err);
    memset(cfg, 0, sizeof *cfg);
    const int rc = rt_config_load(path, NULL, 0, cfg, err);
    remove(path);
    return rc;
}

int main(void)
{
    rt_err err;
    rt_config cfg;
    RT_CHECK_MSG(load_matrices("  - {name: a, generator: rmat, scale: 8, ordering: metis}\n"
                               "  - {name: b, generator: rmat, scale: 8, ordering: metis, "
                               "metis_parts: 16}\n"
                               "  - {name: c, file: x.mtx, ordering: metis, metis_parts: 3}\n",
                               &cfg, &err) == 0,
                 "%s", err.msg);
    if (cfg.n_matrices == 3) {
        RT_CHECK(strcmp(cfg.matrices[0].ordering, "metis") == 0);
        RT_CHECK_MSG(strcmp(cfg.matrices[1].ordering, "metis:16") == 0, "%s",
                     cfg.matrices[1].ordering);
        RT_CHECK(strcmp(cfg.matrices[2].ordering, "metis:3") == 0);
        /* metis_parts is not mistaken for a generator argument. */
        RT_CHECK(rt_params_get(&cfg.matrices[1].gen, "metis_parts") == NULL);
        rt_ordering_kind k;
        uint64_t parts;
        int given;
        RT_CHECK(rt_ordering_parse(cfg.matrices[1].ordering, &k, &parts, &given, &err) == 0 &&
                 k == RT_ORDERING_METIS && parts == 16);
    } else {
        RT_CHECK_MSG(0, "%d matrices loaded", cfg.n_matrices);
    }
    rt_config_free(&cfg);

    /* Bad values name the key and its line. */
    static const char *const bad[] = {
        "  - {name: a, generator: rmat, scale: 8, ordering: metis, metis_parts: 1}\n",
        "  - {name: a, generator: rmat, scale: 8, ordering: metis, metis_parts: 0}\n",
        "  - {name: a, generator: rmat, scale: 8, ordering: metis, metis_parts: many}\n",
        "  - {name: a, generator: rmat, scale: 8, ordering: metis, metis_parts: 2.5}\n",
        "  - {name: a, generator: rmat, scale: 8, ordering: rcm, metis_parts: 8}\n",
        "  - {name: a, generator: rmat, scale: 8, metis_parts: 8}\n",
    };
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); ++i) {
        const int rc = load_matrices(bad[i], &cfg, &err);
        RT_CHECK_MSG(rc != 0 && rt_test_contains(err.msg, "matrices[0].metis_parts") &&
                         rt_test_contains(err.msg, ":3:"),
                     "case %d: rc %d, '%s'", i, rc, err.msg);
        if (rc == 0)
            rt_config_free(&cfg);
    }
    return RT_TEST_RESULT();
}
