/* rt_stats: summaries, the median's order-statistic confidence interval, the stopping rule and
 * the Mann-Whitney test, on data whose answers are known (reference values computed independently
 * by brute force: U by counting pairs, exact p-values by enumerating every split). */
#include <math.h>
#include <stdlib.h>

#include "rt_stats.h"
#include "rt_test.h"

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol))

static void test_summary(void)
{
    const double x[] = {9, 2, 4, 4, 4, 5, 5, 7}; /* sorted: 2 4 4 4 5 5 7 9 */
    rt_stats_summary s;
    rt_err err;
    RT_CHECK(rt_stats_summarize(x, 8, &s, &err) == 0);
    RT_CHECK(s.n == 8 && s.min == 2 && s.max == 9);
    RT_CHECK(s.mean == 5.0);
    RT_CHECK(s.median == 4.5);
    RT_CHECK_MSG(NEAR(s.stddev, sqrt(32.0 / 7.0), 1e-12), "%.17g", s.stddev);
    double m;
    RT_CHECK(rt_stats_median(x, 7, &m, &err) == 0 && m == 4.0); /* 9 2 4 4 4 5 5 -> 4 */
    const double one = 3.25;
    RT_CHECK(rt_stats_summarize(&one, 1, &s, &err) == 0 && s.median == 3.25 && s.stddev == 0);
    /* Large, close values: the two-pass variance does not cancel to garbage. */
    const double close[] = {1e9 + 1, 1e9 + 2, 1e9 + 3};
    RT_CHECK(rt_stats_summarize(close, 3, &s, &err) == 0 && NEAR(s.stddev, 1.0, 1e-9));

    /* Garbage in, errors out. */
    const double bad[] = {1.0, NAN, 2.0};
    RT_CHECK(rt_stats_summarize(bad, 3, &s, &err) != 0 && rt_test_contains(err.msg, "sample 1"));
    const double inf[] = {INFINITY};
    RT_CHECK(rt_stats_summarize(inf, 1, &s, &err) != 0);
    RT_CHECK(rt_stats_summarize(x, 0, &s, &err) != 0 && rt_test_contains(err.msg, "at least one"));
    RT_CHECK(rt_stats_summarize(NULL, 3, &s, &err) != 0);
    RT_CHECK(rt_stats_median(x, -4, &m, &err) != 0);
}

static void test_median_ci(void)
{
    double x[2000];
    for (int i = 0; i < 2000; ++i)
        x[i] = (double)(i + 1);
    double lo, hi, rel, ach;
    rt_err err;

    /* n = 10, 95%: P(B <= 1) = 11/1024 <= 0.025 < P(B <= 2) = 56/1024, so the interval is
     * [x_(2), x_(9)] with coverage 1 - 22/1024. */
    RT_CHECK(rt_stats_median_ci(x, 10, 0.95, &lo, &hi, &rel, &ach, &err) == 0);
    RT_CHECK(lo == 2 && hi == 9);
    RT_CHECK(NEAR(ach, 1.0 - 22.0 / 1024.0, 1e-12));
    RT_CHECK(NEAR(rel, 7.0 / (2.0 * 5.5), 1e-12));

    /* n = 100, 95%: the classic table gives ranks 40 and 61. */
    RT_CHECK(rt_stats_median_ci(x, 100, 0.95, &lo, &hi, &rel, &ach, &err) == 0);
    RT_CHECK_MSG(lo == 40 && hi == 61, "%g %g", lo, hi);
    RT_CHECK(ach >= 0.95 && ach < 0.97);

    /* Unsorted input gives the same answer. */
    double shuffled[100];
    for (int i = 0; i < 100; ++i)
        shuffled[i] = (double)((i * 37) % 100 + 1);
    double lo2, hi2, rel2;
    RT_CHECK(rt_stats_median_ci(shuffled, 100, 0.95, &lo2, &hi2, &rel2, NULL, &err) == 0);
    RT_CHECK(lo2 == 40 && hi2 == 61 && rel2 == rel);

    /* Too few samples for 95%: 5 gives at most 1 - 2/32 = 93.75%. */
    RT_CHECK(rt_stats_median_ci(x, 5, 0.95, &lo, &hi, &rel, NULL, &err) == 0);
    RT_CHECK(isinf(rel) && lo == 1 && hi == 5);
    RT_CHECK(rt_stats_median_ci(x, 6, 0.95, &lo, &hi, &rel, &ach, &err) == 0);
    RT_CHECK(isfinite(rel) && lo == 1 && hi == 6 && NEAR(ach, 1.0 - 2.0 / 64.0, 1e-12));
    RT_CHECK(rt_stats_median_ci(x, 1, 0.5, &lo, &hi, &rel, NULL, &err) == 0 && isinf(rel));

    /* Large n does not underflow: about n/2 -/+ 1.96 sqrt(n)/2. */
    RT_CHECK(rt_stats_median_ci(x, 2000, 0.95, &lo, &hi, &rel, &ach, &err) == 0);
    RT_CHECK_MSG(lo >= 954 && lo <= 958 && hi >= 1043 && hi <= 1047, "%g %g", lo, hi);
    RT_CHECK(NEAR(ach, 0.95, 0.01));

    /* Identical samples: zero width. A zero median with spread: infinite relative width. */
    const double same[] = {2, 2, 2, 2, 2, 2, 2, 2};
    RT_CHECK(rt_stats_median_ci(same, 8, 0.95, &lo, &hi, &rel, NULL, &err) == 0 && rel == 0);
    const double around0[] = {-1, -1, 0, 0, 0, 1, 1, 1};
    RT_CHECK(rt_stats_median_ci(around0, 8, 0.95, &lo, &hi, &rel, NULL, &err) == 0 && isinf(rel));

    RT_CHECK(rt_stats_median_ci(x, 10, 1.0, &lo, &hi, &rel, NULL, &err) != 0);
    RT_CHECK(rt_test_contains(err.msg, "confidence"));
    RT_CHECK(rt_stats_median_ci(x, 10, NAN, &lo, &hi, &rel, NULL, &err) != 0);
    RT_CHECK(rt_stats_median_ci(x, 10, -0.5, &lo, &hi, &rel, NULL, &err) != 0);
    RT_CHECK(rt_stats_median_ci(x, 0, 0.95, &lo, &hi, &rel, NULL, &err) != 0);
}

