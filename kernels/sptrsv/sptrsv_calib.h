/* sptrsv_calib: the CPU model costs, measured on this rank in a kernel's setup (milliseconds):
 * the bandwidth of one thread running the sequential supernodal solve, the bandwidth of `team`
 * threads streaming L's values, and the cost of one OpenMP barrier. The network tiers are left
 * at zero (the distributed kernel measures them itself). */
#ifndef SPTRSV_CALIB_H
#define SPTRSV_CALIB_H

#include "rt_error.h"
#include "sptrsv_family.h"
#include "sptrsv_model.h"

int sptrsv_calib_cpu(const rt_sptrsv_inputs *in, int team, sptrsv_costs *c, rt_err *err);

/* Bytes of the whole supernodal solve (the sum of sptrsv_block_bytes). */
double sptrsv_calib_total_bytes(const sptrsv_factor *f, int64_t nrhs);

#endif
