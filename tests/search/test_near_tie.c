/* ils's near-tie walk (option plateau; hybrid turns it on for its local phase) on a grid built as
 * the convolution_MI250X trap is: a local optimum A of every one-parameter move, a near-tie B one
 * parameter away (1.6% slower), and the optimum C one parameter from B but two from A, every other
 * point of C's row and column far slower (tile size 3 there), so no improving one-parameter path
 * leads to C. Checked: with the walk, once A's neighbours are all measured the next point is a
 * move of B (the walk stood on B) and C is found on every seed; with a tolerance below B's 1.6% or
 * without the walk the next point is not B's move on every seed; hybrid hands its plateau to its
 * local phase; a walk with nothing near ends in the restart, within budget, without repeats. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_strategy.h"
#include "rt_test.h"

enum { N = 8, SIZE = N * N, BUDGET = 40, SEEDS = 10 };

static const int AX = 5, AY = 2, BX = 2, BY = 2, CX = 2, CY = 5;

static double objective(int64_t i)
{
    const int x = (int)(i / N), y = (int)(i % N);
    if (x == AX && y == AY)
        return 1.0;
    if (x == BX && y == BY)
        return 1.016;
    if (x == CX && y == CY)
        return 0.7;
    if (x == CX || y == CY)
        return 50.0; /* C's row and column: far slower, so no descent enters them */
    return 1.0 + 0.1 * (abs(x - AX) + abs(y - AY)); /* a bowl around A, steep: no near-tie */
}

static int one_apart(int64_t a, int64_t b)
{
    return (a / N == b / N) != (a % N == b % N);
}

typedef struct walk_run {
    int n;
    int64_t seq[SIZE];
    int after_a; /* the step after A's last neighbour was measured (-1: never) */
    int found_c; /* step at which C was yielded (-1: never) */
} walk_run;

static int run(const char *name, const char *option, double value, uint64_t seed, int64_t budget,
               walk_run *r)
{
    const rt_grid g = {.n_dims = 2, .dim_size = {N, N}};
    rt_strategy_opts o = {.n = option ? 1 : 0, .value = {value}};
    if (option)
        snprintf(o.name[0], sizeof o.name[0], "%s", option);
    const rt_strategy_args args = {.name = name, .budget = budget, .seed = seed, .options = &o};
    rt_strategy *s = NULL;
    rt_err err;
    if (rt_strategy_create(&args, &g, &s, &err) != 0) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        return -1;
    }
    const int64_t a = AX * N + AY, c = CX * N + CY;
    unsigned char seen[SIZE] = {0};
    int a_left = 2 * (N - 1); /* A's one-parameter moves not yet measured */
    r->n = 0;
    r->after_a = r->found_c = -1;
    int64_t i;
    while (rt_strategy_next(s, &i) == 1 && r->n < SIZE) {
        r->seq[r->n] = i;
        if (i == c && r->found_c < 0)
            r->found_c = r->n;
        if (!seen[i] && one_apart(i, a) && --a_left == 0)
            r->after_a = r->n + 1;
        seen[i] = 1;
        ++r->n;
        rt_strategy_report(s, i, objective(i));
    }
    rt_strategy_free(s);
    return 0;
}

/* With the walk: the point after A's neighbourhood is a move of B, and C is found, on every seed
 * where the descent reached A before C (the seed's first points may land next to C). */
static void test_walk_leaves_the_trap(void)
{
    const int64_t b = BX * N + BY;
    int walked = 0, reached = 0;
    for (uint64_t seed = 1; seed <= SEEDS; ++seed) {
        walk_run r;
        RT_CHECK(run("ils", "plateau", 0.03, seed, BUDGET, &r) == 0);
        RT_CHECK_MSG(r.n == BUDGET, "seed %d: %d points", (int)seed, r.n);
        RT_CHECK_MSG(r.found_c >= 0, "seed %d: the walk did not reach the optimum in %d points",
                     (int)seed, BUDGET);
        if (r.after_a < 0 || r.after_a >= r.n || (r.found_c >= 0 && r.found_c < r.after_a))
            continue;
        ++reached;
        walked += one_apart(r.seq[r.after_a], b) && r.seq[r.after_a] / N == BX;
    }
    RT_CHECK_MSG(reached > 0 && walked == reached,
                 "the walk stood on B after A's neighbourhood on %d of %d seeds", walked, reached);
}

/* Without the walk, or with a tolerance below B's 1.6%, the point after A's neighbourhood is a
 * perturbation of the best point: not B's move on every seed. */
static void test_no_walk_outside_tolerance(void)
{
    const int64_t b = BX * N + BY;
    const double tolerance[] = {0, 0.01};
    for (int t = 0; t < 2; ++t) {
        int walked = 0, reached = 0;
        for (uint64_t seed = 1; seed <= SEEDS; ++seed) {
            walk_run r;
            RT_CHECK(run("ils", "plateau", tolerance[t], seed, BUDGET, &r) == 0);
            if (r.after_a < 0 || r.after_a >= r.n || (r.found_c >= 0 && r.found_c < r.after_a))
                continue;
            ++reached;
            walked += one_apart(r.seq[r.after_a], b) && r.seq[r.after_a] / N == BX;
        }
        RT_CHECK_MSG(reached > 0 && walked < reached,
                     "plateau %g: B's moves came next on all %d seeds", tolerance[t], reached);
    }
}

/* hybrid's plateau is its local phase's: off, its sequence differs on some seed. */
static void test_hybrid_hands_on_plateau(void)
{
    int differ = 0;
    for (uint64_t seed = 1; seed <= SEEDS; ++seed) {
        walk_run on = {0}, off = {0}; /* zeroed: a failed run leaves them as they were */
        RT_CHECK(run("hybrid", NULL, 0, seed, BUDGET, &on) == 0);
        RT_CHECK(run("hybrid", "plateau", 0, seed, BUDGET, &off) == 0);
        RT_CHECK(on.n == BUDGET && off.n == BUDGET);
        differ += memcmp(on.seq, off.seq, sizeof(int64_t) * BUDGET) != 0;
    }
    RT_CHECK_MSG(differ > 0, "hybrid's sequence does not depend on its plateau");
}

/* A walk that accepts anything up to twice the optimum's time (the whole bowl): no point twice,
 * the budget honoured, the same sequence for the same seed. */
static void test_walk_everywhere(void)
{
    walk_run r, again;
    RT_CHECK(run("ils", "plateau", 1.0, 3, 50, &r) == 0);
    RT_CHECK(run("ils", "plateau", 1.0, 3, 50, &again) == 0);
    RT_CHECK_MSG(r.n == 50, "%d points for a budget of 50", r.n);
    RT_CHECK(again.n == r.n && memcmp(r.seq, again.seq, sizeof(int64_t) * (size_t)r.n) == 0);
    unsigned char seen[SIZE] = {0};
    int repeats = 0;
    for (int k = 0; k < r.n; ++k) {
        repeats += seen[r.seq[k]];
        seen[r.seq[k]] = 1;
    }
    RT_CHECK_MSG(repeats == 0, "%d points yielded twice", repeats);
}

int main(void)
{
    test_walk_leaves_the_trap();
    test_no_walk_outside_tolerance();
    test_hybrid_hands_on_plateau();
    test_walk_everywhere();
    return RT_TEST_RESULT();
}
