/* rt_prune: roofline-bounded pruning. A point's roofline bound (the kernel's traffic model against
 * the machine's ceilings) is a lower bound on its time, so a candidate whose bound already
 * exceeds the best time measured so far cannot win: it is skipped without being run and
 * recorded as pruned with both numbers. Optionally the search stops once the best point is
 * within a stated fraction of its own bound (nothing can beat the bound, so little is left).
 *
 * It sits beside any strategy: the caller asks rt_prune_skip before running a candidate and
 * tells rt_prune_observe what each run measured. Unknown bounds (NAN, 0) never prune. */
#ifndef RT_PRUNE_H
#define RT_PRUNE_H

#include <stdint.h>

typedef struct rt_prune {
    int enabled;
    double stop_within; /* stop when best <= bound_of_best * (1 + stop_within); 0 = never */
    double best;        /* best measured time so far (INFINITY before any) */
    double best_bound;  /* its bound */
    int64_t pruned;     /* candidates skipped */
} rt_prune;

void rt_prune_init(rt_prune *p, int enabled, double stop_within);

/* 1 when a candidate with this bound cannot beat the best measured time (and counts it). */
int rt_prune_skip(rt_prune *p, double bound);

/* A measured point: its time (INFINITY when it failed) and its bound. */
void rt_prune_observe(rt_prune *p, double time, double bound);

/* 1 when the best point is within stop_within of its bound. */
int rt_prune_done(const rt_prune *p);

#endif
