#include "rt_prune.h"

#include <math.h>

void rt_prune_init(rt_prune *p, int enabled, double stop_within)
{
    p->enabled = enabled;
    p->stop_within = stop_within > 0 ? stop_within : 0;
    p->best = INFINITY;
    p->best_bound = NAN;
    p->pruned = 0;
}

int rt_prune_skip(rt_prune *p, double bound)
{
    /* Strictly greater: a point whose bound equals the best time could still tie it. */
    if (!p->enabled || !(bound > 0) || !isfinite(bound) || !(bound > p->best))
        return 0;
    p->pruned++;
    return 1;
}

void rt_prune_observe(rt_prune *p, double time, double bound)
{
    if (isfinite(time) && time < p->best) {
        p->best = time;
        p->best_bound = bound;
    }
}

int rt_prune_done(const rt_prune *p)
{
    return p->enabled && p->stop_within > 0 && isfinite(p->best) && p->best_bound > 0 &&
           p->best <= p->best_bound * (1.0 + p->stop_within);
}
