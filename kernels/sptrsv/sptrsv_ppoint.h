/* sptrsv_ppoint: what the two persistent kernels (sptrsv.cpu.persistent, sptrsv.cuda.persistent)
 * share around their plan: the parameters that shape it, their checks, the plan's and the
 * model's metrics, and the traffic model the roofline bound comes from.
 *
 * Parameters (both kernels' schemas have them, by these names):
 *   parts          int   the first `parts` ranks of the job take part (0: every rank)
 *   layout         str   px1 (the paper's P x 1), 2d (Pr x Pc with Pr the largest divisor of the
 *                        parts not above its square root: 2 x 2 on 4, 1 x 2 on 2), 1xp
 *   map            str   cyclic (the paper's block cyclic) | subtree (sptrsv_pplan.h)
 *   chunk_rows     int   rows of one chunk
 *   leaf_kb        int   leaf subtrees of at most this many KiB of L are one task (0: none)
 *   poll_timeout_s real  a wait longer than this fails the execution, naming what was missing
 *
 * Traffic of a part: its steps' flops, the bytes they must read at the device (L's rows and
 * indices, the inverse blocks' triangles; b and x once per owned supernode: the partial sums
 * and copies of x may stay in the L2), and the bytes it writes into other parts' memory per tier
 * (x copies and partial sums); the link
 * term has no latency part, since messages overlap, and the traffic is marked overlapped (the
 * bound is the larger of the device and link terms, not their sum): the bound stays a lower
 * bound. */
#ifndef SPTRSV_PPOINT_H
#define SPTRSV_PPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "rt_comm.h"
#include "rt_error.h"
#include "rt_metrics.h"
#include "rt_registry.h"
#include "sptrsv_family.h"
#include "sptrsv_model.h"
#include "sptrsv_pplan.h"

#define SPTRSV_PPOINT_MAX_COLUMNS 256 /* widest supernode: its inverse diagonal block */

typedef struct sptrsv_ppoint {
    int parts_param, parts, grid_rows;
    char layout[8], map[16];
    int64_t chunk_rows, leaf_kb;
    double timeout_s;
    int threads, blocks_per_sm; /* the kernel's own (set by it) */
} sptrsv_ppoint;

/* Reads the shared parameters from p against the kernel's schema. */
int sptrsv_ppoint_read(const rt_param_schema *schema, int n, const char *kernel, const rt_params *p,
                       sptrsv_ppoint *o, rt_err *err);

/* parts and grid_rows for a job of nranks ranks. RT_INFEASIBLE (err says why) when the job has
 * fewer ranks than parts. */
int sptrsv_ppoint_resolve(sptrsv_ppoint *o, int nranks, rt_err *err);

/* The check hook's part: RT_INFEASIBLE with why for parts beyond the job or max_parts, or a
 * supernode wider than SPTRSV_PPOINT_MAX_COLUMNS; 0 otherwise. */
int sptrsv_ppoint_check(const sptrsv_ppoint *o, const void *inputs, int nranks, int max_parts,
                        const char *kernel, char *why, size_t whylen);

void sptrsv_ppoint_plan_opts(const sptrsv_ppoint *o, const rt_sptrsv_inputs *in,
                             sptrsv_pplan_opts *po);

/* "task T (DIAG of supernode S)" or "task T (a chunk of supernode J)". */
void sptrsv_ppoint_describe_task(const sptrsv_pplan *p, int64_t task, char *buf, size_t len);

void sptrsv_ppoint_plan_metrics(const sptrsv_pplan *p, rt_metrics *m);
/* The factor's metrics and the residual of the whole solution x (n x nrhs). */
void sptrsv_ppoint_solution_metrics(const rt_sptrsv_inputs *in, const double *x, rt_metrics *m);
void sptrsv_ppoint_model_metrics(const sptrsv_prediction *pr, const sptrsv_costs *c, rt_metrics *m);

/* This rank's traffic (zero on a rank that takes no part); builds the plan. */
int sptrsv_ppoint_traffic(const sptrsv_ppoint *o, const rt_sptrsv_inputs *in, rt_comm *comm,
                          rt_traffic *t, rt_err *err);

/* The traffic of part `part` of a built plan; tier_of[q]: the tier from part to part q. */
void sptrsv_ppoint_part_traffic(const sptrsv_factor *f, const sptrsv_pplan *p, int part,
                                const int *tier_of, rt_traffic *t);

#endif
