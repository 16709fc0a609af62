/* pso: particle swarm optimisation on real coordinates. Each particle keeps a velocity and its
 * own best; a step is v = w v + c1 r1 (own best - x) + c2 r2 (swarm best - x), x += v, and the
 * point measured is x rounded to the grid (the nearest open point when that one is taken). The
 * particles start at random points; a particle whose step finds nothing open restarts at one. */
#include <math.h>
#include <stdlib.h>

#include "rt_strategy_impl.h"

#define PSO_N_MAX 64

typedef struct particle {
    double x[RT_MAX_PARAMS], v[RT_MAX_PARAMS], best_x[RT_MAX_PARAMS];
    double best_obj;
    int started;
} particle;

typedef struct pso_state {
    particle p[PSO_N_MAX];
    int n;            /* particles */
    double w, c1, c2; /* inertia, pull to own best, pull to the swarm's best */
    int turn;         /* next particle to move */
    int pending;      /* particle whose point is being measured, -1 for none */
    double swarm_x[RT_MAX_PARAMS];
    double swarm_obj;
} pso_state;

static const rt_strategy_option pso_options[] = {
    {"particles", 10, 1, PSO_N_MAX, 1, "swarm size"},
    {"w", 0.6, 0, 2, 0, "inertia"},
    {"c1", 1.4, 0, 4, 0, "pull towards the particle's own best"},
    {"c2", 1.6, 0, 4, 0, "pull towards the swarm's best"},
};

static int pso_init(rt_strategy *s, rt_err *err)
{
    pso_state *st = calloc(1, sizeof *st);
    if (!st)
        return rt_err_set(err, "out of memory for strategy pso");
    st->pending = -1;
    st->swarm_obj = INFINITY;
    st->n = (int)rt_strat_option(s, "particles");
    st->w = rt_strat_option(s, "w");
    st->c1 = rt_strat_option(s, "c1");
    st->c2 = rt_strat_option(s, "c2");
    for (int i = 0; i < st->n; ++i)
        st->p[i].best_obj = INFINITY;
    s->state = st;
    return 0;
}

static int64_t pso_propose(rt_strategy *s)
{
    pso_state *st = s->state;
    const int k = st->turn;
    st->turn = (st->turn + 1) % st->n;
    particle *p = &st->p[k];
    int64_t i = -1;
    if (p->started && isfinite(st->swarm_obj)) {
        for (int d = 0; d < s->grid.n_dims; ++d) {
            const double span = (double)(s->grid.dim_size[d] - 1);
            const double r1 = rt_strat_unif(s), r2 = rt_strat_unif(s);
            double v = st->w * p->v[d] + st->c1 * r1 * (p->best_x[d] - p->x[d]) +
                       st->c2 * r2 * (st->swarm_x[d] - p->x[d]);
            if (v > span / 2)
                v = span / 2;
            if (v < -span / 2)
                v = -span / 2;
            p->v[d] = v;
            double x = p->x[d] + v;
            p->x[d] = x < 0 ? 0 : (x > span ? span : x);
        }
        i = rt_strat_take_near(s, p->x);
    }
    if (i < 0) {
        i = rt_strat_take_random(s);
        if (i < 0)
            return -1;
        int64_t c[RT_MAX_PARAMS];
        rt_strat_coords(s, i, c);
        for (int d = 0; d < s->grid.n_dims; ++d) {
            p->x[d] = p->best_x[d] = (double)c[d];
            p->v[d] = 0;
        }
        p->started = 1;
    }
    st->pending = k;
    return i;
}

static void pso_observe(rt_strategy *s, int64_t index, double obj)
{
    pso_state *st = s->state;
    if (st->pending < 0 || !isfinite(obj)) {
        st->pending = -1;
        return;
    }
    particle *p = &st->p[st->pending];
    st->pending = -1;
    int64_t c[RT_MAX_PARAMS];
    rt_strat_coords(s, index, c);
    if (obj < p->best_obj) {
        p->best_obj = obj;
        for (int d = 0; d < s->grid.n_dims; ++d)
            p->best_x[d] = (double)c[d];
    }
    if (obj < st->swarm_obj) {
        st->swarm_obj = obj;
        for (int d = 0; d < s->grid.n_dims; ++d)
            st->swarm_x[d] = (double)c[d];
    }
}

const rt_strategy_ops rt_strat_pso_ops = {
    {"pso", "particle swarm on coordinates, rounded to the nearest open point of the grid",
     pso_options, RT_N_OPTIONS(pso_options), RT_STRATEGY_DEFAULT_BUDGET, 0, 0, 0},
    pso_init,
    pso_propose,
    pso_observe,
    rt_strat_free_state};
