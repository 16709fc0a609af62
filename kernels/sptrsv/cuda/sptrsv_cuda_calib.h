/* sptrsv_cuda_calib: the critical-path model's costs for sptrsv.cuda.supernodal, measured in its
 * setup with the solve's own kernel on parts of the point's own factor (never constants):
 *   - the launch: the kernel on the smallest supernode alone (one block, almost no work);
 *   - one block's bandwidth: the kernel on the supernode with the most bytes alone, less the
 *     launch;
 *   - the hand-over latency per supernode: the kernel on the longest chain of the supernodal DAG
 *     alone (every block waiting on its predecessor's counter), less the launch and the chain's
 *     bytes at one block's bandwidth, divided by the chain's length;
 *   - the peak: the device's memory bandwidth from its memory clock and bus width (the device
 *     facts the machine model also uses).
 * (sptrsv_cuda_calib_levelset does the same for the level-set kernel.)
 * Each probe is the fastest of a few timed launches (CUDA events). The probes write X of the
 * supernodes they solve; every execution of the solve rewrites all of X. */
#ifndef SPTRSV_CUDA_CALIB_H
#define SPTRSV_CUDA_CALIB_H

#include <stdint.h>

#include "rt_cuda_ctx.h"
#include "rt_device.h"
#include "rt_error.h"
#include "sptrsv_cuda_data.h"
#include "sptrsv_cuda_superdata.h"
#include "sptrsv_model.h"

/* The supernodal kernel's scratch and launch parameters, as the solve uses them. */
typedef struct sptrsv_cuda_super_scratch {
    double *lsum;
    int32_t *pending;
    uint32_t *ticket;
    int threads_per_block, shared_doubles, backoff_ns;
} sptrsv_cuda_super_scratch;

typedef struct sptrsv_cuda_super_calib {
    sptrsv_costs costs; /* unit_bps, peak_bps, task_s; sync_s = the launch */
    double chain_s;     /* the longest chain alone */
    int64_t chain_len;  /* its supernodes */
} sptrsv_cuda_super_calib;

int sptrsv_cuda_calib_super(const sptrsv_cuda_data *d, const sptrsv_cuda_superdata *sd,
                            const sptrsv_cuda_super_scratch *l, const rt_device_info *dev,
                            sptrsv_cuda_super_calib *out, rt_err *err);

/* The level-set kernel's costs (one launch per level): sync_s, a launch of a one-row level (the
 * fastest of a few runs of 64 back-to-back launches); unit_bps, one warp's bandwidth (the longest
 * row of L alone, less a launch); peak_bps as above. level_rows: the device copy of the DAG's rows
 * by level. *workers: warps resident on the device at once. */
int sptrsv_cuda_calib_levelset(const sptrsv_cuda_data *d, const int32_t *level_rows,
                               int threads_per_block, const rt_device_info *dev, sptrsv_costs *c,
                               int64_t *workers, rt_err *err);

#endif
