#include "sp2_schema.h"

#include <string.h>

#include "rt_schema.h"
#include "rt_tables.h"
#include "sp2_schema.h"

/* ---------------------------------------------------------------------------------------------
 * Parameters */

#define P_PR                                                                                       \
    RT_PARAM_INT("pr", "0..65536", "0",                                                            \
                 "process grid rows (pc = ranks / pr); 0 = the most square grid")
#define P_REFINE                                                                                   \
    RT_PARAM_INT("refine", "1..64", "1",                                                           \
                 "tile grid refinement: tile rows = pr * refine, tile columns = pc * refine")
#define P_PREFETCH                                                                                 \
    RT_PARAM_INT("prefetch", "0..1", "1",                                                          \
                 "1: fetch the next tiles with non-blocking gets during the multiply")
#define P_SLOTS                                                                                    \
    RT_PARAM_INT("queue_slots", "1..65536", "64", "slots of each rank's remote accumulation queue")
#define P_SEED                                                                                     \
    RT_PARAM_INT("steal_seed", "0..2147483647", "1",                                               \
                 "seed of the order in which idle ranks try other tiles")

const rt_param_schema rt_sp2_sc_params[RT_SP2_SC_NPARAMS] = {P_PR, P_REFINE, P_PREFETCH};
const rt_param_schema rt_sp2_sa_params[RT_SP2_SA_NPARAMS] = {P_PR, P_REFINE, P_PREFETCH, P_SLOTS};
const rt_param_schema rt_sp2_summa_params[RT_SP2_SUMMA_NPARAMS] = {P_PR, P_REFINE};
const rt_param_schema rt_sp2_ws_params[RT_SP2_WS_NPARAMS] = {P_PR, P_REFINE, P_PREFETCH, P_SLOTS,
                                                             P_SEED};

/* What a kernel is: its algorithm and family, found from the descriptor's name. */
static const sp2_kind_info kinds[] = {
    {"spmm2d.cpu.stationary_c", SP2_ALG_SC, 0},
    {"spmm2d.cpu.stationary_a", SP2_ALG_SA, 0},
    {"spmm2d.cpu.stationary_b", SP2_ALG_SB, 0},
    {"spmm2d.cpu.summa", SP2_ALG_SUMMA, 0},
    {"spmm2d.cpu.summa_a", SP2_ALG_SUMMA_A, 0},
    {"spmm2d.cpu.ws_random", SP2_ALG_WS_RANDOM, 0},
    {"spmm2d.cpu.ws_locality", SP2_ALG_WS_LOCALITY, 0},
    {"spgemm2d.cpu.stationary_c", SP2_ALG_SC, 1},
    {"spgemm2d.cpu.stationary_a", SP2_ALG_SA, 1},
    {"spgemm2d.cpu.summa", SP2_ALG_SUMMA, 1},
    /* The GPU kernels (kernels/spmm2d/cuda/) run the same algorithms with the GPU engine. */
    {"spmm2d.cuda.stationary_c", SP2_ALG_SC, 0},
    {"spmm2d.cuda.stationary_a", SP2_ALG_SA, 0},
    {"spmm2d.cuda.stationary_b", SP2_ALG_SB, 0},
    {"spmm2d.cuda.summa", SP2_ALG_SUMMA, 0},
    {"spmm2d.cuda.summa_a", SP2_ALG_SUMMA_A, 0},
    {"spmm2d.cuda.ws_random", SP2_ALG_WS_RANDOM, 0},
    {"spmm2d.cuda.ws_locality", SP2_ALG_WS_LOCALITY, 0},
    {"spgemm2d.cuda.stationary_c", SP2_ALG_SC, 1},
    {"spgemm2d.cuda.stationary_a", SP2_ALG_SA, 1},
    {"spgemm2d.cuda.summa", SP2_ALG_SUMMA, 1},
};

const sp2_kind_info *sp2_kind_of(const rt_kernel_desc *d)
{
    for (size_t q = 0; q < sizeof kinds / sizeof kinds[0]; ++q)
        if (strcmp(kinds[q].name, d->name) == 0)
            return &kinds[q];
    return NULL;
}

int sp2_uses_queue(sp2_alg a)
{
    return a == SP2_ALG_SA || a == SP2_ALG_SB || a == SP2_ALG_WS_RANDOM || a == SP2_ALG_WS_LOCALITY;
}

int sp2_is_rdma(sp2_alg a)
{
    return a != SP2_ALG_SUMMA && a != SP2_ALG_SUMMA_A;
}

int sp2_is_ws(sp2_alg a)
{
    return a == SP2_ALG_WS_RANDOM || a == SP2_ALG_WS_LOCALITY;
}

int sp2_read_opts(const rt_kernel_desc *self, const rt_params *p, sp2_opts *o, rt_err *err)
{
    int64_t v = 0;
    memset(o, 0, sizeof *o);
    o->prefetch = 1;
    o->slots = 64;
    o->steal_seed = 1;
    if (rt_schema_int(self->params, self->n_params, self->name, p, "pr", &v, err) != 0)
        return -1;
    o->pr = (int)v;
    if (rt_schema_int(self->params, self->n_params, self->name, p, "refine", &v, err) != 0)
        return -1;
    o->refine = (int)v;
    for (int q = 0; q < self->n_params; ++q) {
        const char *n = self->params[q].name;
        if (strcmp(n, "prefetch") == 0 || strcmp(n, "queue_slots") == 0 ||
            strcmp(n, "steal_seed") == 0) {
            if (rt_schema_int(self->params, self->n_params, self->name, p, n, &v, err) != 0)
                return -1;
            if (n[0] == 'p')
                o->prefetch = (int)v;
            else if (n[0] == 'q')
                o->slots = v;
            else
                o->steal_seed = (uint64_t)v;
        }
    }
    return 0;
}
