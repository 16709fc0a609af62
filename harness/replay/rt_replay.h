/* rt_replay: a search strategy replayed on a recorded space, scored with the autotuning
 * methodology (Willemsen et al.): for a budget of b evaluations,
 *     P(b) = (S_random(b) - F(b)) / (S_random(b) - S_opt)
 * where F(b) is the mean over repeats of the best time found, S_random(b) the expected best time
 * of b uniform draws without replacement from the recorded configurations (exact, from the
 * order statistics, not sampled) and S_opt the optimum: 0 is random search, 1 finds the optimum
 * every time. A failed configuration costs an evaluation; a run that found no valid point counts
 * the slowest valid time (so does random search's expectation). */
#ifndef RT_REPLAY_H
#define RT_REPLAY_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_prune.h"
#include "rt_recorded.h"
#include "rt_strategy.h"

typedef struct rt_replay_result {
    int64_t budget; /* evaluations asked for */
    int repeats;
    double mean_best;    /* F(b) */
    double random_best;  /* S_random(b) */
    double optimum;      /* S_opt */
    double score;        /* P(b) */
    double frac_optimum; /* mean over repeats of S_opt / best found (1 = optimum) */
    double mean_evals;   /* evaluations actually made (fewer when the space is smaller) */
    double mean_pruned;  /* candidates skipped by roofline-bounded pruning */
} rt_replay_result;

/* The expected best time of `budget` uniform draws without replacement. */
double rt_replay_random_best(const rt_recorded *r, int64_t budget);

/* One search of `budget` evaluations: the strategy (args->budget is ignored) driven over the
 * recorded grid with the recorded times as objectives, exactly as a live run drives it over a
 * space. With prune (NULL = off; enabled and stop_within are read), a candidate whose recorded
 * bound exceeds the best time so far is skipped: it costs no evaluation and is reported to the
 * strategy as failed (it cannot win); the run may also stop early when the best point is within
 * stop_within of its bound. Writes the best time found (INFINITY when none), the evaluations
 * made, the candidates pruned and, when visited is not NULL, the evaluated indices in order (up
 * to cap; *n_visited gets the count). */
typedef struct rt_replay_once_result {
    double best;
    int64_t evals;
    int64_t pruned;
    int64_t n_visited;
} rt_replay_once_result;
int rt_replay_once(const rt_recorded *r, const rt_strategy_args *args, int64_t budget,
                   const rt_prune *prune, int64_t *visited, int64_t cap, rt_replay_once_result *out,
                   rt_err *err);

/* Replays `strategy` (options: NULL = defaults) `repeats` times with seeds seed, seed+1, ...,
 * each with rt_replay_once, and scores the best times found. */
int rt_replay_run(const rt_recorded *r, const char *strategy, const rt_strategy_opts *options,
                  int64_t budget, int repeats, uint64_t seed, const rt_prune *prune,
                  rt_replay_result *out, rt_err *err);

/* Scores given best-found times (one per repeat): used by rt_replay_run and by tests that score
 * an oracle. */
void rt_replay_score(const rt_recorded *r, int64_t budget, const double *best, int repeats,
                     rt_replay_result *out);

#endif
