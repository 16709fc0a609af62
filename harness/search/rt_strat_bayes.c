/* bayes: Bayesian optimisation with a Gaussian-process surrogate and expected improvement.
 *
 * Data: every reported point, its coordinates scaled to [0, 1] per parameter, its objective as a
 * standardised logarithm (run times span orders of magnitude; the log makes the surface closer to
 * stationary). A failed point gets the worst objective seen, so the model learns to avoid its
 * region instead of being told "infinitely slow", which would wreck the fit.
 * Model: Matern 5/2 covariance, unit signal variance, small noise; the length scale is picked from
 * a short grid by the log marginal likelihood every step. Linear algebra: Cholesky (dpotrf) and
 * triangular solves (dpotrs, dtrtrs) from LAPACKE.
 * Acquisition: expected improvement over a pool of random unmeasured points and every open
 * one-parameter move of the best points (where the optimum usually is once the model is good).
 * The first points are an initial design the model can stand on: random points of the seed's
 * order, each after the first the farthest from those measured among a window of the order. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_strategy_impl.h"

#define BO_TOP_CENTRES 3
#define BO_MAX_MOVES   1024
#define BO_MAX_DATA    400 /* beyond this, only the best points are modelled: the cost is cubic */
#define BO_NOISE       1e-4
static const double bo_length_grid[] = {0.08, 0.15, 0.3, 0.6};
#define BO_N_LENGTHS ((int)(sizeof bo_length_grid / sizeof bo_length_grid[0]))

/* Relevance search (ard): each parameter's length scale tried at these multiples of the current
 * one, 0 standing for "this parameter does not matter" (an infinite length scale). */
static const double bo_ard_steps[] = {0.5, 2.0, 4.0};
#define BO_N_ARD ((int)(sizeof bo_ard_steps / sizeof bo_ard_steps[0]))

typedef struct bo_state {
    int n_init;
    int ard;          /* one length scale per parameter, by marginal likelihood */
    double local;     /* share of steps that only consider the best point's moves */
    int model_failed; /* failed points enter the model at the worst time (else they stay out) */
    int64_t steps;    /* model-guided steps so far */
    int pool;         /* random candidates per step */
    double xi;        /* expected improvement's exploration margin */
    int64_t pool_pos; /* where the next pool starts in the seed's random order */
    int design;       /* candidates per initial point (maximin); 1: the random order itself */
} bo_state;

static const rt_strategy_option bo_options[] = {
    {"pool", 384, 1, 65536, 1,
     "unmeasured points of the random order scored per step, besides the neighbours of the 3 best"},
    {"xi", 0.01, 0, 10, 0, "exploration margin of expected improvement (standardised log time)"},
    {"local", 0, -1, 1, 0,
     "share of steps whose candidates are only the one-parameter moves of the best point; -1: a "
     "share growing from 0 to 1 over the budget (explore first, then exploit)"},
    {"failed", 1, 0, 1, 1,
     "1: a failed configuration enters the model at the worst time seen; 0: it stays out (it is "
     "never proposed again either way)"},
    {"ard", 1, 0, 1, 1,
     "1: a length scale per parameter (automatic relevance), 0: one for all parameters"},
    {"design", 32, 1, 4096, 1,
     "initial design: each initial point after the first is, of this many unmeasured points of "
     "the random order, the farthest from the measured ones (maximin); 1: random points"},
};

static int bo_init(rt_strategy *s, rt_err *err)
{
    bo_state *st = calloc(1, sizeof *st);
    if (!st)
        return rt_err_set(err, "out of memory for strategy bayes");
    /* About a tenth of the budget, between 4 and 10 points. */
    int64_t n0 = s->budget / 10;
    st->n_init = (int)(n0 < 4 ? 4 : (n0 > 10 ? 10 : n0));
    st->pool = (int)rt_strat_option(s, "pool");
    st->xi = rt_strat_option(s, "xi");
    st->ard = (int)rt_strat_option(s, "ard");
    st->local = rt_strat_option(s, "local");
    st->model_failed = (int)rt_strat_option(s, "failed");
    st->design = (int)rt_strat_option(s, "design");
    s->state = st;
    return 0;
}

/* inv_len[d]: 1 / the length scale of parameter d (0: it does not matter). */
static double matern52(const double *a, const double *b, int nd, const double *inv_len)
{
    double r2 = 0;
    for (int d = 0; d < nd; ++d) {
        const double t = (a[d] - b[d]) * inv_len[d];
        r2 += t * t;
    }
    const double r = sqrt(5.0 * r2);
    return (1.0 + r + r * r / 3.0) * exp(-r);
}

