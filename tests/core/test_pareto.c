/* The Pareto front of synthetic points (rt_pareto.h): a known front on a grid of dominated
 * points, exact ties, points equal in one objective, points without a finite objective, one point
 * and none, and the front of random clouds against the definition (no point on it is dominated,
 * every point off it is) checked by brute force. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "rt_pareto.h"
#include "rt_test.h"

/* 1 when j dominates i: no worse in both, better in one. */
static int dominates(const double *a, const double *b, int j, int i)
{
    return a[j] <= a[i] && b[j] <= b[i] && (a[j] < a[i] || b[j] < b[i]);
}

static void check_definition(const double *a, const double *b, int n, const int *on)
{
    for (int i = 0; i < n; ++i) {
        if (!isfinite(a[i]) || !isfinite(b[i])) {
            RT_CHECK_MSG(!on[i], "point %d without a finite objective is on the front", i);
            continue;
        }
        int dominated = 0;
        for (int j = 0; j < n; ++j)
            if (isfinite(a[j]) && isfinite(b[j]) && dominates(a, b, j, i))
                dominated = 1;
        RT_CHECK_MSG(on[i] == !dominated, "point %d (%g, %g): on the front %d, dominated %d", i,
                     a[i], b[i], on[i], dominated);
    }
}

int main(void)
{
    rt_err err;
    int on[64];
    /* time, energy: the front is 0 (1, 9), 2 (2, 5), 4 (4, 2), 6 (8, 1); 5 ties 4 exactly. */
    const double t[] = {1, 1.5, 2, 3, 4, 4, 8, 9, 2, NAN, 0.5};
    const double e[] = {9, 9.5, 5, 6, 2, 2, 1, 1, 5.5, 0.1, INFINITY};
    const int n = (int)(sizeof t / sizeof t[0]);
    const int count = rt_pareto_front(t, e, n, on, &err);
    const int want[] = {1, 0, 1, 0, 1, 1, 1, 0, 0, 0, 0};
    RT_CHECK_MSG(count == 5, "%d on the front, want 5", count);
    for (int i = 0; i < n; ++i)
        RT_CHECK_MSG(on[i] == want[i], "point %d: %d, want %d", i, on[i], want[i]);
    check_definition(t, e, n, on);

    /* Equal in one objective: only the better in the other. */
    const double a2[] = {1, 1, 2}, b2[] = {3, 2, 2};
    RT_CHECK(rt_pareto_front(a2, b2, 3, on, &err) == 1 && on[1] && !on[0] && !on[2]);
    /* One point; none; only points without finite objectives. */
    const double one[] = {5};
    RT_CHECK(rt_pareto_front(one, one, 1, on, &err) == 1 && on[0]);
    RT_CHECK(rt_pareto_front(one, one, 0, on, &err) == 0);
    const double bad_a[] = {NAN, 1}, bad_b[] = {1, NAN};
    RT_CHECK(rt_pareto_front(bad_a, bad_b, 2, on, &err) == 0 && !on[0] && !on[1]);

    /* Random clouds (a fixed LCG), some values repeated so ties occur. */
    uint64_t s = 12345;
    for (int round = 0; round < 200; ++round) {
        double ra[64], rb[64];
        const int m = 1 + round % 64;
        for (int i = 0; i < m; ++i) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            ra[i] = (double)((s >> 33) % 16);
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            rb[i] = (double)((s >> 33) % 16);
        }
        const int c = rt_pareto_front(ra, rb, m, on, &err);
        int counted = 0;
        for (int i = 0; i < m; ++i)
            counted += on[i];
        RT_CHECK(c == counted && c >= 1);
        check_definition(ra, rb, m, on);
    }
    return RT_TEST_RESULT();
}
