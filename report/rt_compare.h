/* rt_compare: regression verdicts between result stores (docs/regression.md).
 *
 * Two stores (a baseline and a new run): points are matched by their identity — experiment,
 * kernel, matrix, params, problem, ranks and device class (rt_compare_device_class) — and every
 * matched pair gets
 *   - a timing verdict from the raw samples: the Mann-Whitney U test (rt_stats_mann_whitney) and
 *     the ratio r = median(new) / median(base) of the times:
 *       SLOWER  p < alpha and r > 1 + threshold
 *       FASTER  p < alpha and r < 1 - threshold
 *       SAME    |r - 1| <= threshold, or the confidence interval of r lies inside
 *               [1 - threshold, 1 + threshold]
 *       UNSURE  otherwise (a difference beyond the threshold that the samples cannot confirm),
 *               and in place of SLOWER or FASTER when either side is noisy (missed its
 *               confidence target: metric "noisy"). UNSURE past 1 + threshold fails the gate
 *               unless allow_unsure, so a slowdown the samples cannot confirm is never a pass;
 *   - an exact comparison of its deterministic metrics (metrics.deterministic = 1);
 *   - a status check: a point that was ok and is not any more, or that newly became wrong, error,
 *     timeout or above_roofline, is a failure.
 * Points present in only one store are listed, never failures; but when no point matches at all
 * the comparison fails (unless allow_no_match): a gate that compared nothing proves nothing.
 *
 * History: n >= 2 ordered stores; for each point, change points of its time found by binary
 * segmentation on the pooled samples with the same U test and threshold (rt_compare_history).
 *
 * Library code prints only through the writers below, to the FILE the caller gives. */
#ifndef RT_COMPARE_H
#define RT_COMPARE_H

#include <stdint.h>
#include <stdio.h>

#include "rt_error.h"

struct sqlite3;

#define RT_COMPARE_DEFAULT_THRESHOLD 0.05
#define RT_COMPARE_DEFAULT_ALPHA     0.01

typedef struct rt_compare_opts {
    double threshold;          /* minimum relative effect, e.g. 0.05 = 5% */
    double alpha;              /* significance level of the U test, e.g. 0.01 */
    int timings_informational; /* 1: SLOWER is reported but does not fail (CPU-only runners) */
    int ignore_device;         /* 1: match points whatever their device class */
    int allow_no_match;        /* 1: comparing nothing passes (otherwise it fails) */
    int allow_unsure;          /* 1: UNSURE past +threshold passes (otherwise it fails) */
    const char *experiment;    /* only this experiment (NULL: all) */
} rt_compare_opts;

/* Fills the defaults above (threshold 5%, alpha 0.01, gating timings, matching devices). */
void rt_compare_opts_init(rt_compare_opts *o);
/* Checks the options: 0 < threshold < 1, 0 < alpha < 1. */
int rt_compare_opts_check(const rt_compare_opts *o, rt_err *err);

/* The device class: the device name without what tells two units of one model apart, so that a
 * baseline taken on one H100 matches a run on another. Rules, applied to whitespace-separated
 * tokens (brackets and parentheses around a token are part of it):
 *   - dropped: UUID-like tokens (GPU-..., MIG-..., 8-4-4-4-12 hex), PCI bus ids
 *     (0000:3b:00.0, 3b:00.0), tokens of 8 or more hex digits that contain a digit, "#N", and
 *     "SN..."/"S/N..." serial tokens with whatever follows them inside the same bracket;
 *   - dropped: a trailing device index after the model: ":N", "[N]", "(N)" (up to 3 digits) or
 *     a bare number of 1 or 2 digits (a bare 3-digit number often ends a model name);
 *   - whitespace collapsed to single spaces, leading and trailing space removed.
 * "NVIDIA H100 80GB HBM3 (GPU-1a2b3c4d-...)" -> "NVIDIA H100 80GB HBM3". Never fails; an empty or
 * NULL name gives "". */
void rt_compare_device_class(const char *device, char *out, size_t len);

typedef enum rt_verdict {
    RT_VERDICT_SAME = 0,
    RT_VERDICT_FASTER = 1,
    RT_VERDICT_SLOWER = 2,
    RT_VERDICT_UNSURE = 3,
    RT_VERDICT_NOT_TIMED = 4 /* one side has no samples (not ok, or nothing recorded) */
} rt_verdict;

const char *rt_verdict_name(rt_verdict v);

/* The timing decision for two sample sets, as described at the top. n_base, n_new >= 1. ratio,
 * ratio_lo/hi (the confidence interval of the ratio at 1 - alpha, INFINITY-wide with too few
 * samples) and p are written when the pointers are not NULL. */
int rt_compare_samples(const double *base, int n_base, const double *fresh, int n_new,
                       const rt_compare_opts *o, rt_verdict *verdict, double *ratio,
                       double *ratio_lo, double *ratio_hi, double *p, rt_err *err);

typedef enum rt_compare_side {
    RT_COMPARE_BOTH = 0,
    RT_COMPARE_BASE_ONLY = 1,
    RT_COMPARE_NEW_ONLY = 2
} rt_compare_side;

