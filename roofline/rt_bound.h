/* rt_bound: the roofline bound of one point (the least time its traffic model allows on a
 * machine) and the checks that compare a measurement with it.
 *
 *   intra  = max( flops / peak[precision], max over levels of bytes[level] / bw[level],
 *                 h2d_bytes / h2d, d2h_bytes / d2h, peer_bytes / peer link ) / devices
 *   inter  = sum over tiers of ( messages[tier] * latency[tier] + net_bytes[tier] / bw[tier] )
 *   bound  = intra + inter   (RT_BOUND_SUM: communication and local work serialize, as in a
 *                             bulk-synchronous step)
 *          = max(intra, inter) (RT_BOUND_MAX, or a traffic with overlap = 1: a pipeline that
 *                             overlaps them perfectly)
 * peak[fp64] is fp64_tensor_gflops for a traffic with fp64_tensor (DGEMM on tensor cores); the
 * peer link is the faster of the socket and node tiers (on a GPU machine, GPU to GPU).
 *
 * The traffic is the busiest rank's (rt_traffic in rt_registry.h). Bandwidths are per GPU (or
 * rank) and one direction, the unit the machine files use. docs/reference/roofline.md explains the
 * choices.
 */
#ifndef RT_BOUND_H
#define RT_BOUND_H

#include "rt_error.h"
#include "rt_machine.h"
#include "rt_matrix.h"
#include "rt_metrics.h"
#include "rt_registry.h"

#define RT_ROOFLINE_DEFAULT_TOLERANCE 0.05

typedef enum rt_bound_combine {
    RT_BOUND_SUM = 0, /* intra + inter (default) */
    RT_BOUND_MAX = 1  /* max(intra, inter): fully overlapped communication */
} rt_bound_combine;

typedef enum rt_ceiling_choice {
    RT_CEILINGS_EFFECTIVE = 0, /* measured where present, else spec (default) */
    RT_CEILINGS_SPEC = 1,
    RT_CEILINGS_MEASURED = 2 /* fails when a needed ceiling was not measured */
} rt_ceiling_choice;

typedef struct rt_bound_opts {
    rt_precision precision;
    rt_bound_combine combine;
    rt_ceiling_choice ceilings;
} rt_bound_opts;

/* Defaults: fp32, sum, effective ceilings. */
void rt_bound_opts_init(rt_bound_opts *o);

/* Terms of the bound, in seconds (0 where the traffic model has nothing). */
typedef struct rt_bound {
    double compute_s;
    double level_s[RT_LEVEL_COUNT];
    double tier_s[RT_TIER_COUNT];
    double h2d_s, d2h_s, peer_s; /* the GPUs' links */
    double intra_s;
    double inter_s;
    double bound_s;
    char limit[32];       /* the largest term: "fp32", "fp64", "fp64 tensor", "dram", "l2",
                             "shared", "host link (h2d)", "host link (d2h)", "peer link",
                             "socket link", "node link", "global network" */
    char intra_limit[32]; /* the largest intra-node term */
} rt_bound;

/* Computes the bound. Fails (naming the machine file and the term) when the traffic has bytes
 * at a level or tier the machine has no ceiling for, when a traffic value is negative or not
 * finite, or when the model is empty (no flops and no bytes anywhere). One exception: shared
 * bytes on a cpu machine without shared_gbs (a CPU kernel emulating a GPU's shared-memory
 * staging) leave level_s[shared] at 0 instead of failing: a missing term only loosens a bound. */
int rt_bound_compute(const rt_traffic *t, const rt_machine *m, const rt_bound_opts *opt,
                     rt_bound *out, rt_err *err);

/* Stores the traffic model as deterministic metrics of the point, so the roofline figure and the
 * exports can use it later: model_flops, model_dram_bytes, model_l2_bytes, model_shared_bytes,
 * model_net_bytes_<tier> and model_net_messages_<tier> (tiers socket, node, global),
 * model_h2d_bytes, model_d2h_bytes and model_peer_bytes (only the nonzero ones), and intensity =
 * model_flops / model_dram_bytes (flop per byte, when both are nonzero). Fails when m has no room
 * left. */
int rt_bound_traffic_metrics(const rt_traffic *t, rt_metrics *m, rt_err *err);

/* Name of the limiting term for a tier ("socket link", "node link", "global network"). */
const char *rt_bound_tier_term(rt_net_tier tier);

typedef enum rt_roofline_status {
    RT_ROOFLINE_OK = 0,   /* at or below the roof (within tolerance) */
    RT_ROOFLINE_ABOVE = 1 /* faster than the bound allows: a measurement or model bug */
} rt_roofline_status;

typedef struct rt_roofline_verdict {
    rt_roofline_status status;
    double efficiency; /* bound / measured (1 = on the roof; > 1 only when above it) */
    double ratio;      /* dram check: counted / compulsory bytes; NAN for the time check */
    char reason[256];  /* why it was flagged; "" when OK */
} rt_roofline_verdict;

/* Time check: ABOVE when measured_s < bound_s * (1 - tolerance). A negative tolerance selects
 * RT_ROOFLINE_DEFAULT_TOLERANCE. Fails on a non-positive or non-finite time or bound, or a
 * tolerance >= 1. */
int rt_roofline_check(double measured_s, double bound_s, double tolerance, rt_roofline_verdict *v,
                      rt_err *err);

/* Traffic check: counted DRAM bytes (hardware counters) below the compulsory bytes of the model
 * mean the model or the counters are wrong. ratio = counted / compulsory; ABOVE (flagged) when
 * counted < (1 - tolerance) x compulsory - cache_bytes. cache_bytes (the device's L2; 0 for none)
 * is what the counters may honestly miss in hot mode: operands left in the cache by the previous
 * repetition are read from it, and dirty lines still in it when the range ends are written back
 * after it (seen on an H200: vecadd of 201 MB counted 191 MB, ratio 0.949). Same argument rules
 * as rt_roofline_check. */
int rt_roofline_check_dram(double counted_bytes, double compulsory_bytes, double tolerance,
                           double cache_bytes, rt_roofline_verdict *v, rt_err *err);

/* Convenience for the runner: reads the counted DRAM bytes from m (dram_bytes_read plus
 * dram_bytes_write, both needed), and when they are available adds the metric
 * "dram_bytes_ratio" (unit "ratio") and fills v. Returns 1 when the counters were unavailable
 * (nothing added, v untouched), 0 when checked, -1 on error. */
int rt_roofline_dram_ratio_metric(rt_metrics *m, double compulsory_bytes, double tolerance,
                                  double cache_bytes, rt_roofline_verdict *v, rt_err *err);

/* The same for the L2: counted L2 bytes (metric "l2_bytes", CUPTI lts__t_bytes) over the model's
 * L2 bytes, stored as "l2_bytes_ratio". Informative only, no verdict: the model's L2 bytes are the
 * operands' compulsory reads through the L2, while the counter sees every L2 request (DRAM fills,
 * write-backs, re-reads), so neither side bounds the other. Returns 1 when the counter is
 * unavailable or the model has no L2 bytes (nothing added), 0 when added, -1 on error. */
int rt_roofline_l2_ratio_metric(rt_metrics *m, double model_l2_bytes, rt_err *err);

#endif
