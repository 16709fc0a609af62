/* rt_compare_types: the regression gate's options, verdicts and reports (types shared by
 * the comparison, its writers and its change points), and the options' defaults and checks. */
#ifndef RT_COMPARE_TYPES_H
#define RT_COMPARE_TYPES_H

#include <stddef.h>
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

typedef enum rt_verdict {
    RT_VERDICT_SAME = 0,
    RT_VERDICT_FASTER = 1,
    RT_VERDICT_SLOWER = 2,
    RT_VERDICT_UNSURE = 3,
    RT_VERDICT_NOT_TIMED = 4 /* one side has no samples (not ok, or nothing recorded) */
} rt_verdict;

const char *rt_verdict_name(rt_verdict v);

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

/* What makes two stores' points the same point: they are compared, and a history follows it. */
typedef struct rt_point_identity {
    char experiment[64];
    char kernel[96];
    char matrix[64];
    char params[1024];
    char problem[512];
    int ranks;
    char device_class[128];
} rt_point_identity;

/* One point identity and what happened to it. */
typedef struct rt_compare_entry {
    rt_compare_side side;
    rt_point_identity key;
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
    rt_point_identity key;
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

#endif
