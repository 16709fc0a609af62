/* gemm_params: the parameters of the tiled kernels (gemm.cpu.tiled, gemm.cuda.tiled, and the
 * SUMMA baseline's grid and tile), read through a schema, and the plan of a point built from them.
 */
#ifndef GEMM_PARAMS_H
#define GEMM_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "gemm_family.h"
#include "gemm_plan.h"
#include "rt_comm.h"
#include "rt_error.h"
#include "rt_params.h"
#include "rt_registry.h"
#include "rt_tables.h"

#define GEMM_PARAM_T                                                                               \
    RT_PARAM_INT("t", "1..16384", "256", "tile size: square t x t tiles (the last ones ragged)")
#define GEMM_PARAM_P                                                                               \
    RT_PARAM_INT(                                                                                  \
        "p", "0..65536", "0",                                                                      \
        "process rows of the p x q grid (must divide the ranks; 0: the most square grid, p <= q)")
#define GEMM_PARAM_FAIL_RANK                                                                       \
    RT_PARAM_INT(                                                                                  \
        "fail_rank", "-1..1048576", "-1",                                                          \
        "TEST HOOK: this world rank reports a failure at the start of an execution (-1: none)")
/* The tiled kernels' table, CPU and CUDA alike. */
#define GEMM_TILED_PARAMS                                                                          \
    GEMM_PARAM_T, GEMM_PARAM_P,                                                                    \
        RT_PARAM_INT("gpus", "1..64", "1",                                                         \
                     "G: (logical) GPUs per process, each with its own budget and tile cache"),    \
        RT_PARAM_INT("b", "0..1048576", "0",                                                       \
                     "tile rows of a process's block of C (0: the paper's rule, b = c)"),          \
        RT_PARAM_INT(                                                                              \
            "c", "0..1048576", "0",                                                                \
            "tile columns of a process's block of C, a multiple of gpus (0: the paper's rule)"),   \
        RT_PARAM_INT(                                                                              \
            "d", "0..1048576", "0",                                                                \
            "chunk depth in tiles of k (0: the largest divisor of K/t that fits the budget)"),     \
        RT_PARAM_INT("lookahead", "-1..64", "-1",                                                  \
                     "chunks whose inputs are loaded ahead (-1: the paper's rule, 1 with one "     \
                     "block of C, else 2)"),                                                       \
        RT_PARAM_INT("tail_split", "1..1048576", "1",                                              \
                     "sub-blocks of the last block row of C, each with its whole k loop, so all "  \
                     "but the last one's C goes back while the next computes (1: none)"),          \
        RT_PARAM_INT(                                                                              \
            "gpu_mem_budget", "0..1099511627776", "0",                                             \
            "bytes of memory per GPU for C, A and B tiles (0: unlimited on the CPU; on a GPU 85% " \
            "of its memory shared by the ranks of the node and the G logical GPUs)"),              \
        RT_PARAM_STR("transport", "auto|ipc|mpi", "auto",                                          \
                     "tiles between processes of a node: ipc (pulled GPU to GPU: CUDA IPC; "       \
                     "shared memory on the CPU), mpi (host buffers), auto (ipc where the node's "  \
                     "GPUs reach each other); other nodes: mpi"),                                  \
        RT_PARAM_INT("ipc_deny", "0..1", "0",                                                      \
                     "TEST HOOK: 1 treats IPC as unavailable (transport auto falls back to mpi, "  \
                     "ipc is infeasible)"),                                                        \
        GEMM_PARAM_FAIL_RANK

typedef enum gemm_transport {
    GEMM_TRANSPORT_AUTO,
    GEMM_TRANSPORT_IPC,
    GEMM_TRANSPORT_MPI
} gemm_transport;

typedef struct gemm_tiled_cfg {
    int64_t t, p_req, gpus, b, c, d, lookahead, split, budget_bytes, fail_rank, ipc_deny;
    gemm_transport transport;
    /* Whether IPC works between the ranks of a node, and why not: cfg_read sets it from the test
     * hook; a GPU kernel refines it from the devices (gemm_tiled_plan resolves the transport). */
    int ipc_ok;
    char ipc_why[160];
} gemm_tiled_cfg;

/* Reads the GEMM_TILED_PARAMS of a point (defaults from `schema`). */
int gemm_tiled_cfg_read(const rt_param_schema *schema, int n_schema, const char *kname,
                        const rt_params *p, gemm_tiled_cfg *cfg, rt_err *err);

/* The fail_rank test hook, agreed by every rank before any message so that none waits for a failed
 * one: 0 when no rank fails; 1 when one does (*first names the first, msg says why: len bytes);
 * -1 when the agreement itself failed (rt_comm_last_error says why). */
int gemm_fail_hook_agree(rt_comm *comm, int64_t fail_rank, int rank, int *first, char *msg,
                         size_t len);

/* The p x q grid for `nranks` ranks: p_req when it divides them, else (p_req = 0) the most
 * square one with p <= q. Returns 0, or RT_INFEASIBLE with why. */
int gemm_grid(int nranks, int64_t p_req, int *p, int *q, char *why, size_t whylen);

/* The plan of a point: tiles of the inputs' sizes, the grid, the blocking, the budget in tiles
 * (budget_bytes <= 0: unlimited) and the transport (auto: ipc when cfg->ipc_ok; ipc without it is
 * infeasible, saying why). Returns 0, RT_INFEASIBLE (why in err) or -1. */
int gemm_tiled_plan(const gemm_inputs *in, const gemm_tiled_cfg *cfg, int nranks,
                    int64_t budget_bytes, gemm_plan *plan, rt_err *err);

#endif