static void features(const rt_strategy *s, int64_t index, double *x)
{
    int64_t c[RT_MAX_PARAMS];
    rt_strat_coords(s, index, c);
    for (int d = 0; d < s->grid.n_dims; ++d)
        x[d] = s->grid.dim_size[d] > 1 ? (double)c[d] / (double)(s->grid.dim_size[d] - 1) : 0.0;
}

typedef struct bo_fit {
    int n, nd;
    double *x;     /* n x nd, row-major */
    double *y;     /* standardised */
    double *chol;  /* n x n lower Cholesky factor, column-major */
    double *alpha; /* K^-1 y */
    double inv_len[RT_MAX_PARAMS];
    double y_best;
} bo_fit;

/* Factorises K for the length scales inv_len; returns the log marginal likelihood or -INFINITY. */
static double bo_factor(bo_fit *f, const double *inv_len)
{
    const int n = f->n;
    for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i) {
            const double k =
                matern52(f->x + (size_t)i * f->nd, f->x + (size_t)j * f->nd, f->nd, inv_len);
            f->chol[(size_t)j * n + i] = k + (i == j ? BO_NOISE : 0.0);
        }
    if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, f->chol, n) != 0)
        return -INFINITY;
    memcpy(f->alpha, f->y, (size_t)n * sizeof *f->alpha);
    if (LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', n, 1, f->chol, n, f->alpha, n) != 0)
        return -INFINITY;
    double lml = 0;
    for (int i = 0; i < n; ++i)
        lml -= 0.5 * f->y[i] * f->alpha[i] + log(f->chol[(size_t)i * n + i]);
    return lml;
}

/* The data, fitted: 0, or -1 when there is too little or no length scale gives a factor. */
static int bo_fit_data(rt_strategy *s, const bo_state *st, bo_fit *f)
{
    const int64_t nh = s->n_hist;
    double worst = -INFINITY;
    int finite = 0;
    for (int64_t k = 0; k < nh; ++k)
        if (isfinite(s->hist[k].obj) && s->hist[k].obj > 0) {
            finite++;
            if (log(s->hist[k].obj) > worst)
                worst = log(s->hist[k].obj);
        }
    if (finite < 2)
        return -1;
    /* The modelled points (failed ones too when asked); the best BO_MAX_DATA of them: sort a
     * copy of the history positions by objective. */
    int64_t *order = malloc((size_t)nh * sizeof *order);
    if (!order)
        return -1;
    int64_t n_data = 0;
    for (int64_t k = 0; k < nh; ++k)
        if (st->model_failed || (isfinite(s->hist[k].obj) && s->hist[k].obj > 0))
            order[n_data++] = k;
    int n = (int)(n_data < BO_MAX_DATA ? n_data : BO_MAX_DATA);
    if (n_data > BO_MAX_DATA) /* partial selection sort: only when the history is long */
        for (int i = 0; i < n; ++i) {
            int64_t m = i;
            for (int64_t k = i + 1; k < n_data; ++k)
                if (s->hist[order[k]].obj < s->hist[order[m]].obj)
                    m = k;
            const int64_t t = order[i];
            order[i] = order[m];
            order[m] = t;
        }
    f->n = n;
    f->nd = s->grid.n_dims;
    f->x = malloc((size_t)n * f->nd * sizeof *f->x);
    f->y = malloc((size_t)n * sizeof *f->y);
    f->chol = malloc((size_t)n * n * sizeof *f->chol);
    f->alpha = malloc((size_t)n * sizeof *f->alpha);
    if (!f->x || !f->y || !f->chol || !f->alpha) {
        free(order);
        return -1;
    }
    double mean = 0;
    for (int i = 0; i < n; ++i) {
        const double o = s->hist[order[i]].obj;
        f->y[i] = (isfinite(o) && o > 0) ? log(o) : worst;
        features(s, s->hist[order[i]].index, f->x + (size_t)i * f->nd);
        mean += f->y[i];
    }
    free(order);
    mean /= n;
    double var = 0;
    for (int i = 0; i < n; ++i)
        var += (f->y[i] - mean) * (f->y[i] - mean);
    const double sd = var > 0 ? sqrt(var / n) : 1.0;
    f->y_best = INFINITY;
    for (int i = 0; i < n; ++i) {
        f->y[i] = (f->y[i] - mean) / sd;
        if (f->y[i] < f->y_best)
            f->y_best = f->y[i];
    }
    /* Distances in the unit cube grow with the square root of the dimension count. */
    int live = 0;
    for (int d = 0; d < f->nd; ++d)
        live += s->grid.dim_size[d] > 1;
    const double scale = sqrt(live > 0 ? (double)live : 1.0);
    double best_lml = -INFINITY, try_len[RT_MAX_PARAMS];
    for (int g = 0; g < BO_N_LENGTHS; ++g) {
        for (int d = 0; d < f->nd; ++d)
            try_len[d] = s->grid.dim_size[d] > 1 ? 1.0 / (bo_length_grid[g] * scale) : 0.0;
        const double lml = bo_factor(f, try_len);
        if (lml > best_lml) {
            best_lml = lml;
            memcpy(f->inv_len, try_len, sizeof try_len);
        }
    }
    if (!isfinite(best_lml))
        return -1;
    /* Relevance: one sweep over the parameters, each length scale moved while the likelihood
     * improves; with more points than parameters, so the data can tell them apart. */
    for (int d = 0; st->ard && f->n > 2 * live && d < f->nd; ++d) {
        if (s->grid.dim_size[d] < 2)
            continue;
        const double base = f->inv_len[d] > 0 ? f->inv_len[d] : 1.0 / scale;
        for (int k = 0; k < BO_N_ARD; ++k) {
            memcpy(try_len, f->inv_len, sizeof try_len);
            try_len[d] = bo_ard_steps[k] > 0 ? base / bo_ard_steps[k] : 0.0;
            const double lml = bo_factor(f, try_len);
            if (lml > best_lml + 1e-9) {
                best_lml = lml;
                f->inv_len[d] = try_len[d];
            }
        }
    }
    return isfinite(bo_factor(f, f->inv_len)) ? 0 : -1;
}

