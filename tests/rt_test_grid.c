#include "rt_test_grid.h"

#include <stdio.h>
#include <stdlib.h>

#include "rt_fake_kernel.h"

static const rt_param_schema grid_params[] = {
    {"x", RT_V_INT, "", "0", 0, ""},
    {"y", RT_V_INT, "", "0", 0, ""},
    {"z", RT_V_INT, "", "0", 0, ""},
};
static const rt_kernel_desc grid_kernel = {RT_FAKE_KERNEL("spmm.cpu.grid", "spmm", grid_params)};

typedef struct grid_cfg {
    rt_kernel_cfg k;
    rt_param_domain doms[3];
    rt_value vals[3][1000];
    char cons[1][512];
    rt_src_loc locs[1];
} grid_cfg;

rt_space *rt_test_grid_space(int nx, int ny, int nz, int first, int step, const char *constraint)
{
    static const char *const names[] = {"x", "y", "z"};
    grid_cfg *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    snprintf(g->k.name, sizeof g->k.name, "spmm.cpu.grid");
    g->k.params = g->doms;
    const int sizes[3] = {nx, ny, nz};
    for (int d = 0; d < 3 && sizes[d] > 0 && sizes[d] <= 1000; ++d) {
        snprintf(g->doms[d].name, sizeof g->doms[d].name, "%s", names[d]);
        g->doms[d].values = g->vals[d];
        for (int i = 0; i < sizes[d]; ++i)
            g->vals[d][i] = rt_value_int(first + step * i);
        g->doms[d].n_values = sizes[d];
        g->k.n_params++;
    }
    if (constraint) {
        snprintf(g->cons[0], sizeof g->cons[0], "%s", constraint);
        g->k.constraints = g->cons;
        g->k.constraint_locs = g->locs;
        g->k.n_constraints = 1;
    }
    rt_space *s = NULL;
    rt_err err;
    if (rt_space_build(&g->k, &grid_kernel, NULL, 1, 1, 1, NULL, &s, &err) != 0)
        fprintf(stderr, "rt_test_grid_space: %s\n", err.msg);
    free(g);
    return s;
}
