#include "rt_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *pa, const void *pb)
{
    const double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static int check_samples(const double *x, int n, const char *what, rt_err *err)
{
    if (n < 1)
        return rt_err_set(err, "%s: need at least one sample, got %d", what, n);
    if (!x)
        return rt_err_set(err, "%s: samples pointer is NULL with n = %d", what, n);
    for (int i = 0; i < n; ++i)
        if (!isfinite(x[i]))
            return rt_err_set(err, "%s: sample %d of %d is not a finite number (%g)", what, i, n,
                              x[i]);
    return 0;
}

/* Sorted copy; the caller frees it. */
static double *sorted_copy(const double *x, int n, const char *what, rt_err *err)
{
    double *s = malloc((size_t)n * sizeof *s);
    if (!s) {
        rt_err_set(err, "%s: out of memory copying %d samples", what, n);
        return NULL;
    }
    memcpy(s, x, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return s;
}

static double median_of_sorted(const double *s, int n)
{
    return (n % 2) ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

int rt_stats_summarize(const double *samples, int n, rt_stats_summary *out, rt_err *err)
{
    if (check_samples(samples, n, "statistics", err) != 0)
        return -1;
    double *s = sorted_copy(samples, n, "statistics", err);
    if (!s)
        return -1;
    memset(out, 0, sizeof *out);
    out->n = n;
    out->min = s[0];
    out->max = s[n - 1];
    out->median = median_of_sorted(s, n);
    /* Two passes: the mean first, then squared deviations, which avoids the cancellation of the
     * sum-of-squares formula when the samples are large and close together (typical of timings). */
    double sum = 0.0;
    for (int i = 0; i < n; ++i)
        sum += s[i];
    out->mean = sum / n;
    double ss = 0.0;
    for (int i = 0; i < n; ++i)
        ss += (s[i] - out->mean) * (s[i] - out->mean);
    out->stddev = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
    free(s);
    return 0;
}

int rt_stats_median(const double *samples, int n, double *median, rt_err *err)
{
    if (check_samples(samples, n, "median", err) != 0)
        return -1;
    double *s = sorted_copy(samples, n, "median", err);
    if (!s)
        return -1;
    *median = median_of_sorted(s, n);
    free(s);
    return 0;
}

/* Largest k such that P(Binomial(n, 1/2) <= k) <= tail, or -1 when even k = 0 exceeds it.
 * *cdf_at_k receives that probability. The pmf is carried in logs (log pmf(0) = -n log 2) so that
 * large n does not underflow into a wrong answer. */
static int binomial_half_quantile(int n, double tail, double *cdf_at_k)
{
    double log_pmf = -n * log(2.0);
    double cdf = 0.0;
    int best = -1;
    *cdf_at_k = 0.0;
    for (int k = 0; k <= n / 2; ++k) {
        cdf += exp(log_pmf);
        if (cdf > tail)
            break;
        best = k;
        *cdf_at_k = cdf;
        log_pmf += log((double)(n - k) / (double)(k + 1));
    }
    return best;
}

static int ci_sorted(const double *s, int n, double confidence, double *lo, double *hi, double *rel,
                     double *achieved)
{
    double cdf = 0.0;
    const int k = binomial_half_quantile(n, 0.5 * (1.0 - confidence), &cdf);
    const double med = median_of_sorted(s, n);
    if (k < 0) {
        *lo = s[0];
        *hi = s[n - 1];
        *rel = INFINITY;
        if (achieved)
            *achieved = n > 0 ? 1.0 - 2.0 * pow(0.5, n) : 0.0;
        return 0;
    }
    /* Order statistics x_(k+1) and x_(n-k), 1-based. */
    *lo = s[k];
    *hi = s[n - 1 - k];
    if (achieved)
        *achieved = 1.0 - 2.0 * cdf;
    const double width = *hi - *lo;
    if (width == 0.0)
        *rel = 0.0;
    else if (med == 0.0)
        *rel = INFINITY;
    else
        *rel = width / (2.0 * fabs(med));
    return 0;
}

int rt_stats_median_ci_min_samples(double confidence)
{
    if (!(confidence > 0.0 && confidence < 1.0))
        return 0;
    double cdf = 0.0;
    for (int n = 1; n <= 4096; ++n)
        if (binomial_half_quantile(n, 0.5 * (1.0 - confidence), &cdf) >= 0)
            return n;
    return 0;
}

int rt_stats_median_ci(const double *samples, int n, double confidence, double *lo, double *hi,
                       double *rel_halfwidth, double *achieved, rt_err *err)
{
    if (!(confidence > 0.0 && confidence < 1.0))
        return rt_err_set(err,
                          "median confidence interval: confidence must lie strictly between "
                          "0 and 1 (e.g. 0.95), got %g",
                          confidence);
    if (check_samples(samples, n, "median confidence interval", err) != 0)
        return -1;
    double *s = sorted_copy(samples, n, "median confidence interval", err);
    if (!s)
        return -1;
    ci_sorted(s, n, confidence, lo, hi, rel_halfwidth, achieved);
    free(s);
    return 0;
}

typedef struct tagged {
    double v;
    int from_a;
} tagged;

static int cmp_tagged(const void *pa, const void *pb)
{
    const double a = ((const tagged *)pa)->v, b = ((const tagged *)pb)->v;
    return (a > b) - (a < b);
}

/* P(U <= u) under the null hypothesis without ties, from the coefficients of the Gaussian binomial
 * [m+n choose m]_q, whose coefficient of q^k counts the orderings with U = k. Built one factor at a
 * time: multiply by (1 - q^(n+i)), then divide by (1 - q^i); every intermediate is a polynomial
 * with integer coefficients, exact in doubles for m + n <= 40 (C(40,20) < 2^53). */
static int exact_u_cdf(int m, int n, double u, double *p, rt_err *err)
{
    const int deg = m * n;
    const int cap = deg + m + 1;
    double *c = calloc((size_t)cap + 1, sizeof *c);
    if (!c)
        return rt_err_set(err, "Mann-Whitney: out of memory for the exact distribution");
    c[0] = 1.0;
    int cur = 0; /* current degree */
    for (int i = 1; i <= m; ++i) {
        const int sh = n + i;
        for (int k = cur + sh; k >= sh; --k)
            c[k] -= c[k - sh];
        cur += sh;
        for (int k = i; k <= cur; ++k)
            c[k] += c[k - i];
        cur -= i;
    }
    double total = 0.0, below = 0.0;
    for (int k = 0; k <= deg; ++k) {
        total += c[k];
        if (k <= u)
            below += c[k];
    }
    free(c);
    *p = below / total;
    return 0;
}

int rt_stats_mann_whitney(const double *a, int na, const double *b, int nb, rt_stats_mw *out,
                          rt_err *err)
{
    if (check_samples(a, na, "Mann-Whitney (first sample set)", err) != 0 ||
        check_samples(b, nb, "Mann-Whitney (second sample set)", err) != 0)
        return -1;
    const int n = na + nb;
    tagged *all = malloc((size_t)n * sizeof *all);
    if (!all)
        return rt_err_set(err, "Mann-Whitney: out of memory for %d samples", n);
    for (int i = 0; i < na; ++i)
        all[i] = (tagged){a[i], 1};
    for (int i = 0; i < nb; ++i)
        all[na + i] = (tagged){b[i], 0};
    qsort(all, (size_t)n, sizeof *all, cmp_tagged);

    /* Average ranks over runs of equal values; the tie term feeds the variance correction. */
    double rank_sum_a = 0.0, tie_term = 0.0;
    int i = 0;
    while (i < n) {
        int j = i + 1;
        while (j < n && all[j].v == all[i].v)
            ++j;
        const double avg_rank = 0.5 * ((double)(i + 1) + (double)j);
        for (int k = i; k < j; ++k)
            if (all[k].from_a)
                rank_sum_a += avg_rank;
        const double t = (double)(j - i);
        tie_term += t * t * t - t;
        i = j;
    }
    free(all);

    memset(out, 0, sizeof *out);
    const double mn = (double)na * (double)nb;
    out->u_a = rank_sum_a - 0.5 * (double)na * (double)(na + 1);
    out->u_b = mn - out->u_a;
    out->prob_a_greater = out->u_a / mn;

    if (tie_term == 0.0 && n <= 40) {
        double p_low = 1.0;
        const double u_small = out->u_a < out->u_b ? out->u_a : out->u_b;
        if (exact_u_cdf(na, nb, u_small, &p_low, err) != 0)
            return -1;
        out->exact = 1;
        out->p_value = fmin(1.0, 2.0 * p_low);
        return 0;
    }
    const double mu = 0.5 * mn;
    const double var = mn / 12.0 * (((double)n + 1.0) - tie_term / ((double)n * ((double)n - 1.0)));
    if (!(var > 0.0)) { /* every sample equal: no evidence of any difference */
        out->p_value = 1.0;
        return 0;
    }
    const double dev = out->u_a - mu;
    const double corrected = fmax(fabs(dev) - 0.5, 0.0);
    out->z = (dev < 0 ? -corrected : corrected) / sqrt(var);
    out->p_value = fmin(1.0, erfc(fabs(out->z) / sqrt(2.0)));
    return 0;
}