static void test_mann_whitney(void)
{
    rt_stats_mw r;
    rt_err err;
    double a[20], b[20];
    for (int i = 0; i < 10; ++i) {
        a[i] = 1 + i;  /* 1..10 */
        b[i] = 11 + i; /* 11..20 */
    }
    /* Fully separated: U = 0, exact p = 2 / C(20, 10). */
    RT_CHECK(rt_stats_mann_whitney(a, 10, b, 10, &r, &err) == 0);
    RT_CHECK(r.exact && r.u_a == 0 && r.u_b == 100 && r.prob_a_greater == 0);
    RT_CHECK_MSG(NEAR(r.p_value, 2.0 / 184756.0, 1e-15), "%.17g", r.p_value);
    RT_CHECK(rt_stats_mann_whitney(b, 10, a, 10, &r, &err) == 0 && r.u_a == 100);

    /* Identical samples: no evidence at all. */
    const double same[] = {5, 5, 5, 5, 5, 5};
    RT_CHECK(rt_stats_mann_whitney(same, 6, same, 6, &r, &err) == 0);
    RT_CHECK(r.p_value == 1.0 && !r.exact && r.u_a == 18);

    /* Interleaved (odds vs evens): clearly not different. */
    for (int i = 0; i < 20; ++i) {
        a[i] = 2 * i + 1;
        b[i] = 2 * i + 2;
    }
    RT_CHECK(rt_stats_mann_whitney(a, 20, b, 20, &r, &err) == 0);
    RT_CHECK(r.exact && r.u_a == 190 && r.p_value > 0.7); /* normal approx: 0.797 */

    /* Small overlapping samples: U = 6, exact two-sided p = 0.034965034965 (enumeration). */
    const double sa[] = {1.1, 2.3, 3.2, 4.8, 5.0, 7.7};
    const double sb[] = {2.0, 6.1, 8.4, 9.9, 10.2, 11.5, 12.0};
    RT_CHECK(rt_stats_mann_whitney(sa, 6, sb, 7, &r, &err) == 0);
    RT_CHECK(r.exact && r.u_a == 6);
    RT_CHECK_MSG(NEAR(r.p_value, 0.03496503496503497, 1e-12), "%.17g", r.p_value);

    /* Ties and larger samples: the normal approximation with tie correction; U = 132.5 by pair
     * counting, z = 3.6223, p = 2.91995e-4. */
    const double ta[] = {1, 2, 2, 3,  3,  3,  4,  5,  5,  6,  7,  8, 8,
                         9, 9, 9, 10, 11, 12, 12, 13, 14, 15, 15, 16};
    const double tb[] = {5,  6,  7,  7,  8,  9,  10, 10, 11, 12, 12, 13, 14,
                         15, 16, 16, 17, 18, 18, 19, 20, 20, 21, 22, 22, 23};
    RT_CHECK(rt_stats_mann_whitney(ta, 25, tb, 26, &r, &err) == 0);
    RT_CHECK(!r.exact && r.u_a == 132.5);
    RT_CHECK_MSG(NEAR(fabs(r.z), 3.622300178358556, 1e-9), "%.17g", r.z);
    RT_CHECK(r.z < 0); /* a tends to be smaller */
    RT_CHECK_MSG(NEAR(r.p_value, 0.00029199500111757936, 1e-12), "%.17g", r.p_value);

    /* Exact and approximate agree closely where both apply (20 + 20, no ties). */
    for (int i = 0; i < 20; ++i) {
        a[i] = i + 0.25 * (i % 3);
        b[i] = i + 4.1;
    }
    RT_CHECK(rt_stats_mann_whitney(a, 20, b, 20, &r, &err) == 0 && r.exact);
    const double p_exact = r.p_value;
    double a2[21];
    for (int i = 0; i < 20; ++i)
        a2[i] = a[i];
    a2[20] = 100.0; /* 21 + 20 > 40: approximate */
    RT_CHECK(rt_stats_mann_whitney(a2, 21, b, 20, &r, &err) == 0 && !r.exact);
    RT_CHECK_MSG(p_exact > 0.01 && r.p_value > 0.01 && fabs(p_exact - r.p_value) < 0.1,
                 "exact %g approx %g", p_exact, r.p_value);

    /* Garbage. */
    RT_CHECK(rt_stats_mann_whitney(a, 0, b, 5, &r, &err) != 0);
    RT_CHECK(rt_stats_mann_whitney(a, 5, NULL, 5, &r, &err) != 0);
    const double bad[] = {1, NAN};
    RT_CHECK(rt_stats_mann_whitney(a, 5, bad, 2, &r, &err) != 0 &&
             rt_test_contains(err.msg, "second"));
}

int main(void)
{
    test_summary();
    test_median_ci();
    test_mann_whitney();
    return RT_TEST_RESULT();
}