static void bo_fit_free(bo_fit *f)
{
    free(f->x);
    free(f->y);
    free(f->chol);
    free(f->alpha);
}

/* An initial point spread out from the measured ones: of the first `design` open points of the
 * seed's random order, the one whose nearest measured point (scaled coordinates) is farthest; the
 * first point, and a design of 1, are the driver's random points. Taken, or -1. */
static int64_t bo_design_point(rt_strategy *s, bo_state *st)
{
    if (st->design <= 1 || s->n_hist == 0)
        return -1;
    const int nd = s->grid.n_dims;
    double *xh = malloc((size_t)s->n_hist * (size_t)nd * sizeof *xh);
    if (!xh)
        return -1;
    for (int64_t k = 0; k < s->n_hist; ++k)
        features(s, s->hist[k].index, xh + (size_t)k * nd);
    int64_t chosen = -1;
    double chosen_d = -1;
    double x[RT_MAX_PARAMS];
    int64_t pos = 0;
    for (int c = 0; c < st->design; ++c) {
        const int64_t i = rt_strat_next_random(s, &pos);
        if (i < 0)
            break;
        features(s, i, x);
        double nearest = INFINITY;
        for (int64_t k = 0; k < s->n_hist; ++k) {
            double d2 = 0;
            for (int d = 0; d < nd; ++d) {
                const double t = x[d] - xh[(size_t)k * nd + d];
                d2 += t * t;
            }
            if (d2 < nearest)
                nearest = d2;
        }
        if (nearest > chosen_d) {
            chosen_d = nearest;
            chosen = i;
        }
    }
    free(xh);
    return chosen >= 0 && rt_strat_take(s, chosen) ? chosen : -1;
}

