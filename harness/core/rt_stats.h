/* rt_stats: summary statistics of timing samples, the median's confidence interval (which the
 * stopping criteria of rt_criterion.h build on), and the rank test that `compare` uses to decide
 * whether two sets of samples differ.
 *
 * Timing samples are skewed (a floor set by the hardware, a long tail from interference), so the
 * centre is the median and its uncertainty a distribution-free confidence interval built from order
 * statistics: with n samples, the interval [x_(j), x_(n-j+1)] covers the true median with
 * probability 1 - 2 P(Binomial(n, 1/2) < j), whatever the distribution. Nothing here assumes
 * normality except the large-sample approximation of the Mann-Whitney test. */
#ifndef RT_STATS_H
#define RT_STATS_H

#include "rt_error.h"

typedef struct rt_stats_summary {
    int n;
    double min, max, mean, median;
    double stddev; /* sample standard deviation (n - 1 in the denominator); 0 when n == 1 */
} rt_stats_summary;

/* Summarises n >= 1 finite samples. Fails on n < 1, NULL samples, NaN or infinite samples, or when
 * the scratch copy cannot be allocated. */
int rt_stats_summarize(const double *samples, int n, rt_stats_summary *out, rt_err *err);

/* Median of n >= 1 finite samples (mean of the two middle ones when n is even). */
int rt_stats_median(const double *samples, int n, double *median, rt_err *err);

/* Distribution-free confidence interval of the median at `confidence` (0 < confidence < 1, e.g.
 * 0.95). lo/hi are order statistics of the samples; *rel_halfwidth = (hi - lo) / (2 * median).
 * With too few samples for any interval to reach the confidence (fewer than 6 at 0.95), lo/hi are
 * the extreme samples and *rel_halfwidth is INFINITY: not an error, the caller should take more
 * samples. *achieved (may be NULL) receives the exact coverage of the chosen interval. */
/* The fewest samples from which the median's distribution-free interval at `confidence` exists
 * (6 at 0.95, 8 at 0.99): with fewer, even the widest interval (smallest to largest sample)
 * covers the median with less than that probability, and rt_stats_median_ci gives an infinite
 * relative half-width. 0 for a confidence outside (0, 1). */
int rt_stats_median_ci_min_samples(double confidence);
int rt_stats_median_ci(const double *samples, int n, double confidence, double *lo, double *hi,
                       double *rel_halfwidth, double *achieved, rt_err *err);

/* Result of a two-sided Mann-Whitney U test of "a and b come from the same distribution". */
typedef struct rt_stats_mw {
    double u_a;     /* U statistic of a: pairs (x in a, y in b) with x > y, ties counting 1/2 */
    double u_b;     /* na * nb - u_a */
    double z;       /* normal score (continuity- and tie-corrected); 0 when exact */
    double p_value; /* two-sided */
    int exact;      /* 1: p from the exact null distribution (small samples, no ties) */
    double prob_a_greater; /* u_a / (na * nb): common-language effect size */
} rt_stats_mw;

/* Two-sided Mann-Whitney U test. Exact when there are no ties and na + nb <= 40; otherwise the
 * normal approximation with tie correction and continuity correction. All samples identical gives
 * p = 1. Fails on na < 1, nb < 1, NULL or non-finite samples, or allocation failure. */
int rt_stats_mann_whitney(const double *a, int na, const double *b, int nb, rt_stats_mw *out,
                          rt_err *err);

#endif
