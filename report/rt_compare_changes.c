/* rt_compare_changes: change points over a series of sample sets (history); see rt_compare.h. */
#define _POSIX_C_SOURCE 200809L
#include "rt_compare_changes.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_stats.h"

/* ------------------------------------------------------------------------------------------- */
/* Change points */

typedef struct segmenter {
    const double *const *sets;
    const int *counts;
    const rt_compare_opts *o;
    double *left, *right; /* scratch for pooled samples */
    rt_change_point *out;
    int max, found;
} segmenter;

static int pool(const segmenter *sg, int a, int b, double *buf)
{
    int n = 0;
    for (int k = a; k <= b; ++k) {
        memcpy(buf + n, sg->sets[k], (size_t)sg->counts[k] * sizeof *buf);
        n += sg->counts[k];
    }
    return n;
}

static int segment(segmenter *sg, int a, int b, rt_err *err)
{
    if (b <= a)
        return 0;
    const int splits = b - a;
    const double level = sg->o->alpha / splits; /* Bonferroni over the splits tried */
    int best = -1;
    double best_p = INFINITY, best_effect = 0, best_ratio = NAN, best_lm = NAN, best_rm = NAN;
    for (int k = a; k < b; ++k) {
        const int nl = pool(sg, a, k, sg->left), nr = pool(sg, k + 1, b, sg->right);
        double ml, mr;
        rt_stats_mw mw;
        if (rt_stats_median(sg->left, nl, &ml, err) != 0 ||
            rt_stats_median(sg->right, nr, &mr, err) != 0 ||
            rt_stats_mann_whitney(sg->left, nl, sg->right, nr, &mw, err) != 0)
            return -1;
        const double ratio = mr / ml;
        if (!(fabs(ratio - 1) > sg->o->threshold) || !(mw.p_value < level))
            continue;
        const double effect = fabs(log(ratio));
        if (mw.p_value < best_p || (mw.p_value == best_p && effect > best_effect)) {
            best = k;
            best_p = mw.p_value;
            best_effect = effect;
            best_ratio = ratio;
            best_lm = ml;
            best_rm = mr;
        }
    }
    if (best < 0)
        return 0;
    if (sg->found < sg->max)
        sg->out[sg->found] = (rt_change_point){.after = best,
                                               .before_median = best_lm,
                                               .after_median = best_rm,
                                               .ratio = best_ratio,
                                               .p_value = best_p};
    ++sg->found;
    /* The medians quoted for a change are of the segment it was found in; the recursion then
     * looks for further steps on either side. */
    if (segment(sg, a, best, err) != 0 || segment(sg, best + 1, b, err) != 0)
        return -1;
    return 0;
}

static int change_order(const void *pa, const void *pb)
{
    const rt_change_point *a = pa, *b = pb;
    return (a->after > b->after) - (a->after < b->after);
}

int rt_compare_change_points(const double *const *sets, const int *counts, int n,
                             const rt_compare_opts *o, rt_change_point *out, int max, int *found,
                             rt_err *err)
{
    if (!found || !sets || !counts || n < 1 || (max > 0 && !out))
        return rt_err_set(err, "rt_compare_change_points: bad arguments");
    *found = 0;
    if (rt_compare_opts_check(o, err) != 0)
        return -1;
    size_t total = 0;
    for (int k = 0; k < n; ++k) {
        if (counts[k] < 1 || !sets[k])
            return rt_err_set(err, "rt_compare_change_points: set %d has no samples", k);
        total += (size_t)counts[k];
    }
    segmenter sg = {.sets = sets, .counts = counts, .o = o, .out = out, .max = max};
    sg.left = malloc(total * sizeof *sg.left);
    sg.right = malloc(total * sizeof *sg.right);
    int rc = -1;
    if (!sg.left || !sg.right) {
        rt_err_set(err, "out of memory looking for change points");
        goto done;
    }
    if (segment(&sg, 0, n - 1, err) != 0)
        goto done;
    *found = sg.found < max ? sg.found : max;
    if (*found > 1)
        qsort(out, (size_t)*found, sizeof *out, change_order);
    rc = 0;
done:
    free(sg.left);
    free(sg.right);
    return rc;
}