static int64_t bo_propose(rt_strategy *s)
{
    bo_state *st = s->state;
    if (s->n_hist < st->n_init)
        return bo_design_point(s, st);
    bo_fit f = {0};
    if (bo_fit_data(s, st, &f) != 0) {
        bo_fit_free(&f);
        return -1;
    }
    /* The pool: open neighbours of the best points, then random open points. Duplicates are
     * harmless (the same score twice). */
    const int cap = BO_TOP_CENTRES * BO_MAX_MOVES + st->pool;
    int64_t *pool = malloc((size_t)cap * sizeof *pool);
    double *ks = malloc((size_t)cap * f.n * sizeof *ks);
    double *xc = malloc((size_t)cap * f.nd * sizeof *xc);
    int64_t chosen = -1;
    if (!pool || !ks || !xc)
        goto done;
    int m = 0;
    int64_t centres[BO_TOP_CENTRES];
    double centre_obj[BO_TOP_CENTRES];
    int n_centres = 0;
    for (int64_t k = 0; k < s->n_hist; ++k) {
        const double o = s->hist[k].obj;
        if (!isfinite(o))
            continue;
        if (n_centres == BO_TOP_CENTRES && o >= centre_obj[BO_TOP_CENTRES - 1])
            continue;
        int pos = n_centres < BO_TOP_CENTRES ? n_centres++ : BO_TOP_CENTRES - 1;
        while (pos > 0 && centre_obj[pos - 1] > o) {
            centres[pos] = centres[pos - 1];
            centre_obj[pos] = centre_obj[pos - 1];
            --pos;
        }
        centres[pos] = s->hist[k].index;
        centre_obj[pos] = o;
    }
    int n_best_moves = 0; /* the pool starts with the best point's moves */
    for (int c = 0; c < n_centres; ++c) {
        m += rt_strat_open_neighbours(s, centres[c], 1, pool + m, BO_MAX_MOVES);
        if (c == 0)
            n_best_moves = m;
    }
    /* A local step (a share `local` of the steps, evenly spread) weighs only the best point's
     * moves, as a descent would, ranked by the model; when it has none left, every candidate. */
    const int64_t step = st->steps++;
    const double share =
        st->local >= 0 ? st->local : (double)s->n_hist / (double)(s->budget > 1 ? s->budget : 1);
    const int local =
        floor((double)(step + 1) * share) > floor((double)step * share) && n_best_moves > 0;
    /* Random unmeasured points: the next ones of the seed's random order after the last pool's,
     * from its start again when it runs out (the same on a live space and its recording). */
    for (int k = 0, wrapped = 0; k < st->pool && m < cap;) {
        const int64_t i = rt_strat_next_random(s, &st->pool_pos);
        if (i < 0) {
            if (wrapped++)
                break;
            st->pool_pos = 0;
            continue;
        }
        pool[m++] = i;
        ++k;
    }
    if (m == 0)
        goto done;
    for (int j = 0; j < m; ++j) {
        features(s, pool[j], xc + (size_t)j * f.nd);
        for (int i = 0; i < f.n; ++i)
            ks[(size_t)j * f.n + i] =
                matern52(f.x + (size_t)i * f.nd, xc + (size_t)j * f.nd, f.nd, f.inv_len);
    }
    double *mu = malloc((size_t)cap * sizeof *mu);
    if (!mu)
        goto done;
    for (int j = 0; j < m; ++j) {
        double acc = 0;
        for (int i = 0; i < f.n; ++i)
            acc += ks[(size_t)j * f.n + i] * f.alpha[i];
        mu[j] = acc;
    }
    /* V = L^-1 Ks: the posterior variance is 1 - |v_j|^2. */
    if (LAPACKE_dtrtrs(LAPACK_COL_MAJOR, 'L', 'N', 'N', f.n, m, f.chol, f.n, ks, f.n) != 0) {
        free(mu);
        goto done;
    }
    double best_ei = -1;
    for (int j = 0; j < (local ? n_best_moves : m); ++j) {
        double q = 0;
        for (int i = 0; i < f.n; ++i)
            q += ks[(size_t)j * f.n + i] * ks[(size_t)j * f.n + i];
        const double var = 1.0 + BO_NOISE - q;
        const double sd = var > 1e-12 ? sqrt(var) : 1e-6;
        const double imp = f.y_best - mu[j] - st->xi;
        const double z = imp / sd;
        const double ei = imp * 0.5 * erfc(-z / sqrt(2.0)) +
                          sd * exp(-0.5 * z * z) / sqrt(2.0 * 3.141592653589793);
        if (ei > best_ei) {
            best_ei = ei;
            chosen = pool[j];
        }
    }
    free(mu);
    if (chosen >= 0 && !rt_strat_take(s, chosen))
        chosen = -1;
done:
    free(pool);
    free(ks);
    free(xc);
    bo_fit_free(&f);
    return chosen;
}

const rt_strategy_ops rt_strat_bayes_ops = {
    {"bayes",
     "Bayesian optimisation: Gaussian process (Matern 5/2, length scale by marginal likelihood) "
     "on standardised log times, expected improvement over random points and the one-parameter "
     "moves of the 3 best; the first tenth of the budget (4 to 10 points) is random",
     bo_options, RT_N_OPTIONS(bo_options), RT_STRATEGY_DEFAULT_BUDGET, 0, 0, 0},
    bo_init,
    bo_propose,
    NULL,
    rt_strat_free_state};
