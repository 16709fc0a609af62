/* sptrsv_cuda_pdata: what sptrsv.cuda.persistent keeps on one GPU for its part of a plan: the
 * supernodal factor (sptrsv_cuda_superdata), the plan's arrays in 32-bit form where they fit, the
 * part's rows of the targets and reduction slots, its inverse diagonal blocks (M = inv(L_ss), or
 * its transpose for the backward solve, so the kernel reads both alike), B, and the state that
 * other GPUs write into: X, the reduction slots, the x flags and counters, plus the link probe's
 * buffer and flag. All of it is uploaded once in setup; dev describes it to the kernel (the
 * peers' pointers are the caller's to fill). */
#ifndef SPTRSV_CUDA_PDATA_H
#define SPTRSV_CUDA_PDATA_H

#include <stdint.h>

#include "rt_cuda_ctx.h"
#include "rt_error.h"
#include "sptrsv_cuda_persist.h"
#include "sptrsv_cuda_superdata.h"
#include "sptrsv_family.h"
#include "sptrsv_pplan.h"

#define SPTRSV_PDATA_PROBE_DOUBLES 8192 /* the link probe's largest message, 64 KiB */

enum { SPTRSV_PDATA_PLAN_ARRAYS = 20 };

typedef struct sptrsv_cuda_pdata {
    rt_cuda_ctx *ctx;
    sptrsv_cuda_superdata sd;
    void *plan[SPTRSV_PDATA_PLAN_ARRAYS]; /* device copies of the plan, for the release */
    double *b, *x, *lsum, *recv, *probe_buf;
    unsigned long long *xflag, *count, *probe_flag;
    unsigned int *ticket_ctr;
    long long *err, *trace;
    int64_t trace_words;
    double inverse_s, upload_s; /* the inverses on the host; everything to the device */
    sptrsv_persist_dev dev;
} sptrsv_cuda_pdata;

/* Uploads part `part` of plan p. Returns 0, RT_INFEASIBLE (the device is full: err says what
 * did not fit) or -1. */
int sptrsv_cuda_pdata_create(const char *name, rt_cuda_ctx *ctx, const rt_sptrsv_inputs *in,
                             const sptrsv_pplan *p, int part, sptrsv_cuda_pdata *d, rt_err *err);
void sptrsv_cuda_pdata_free(sptrsv_cuda_pdata *d);

/* Zeroes the partial sums and the reduction slots (after a calibration run without waits). */
int sptrsv_cuda_pdata_clear_sums(sptrsv_cuda_pdata *d, const sptrsv_pplan *p, rt_err *err);

#endif
