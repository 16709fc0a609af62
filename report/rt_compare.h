/* rt_compare: regression verdicts between result stores (docs/guides/regression.md).
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

#include "rt_compare_changes.h"
#include "rt_compare_device.h"
#include "rt_compare_types.h"
#include "rt_compare_write.h"

struct sqlite3;

/* The timing decision for two sample sets, as described at the top. n_base, n_new >= 1. ratio,
 * ratio_lo/hi (the confidence interval of the ratio at 1 - alpha, INFINITY-wide with too few
 * samples) and p are written when the pointers are not NULL. */
int rt_compare_samples(const double *base, int n_base, const double *fresh, int n_new,
                       const rt_compare_opts *o, rt_verdict *verdict, double *ratio,
                       double *ratio_lo, double *ratio_hi, double *p, rt_err *err);

/* Compares two open stores (read-only handles; each is checked with rt_store_check). Labels
 * (file names) are only used in messages. Free the report with rt_compare_report_free, also
 * after an error. */
int rt_compare_stores(struct sqlite3 *base, const char *base_label, struct sqlite3 *fresh,
                      const char *new_label, const rt_compare_opts *o, rt_compare_report *r,
                      rt_err *err);

void rt_compare_report_free(rt_compare_report *r);

/* Change points over n ordered stores (n >= 2). Binary segmentation: in a segment of the point's
 * stores, every split into a left and a right part is tested (U test on the pooled samples of
 * each side, ratio of their medians); the split with the smallest p is a change point when
 * p < alpha / (number of splits tried) (Bonferroni) and the ratio is beyond the threshold; the
 * search then recurses into both parts. */
int rt_compare_history(struct sqlite3 *const *stores, const char *const *labels, int n,
                       const rt_compare_opts *o, rt_history_report *h, rt_err *err);

void rt_history_report_free(rt_history_report *h);

#endif
