/* sp2_schema: what a 2D kernel is and how it is tuned: the algorithm and family found from the
 * descriptor's name, and the point's parameters (pr, refine, prefetch, queue_slots, steal_seed)
 * read with their defaults. The schemas themselves are declared in cpu/spmm2d_cpu_kernels.h, which
 * the CUDA catalog shares. */
#ifndef SP2_SCHEMA_H
#define SP2_SCHEMA_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_params.h"
#include "rt_registry.h"

typedef enum sp2_alg {
    SP2_ALG_SC = 0,      /* stationary C */
    SP2_ALG_SA = 1,      /* stationary A */
    SP2_ALG_SB = 2,      /* stationary B */
    SP2_ALG_SUMMA = 3,   /* bulk-synchronous SUMMA */
    SP2_ALG_SUMMA_A = 4, /* reduce-based stationary-A SUMMA */
    SP2_ALG_WS_RANDOM = 5,
    SP2_ALG_WS_LOCALITY = 6
} sp2_alg;

/* What a kernel is: its algorithm and family, found from the descriptor's name. */
typedef struct sp2_kind_info {
    const char *name;
    sp2_alg alg;
    int spgemm;
} sp2_kind_info;
/* The point's parameters, with defaults for the ones a schema lacks. */
typedef struct sp2_opts {
    int pr, refine, prefetch;
    int64_t slots;
    uint64_t steal_seed;
} sp2_opts;

/* The kind of a 2D kernel (CPU or CUDA), or NULL for a descriptor of another family. */
const sp2_kind_info *sp2_kind_of(const rt_kernel_desc *d);

/* Stationary A, B and the work-stealing variants push partial C tiles to remote queues. */
int sp2_uses_queue(sp2_alg a);
/* Every algorithm but the two SUMMAs fetches tiles with one-sided gets. */
int sp2_is_rdma(sp2_alg a);
int sp2_is_ws(sp2_alg a);

int sp2_read_opts(const rt_kernel_desc *self, const rt_params *p, sp2_opts *o, rt_err *err);

/* Parameter schemas of the variants, shared with the CUDA kernels of the same algorithms (the
 * catalog in kernels/spmm2d/spmm2d_cuda_catalog.c lists them on hosts without a GPU). */
#define RT_SP2_SC_NPARAMS    3
#define RT_SP2_SA_NPARAMS    4
#define RT_SP2_SUMMA_NPARAMS 2
#define RT_SP2_WS_NPARAMS    5
extern const rt_param_schema rt_sp2_sc_params[RT_SP2_SC_NPARAMS];
extern const rt_param_schema rt_sp2_sa_params[RT_SP2_SA_NPARAMS];
extern const rt_param_schema rt_sp2_summa_params[RT_SP2_SUMMA_NPARAMS];
extern const rt_param_schema rt_sp2_ws_params[RT_SP2_WS_NPARAMS];

#endif
