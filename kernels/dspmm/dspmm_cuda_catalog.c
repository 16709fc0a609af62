#include "dspmm_cuda_catalog.h"

#include "dspmm_sender_common.h"
#include "rt_tables.h"

/* dspmm (kernels/dspmm/cuda/dspmm_cuda_sender.h): the CPU sender's algorithm and plan; the
 * transport of each hop is chosen by the tier it crosses. */
static const rt_param_schema dspmm_sender_params[] = {
    DSPMM_PARAM_P_BATCH,
    DSPMM_PARAM_COMM,
    DSPMM_PARAM_MINIBATCH,
    DSPMM_PARAM_STAGES,
    DSPMM_PARAM_STAGE_BUFFERS,
    RT_PARAM_STR("intra", "ipc|staged", "ipc",
                 "hops inside a node: device to device through CUDA IPC, or staged through pinned "
                 "host memory and MPI like the hops between nodes"),
    RT_PARAM_STR("spmm_alg", "default|csr_alg1|csr_alg2", "default",
                 "cuSPARSE algorithm of the local multiply (csr_alg2 is cuSPARSE's row-major one; "
                 "one that cuSPARSE rejects makes the point infeasible)"),
    DSPMM_PARAM_FAIL_RANK,
    DSPMM_PARAM_FAIL_AT,
};

static const rt_cuda_catalog_entry catalog[] = {
    RT_CUDA_ENTRY(RT_DSPMM_CUDA_SENDER,
                  "distributed SpMM on GPUs, sender multiplies (cuSPARSE): partial rows reduced "
                  "directly or through node (and socket) proxies; CUDA IPC inside a node, pinned "
                  "host staging + MPI between nodes",
                  dspmm_sender_params, "dspmm"),
};

const rt_cuda_catalog_entry *rt_dspmm_cuda_catalog(int *n)
{
    *n = RT_N_OF(catalog);
    return catalog;
}