typedef enum rt_status_change {
    RT_STATUS_UNCHANGED = 0,
    RT_STATUS_FAILED = 1, /* was ok and is not, or newly wrong/error/timeout/above_roofline */
    RT_STATUS_CHANGED = 2 /* changed without getting worse (e.g. wrong -> ok) */
} rt_status_change;

/* One point identity and what happened to it. */
typedef struct rt_compare_entry {
    rt_compare_side side;
    char experiment[64];
    char kernel[96];
    char matrix[64];
    char params[1024];
    char problem[512];
    int ranks;
    char device_class[128];
    int64_t base_id, new_id; /* points.id, 0 when absent */
    char base_status[24], new_status[24];
    int n_base, n_new;              /* samples */
    double base_median, new_median; /* seconds, from the samples; NAN when not timed */
    double ratio, ratio_lo, ratio_hi, p_value;
    rt_verdict verdict;
    rt_status_change status_change;
    int base_noisy, new_noisy; /* the side missed its confidence target (metric "noisy") */
    int n_metric_changes;      /* entries of rt_compare_report.metric_changes */
} rt_compare_entry;

typedef enum rt_metric_change_kind {
    RT_METRIC_VALUE = 0,       /* both readable, values differ */
    RT_METRIC_MISSING = 1,     /* in the baseline, absent from the new store */
    RT_METRIC_AVAILABILITY = 2 /* readable on one side only */
} rt_metric_change_kind;

typedef struct rt_compare_metric_change {
    int entry; /* index into rt_compare_report.entries */
    char name[64];
    rt_metric_change_kind kind;
    double base_value, new_value; /* NAN when not readable */
} rt_compare_metric_change;

typedef struct rt_compare_report {
    rt_compare_opts opts;
    int n_entries;
    rt_compare_entry *entries; /* matched and one-sided, sorted by identity */
    int n_metric_changes;
    rt_compare_metric_change *metric_changes;
    /* Tallies. */
    int n_matched, n_base_only, n_new_only;
    int n_same, n_faster, n_slower, n_unsure, n_not_timed;
    int n_status_failed, n_status_changed, n_points_metric_changed;
    int n_noisy;         /* matched points noisy on either side */
    int n_unsure_slower; /* UNSURE with the median ratio past 1 + threshold */
    int failed;          /* 1: the comparison gates (exit status 1) */
} rt_compare_report;

/* Compares two open stores (read-only handles; each is checked with rt_store_check). Labels
 * (file names) are only used in messages. Free the report with rt_compare_report_free, also
 * after an error. */
int rt_compare_stores(struct sqlite3 *base, const char *base_label, struct sqlite3 *fresh,
                      const char *new_label, const rt_compare_opts *o, rt_compare_report *r,
                      rt_err *err);
void rt_compare_report_free(rt_compare_report *r);

/* The summary as plain text (stdout of `rooftune compare`) and as Markdown. */
void rt_compare_write_text(FILE *f, const rt_compare_report *r, const char *base_label,
                           const char *new_label);
void rt_compare_write_markdown(FILE *f, const rt_compare_report *r, const char *base_label,
                               const char *new_label);

/* ------------------------------------------------------------------------------------------- */
/* History */

typedef struct rt_change_point {
    int entry;                          /* index into rt_history_report.points */
    int after;                          /* the change lies between stores `after` and `after + 1` */
    double before_median, after_median; /* pooled medians of the two segments, seconds */
    double ratio;                       /* after / before */
    double p_value;
} rt_change_point;

typedef struct rt_history_point {
    char experiment[64];
    char kernel[96];
    char matrix[64];
    char params[1024];
    char problem[512];
    int ranks;
    char device_class[128];
    int n_stores;    /* stores where the point was timed */
    double *medians; /* per store (n_total entries), NAN where the point is missing */
} rt_history_point;

typedef struct rt_history_report {
    rt_compare_opts opts;
    int n_stores;
    int n_points;
    rt_history_point *points; /* points timed in at least two stores, sorted by identity */
    int n_changes;
    rt_change_point *changes; /* by point, then store order */
    int n_slowdowns;          /* change points with ratio > 1 + threshold */
} rt_history_report;

/* Change points over n ordered stores (n >= 2). Binary segmentation: in a segment of the point's
 * stores, every split into a left and a right part is tested (U test on the pooled samples of
 * each side, ratio of their medians); the split with the smallest p is a change point when
 * p < alpha / (number of splits tried) (Bonferroni) and the ratio is beyond the threshold; the
 * search then recurses into both parts. */
int rt_compare_history(struct sqlite3 *const *stores, const char *const *labels, int n,
                       const rt_compare_opts *o, rt_history_report *h, rt_err *err);
void rt_history_report_free(rt_history_report *h);
void rt_history_write_text(FILE *f, const rt_history_report *h, const char *const *labels);
void rt_history_write_markdown(FILE *f, const rt_history_report *h, const char *const *labels);

/* Change points of one series of sample sets (sets[k] has counts[k] samples, k = 0..n-1), the
 * algorithm above; writes at most max change points (their `after` index, ratio, p and medians;
 * `entry` is left 0) and sets *found. Exposed for tests and for callers with their own data. */
int rt_compare_change_points(const double *const *sets, const int *counts, int n,
                             const rt_compare_opts *o, rt_change_point *out, int max, int *found,
                             rt_err *err);

#endif
