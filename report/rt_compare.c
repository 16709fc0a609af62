/* rt_compare: regression verdicts between result stores (points read through the store API,
 * matched, timed and metric verdicts, history grouping); see rt_compare.h and
 * docs/guides/regression.md for the rules. The device class rules are in rt_compare_device.c, the
 * change-point search in rt_compare_changes.c, the text and Markdown writers in rt_compare_write.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "rt_compare.h"
#include "rt_metrics.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rt_stats.h"
#include "rt_store.h"
#include "rt_store_read.h"

/* The status words the store writes (rt_point_status_name), spelled out so that reading a store
 * does not depend on the writer's code. */
static const char status_ok[] = "ok";
static const char status_above[] = "above_roofline";
static const char *const bad_statuses[] = {"wrong", "error", "timeout", "above_roofline"};
/* A pruned point was never run (search.prune: bound): it has no time to compare and its status
 * says nothing about the kernel, so a point that becomes pruned is a change, never a failure. */
static const char status_pruned[] = "pruned";

/* ------------------------------------------------------------------------------------------- */
/* The timing verdict */

static int median_ci(const double *x, int n, double confidence, double *median, double *lo,
                     double *hi, rt_err *err)
{
    if (rt_stats_median(x, n, median, err) != 0)
        return -1;
    double rel = INFINITY;
    if (rt_stats_median_ci(x, n, confidence, lo, hi, &rel, NULL, err) != 0)
        return -1;
    if (!isfinite(rel)) { /* too few samples for an interval at this confidence */
        *lo = 0;
        *hi = INFINITY;
    }
    return 0;
}

int rt_compare_samples(const double *base, int n_base, const double *fresh, int n_new,
                       const rt_compare_opts *o, rt_verdict *verdict, double *ratio,
                       double *ratio_lo, double *ratio_hi, double *p, rt_err *err)
{
    if (!o || !verdict)
        return rt_err_set(err, "rt_compare_samples: options and verdict are required");
    if (n_base < 1 || n_new < 1 || !base || !fresh)
        return rt_err_set(err, "rt_compare_samples: both sides need samples (%d and %d given)",
                          n_base, n_new);
    double mb, lb, hb, mn, ln, hn;
    if (median_ci(base, n_base, 1 - o->alpha, &mb, &lb, &hb, err) != 0 ||
        median_ci(fresh, n_new, 1 - o->alpha, &mn, &ln, &hn, err) != 0)
        return -1;
    if (!(mb > 0) || !(mn > 0))
        return rt_err_set(err,
                          "rt_compare_samples: medians must be positive times (got %g and "
                          "%g)",
                          mb, mn);
    rt_stats_mw mw;
    if (rt_stats_mann_whitney(base, n_base, fresh, n_new, &mw, err) != 0)
        return -1;
    const double r = mn / mb;
    /* Each median interval covers at 1 - alpha, so the ratio's covers at >= 1 - 2 alpha. */
    const double r_lo = hb > 0 && isfinite(hb) ? ln / hb : 0;
    const double r_hi = lb > 0 && isfinite(hn) ? hn / lb : INFINITY;
    const double t = o->threshold;
    rt_verdict v;
    if (mw.p_value < o->alpha && r > 1 + t)
        v = RT_VERDICT_SLOWER;
    else if (mw.p_value < o->alpha && r < 1 - t)
        v = RT_VERDICT_FASTER;
    else if (fabs(r - 1) <= t || (r_lo >= 1 - t && r_hi <= 1 + t))
        v = RT_VERDICT_SAME;
    else
        v = RT_VERDICT_UNSURE;
    *verdict = v;
    if (ratio)
        *ratio = r;
    if (ratio_lo)
        *ratio_lo = r_lo;
    if (ratio_hi)
        *ratio_hi = r_hi;
    if (p)
        *p = mw.p_value;
    return 0;
}

/* ------------------------------------------------------------------------------------------- */
/* Reading a store */

typedef struct stored_point {
    int64_t id;
    int store; /* history: which store */
    rt_point_identity key;
    char status[24];
} stored_point;

typedef struct point_list {
    int n, cap;
    stored_point *items;
} point_list;

static int identity_cmp(const stored_point *pa, const stored_point *pb)
{
    const rt_point_identity *a = &pa->key, *b = &pb->key;
    int c;
    if ((c = strcmp(a->experiment, b->experiment)) || (c = strcmp(a->kernel, b->kernel)) ||
        (c = strcmp(a->matrix, b->matrix)) || (c = strcmp(a->params, b->params)) ||
        (c = strcmp(a->problem, b->problem)))
        return c;
    if (a->ranks != b->ranks)
        return a->ranks < b->ranks ? -1 : 1;
    return strcmp(a->device_class, b->device_class);
}

/* Identity, then store, then the newest (largest id) first. */
static int point_order(const void *pa, const void *pb)
{
    const stored_point *a = pa, *b = pb;
    const int c = identity_cmp(a, b);
    if (c)
        return c;
    if (a->store != b->store)
        return a->store < b->store ? -1 : 1;
    return (a->id < b->id) - (a->id > b->id);
}

static int check_store(struct sqlite3 *db, const char *label, rt_err *err)
{
    if (!db)
        return rt_err_set(err, "%s: no store is open", label);
    if (rt_store_check(db, err) != 0)
        return rt_err_prefix(err, "%s", label);
    return 0;
}

/* Where rt_store_each_point appends: the list, its store index and how to class devices. */
typedef struct point_sink {
    point_list *list;
    int store;
    const rt_compare_opts *o;
} point_sink;

static int append_point(void *ctx, const rt_store_point *sp, rt_err *err)
{
    point_sink *sink = ctx;
    point_list *list = sink->list;
    if (list->n == list->cap) {
        const int cap = list->cap ? 2 * list->cap : 256;
        void *grown = realloc(list->items, (size_t)cap * sizeof *list->items);
        if (!grown)
            return rt_err_set(err, "out of memory reading its points");
        list->items = grown;
        list->cap = cap;
    }
    stored_point *p = &list->items[list->n++];
    memset(p, 0, sizeof *p);
    p->id = sp->id;
    p->store = sink->store;
    rt_point_identity *k = &p->key;
    snprintf(k->experiment, sizeof k->experiment, "%s", sp->experiment);
    snprintf(k->kernel, sizeof k->kernel, "%s", sp->kernel);
    snprintf(k->matrix, sizeof k->matrix, "%s", sp->matrix);
    snprintf(k->params, sizeof k->params, "%s", sp->params);
    snprintf(k->problem, sizeof k->problem, "%s", sp->problem);
    k->ranks = sp->ranks;
    if (sink->o->ignore_device)
        snprintf(k->device_class, sizeof k->device_class, "*");
    else
        rt_compare_device_class(sp->device, k->device_class, sizeof k->device_class);
    snprintf(p->status, sizeof p->status, "%s", sp->status);
    return 0;
}

/* Appends every point of a store (optionally one experiment) to list, tagged with store. */
static int load_points(struct sqlite3 *db, const char *label, int store, const rt_compare_opts *o,
                       point_list *list, rt_err *err)
{
    point_sink sink = {list, store, o};
    if (rt_store_each_point(db, o->experiment, append_point, &sink, err) != 0)
        return rt_err_prefix(err, "%s", label);
    return 0;
}

/* Sorts and keeps the newest record of each (identity, store): a store that measured a point in
 * several runs is represented by its latest measurement. */
static void sort_and_dedupe(point_list *list)
{
    if (list->n > 1)
        qsort(list->items, (size_t)list->n, sizeof *list->items, point_order);
    int kept = 0;
    for (int i = 0; i < list->n; ++i) {
        if (kept > 0 && list->items[kept - 1].store == list->items[i].store &&
            identity_cmp(&list->items[kept - 1], &list->items[i]) == 0)
            continue;
        list->items[kept++] = list->items[i];
    }
    list->n = kept;
}

typedef struct sample_buf {
    int n, cap;
    double *x;
} sample_buf;

static int load_samples(struct sqlite3 *db, const char *label, int64_t id, sample_buf *s,
                        rt_err *err)
{
    if (rt_store_samples(db, id, &s->x, &s->n, &s->cap, err) != 0)
        return rt_err_prefix(err, "%s", label);
    /* Keep only finite times: anything else can never be compared. */
    int kept = 0;
    for (int k = 0; k < s->n; ++k)
        if (isfinite(s->x[k]) && s->x[k] > 0)
            s->x[kept++] = s->x[k];
    s->n = kept;
    return 0;
}

static int timed_status(const char *status)
{
    return strcmp(status, status_ok) == 0 || strcmp(status, status_above) == 0;
}

static int bad_status(const char *status)
{
    for (size_t k = 0; k < sizeof bad_statuses / sizeof bad_statuses[0]; ++k)
        if (strcmp(status, bad_statuses[k]) == 0)
            return 1;
    return 0;
}

/* ------------------------------------------------------------------------------------------- */
/* Metrics */

typedef rt_store_metric metric_row;

typedef struct metric_list {
    int n, cap;
    metric_row *items;
} metric_list;

static int load_metrics(struct sqlite3 *db, const char *label, int64_t id, metric_list *m,
                        rt_err *err)
{
    if (rt_store_metrics(db, id, NULL, &m->items, &m->n, &m->cap, err) != 0)
        return rt_err_prefix(err, "%s", label);
    return 0;
}

/* 1 when the list holds the metric, readable and nonzero. */
static int metric_flag(const metric_list *m, const char *name)
{
    for (int i = 0; i < m->n; ++i)
        if (strcmp(m->items[i].name, name) == 0)
            return m->items[i].available && m->items[i].has_value && m->items[i].value != 0;
    return 0;
}

static int add_metric_change(rt_compare_report *r, int entry, const char *name,
                             rt_metric_change_kind kind, double base, double fresh, rt_err *err)
{
    void *grown =
        realloc(r->metric_changes, (size_t)(r->n_metric_changes + 1) * sizeof *r->metric_changes);
    if (!grown)
        return rt_err_set(err, "out of memory recording metric changes");
    r->metric_changes = grown;
    rt_compare_metric_change *c = &r->metric_changes[r->n_metric_changes++];
    memset(c, 0, sizeof *c);
    c->entry = entry;
    snprintf(c->name, sizeof c->name, "%s", name);
    c->kind = kind;
    c->base_value = base;
    c->new_value = fresh;
    return 0;
}

/* Deterministic metrics compared exactly: a metric the baseline (or the new store) calls
 * deterministic must have the same value, bit for bit, on both sides. */
static int compare_metrics(const metric_list *b, const metric_list *n, rt_compare_report *r,
                           int entry, int *changes, rt_err *err)
{
    *changes = 0;
    int i = 0, j = 0;
    while (i < b->n || j < n->n) {
        const int c = i >= b->n ? 1 : j >= n->n ? -1 : strcmp(b->items[i].name, n->items[j].name);
        if (c < 0) { /* only in the baseline */
            const metric_row *m = &b->items[i++];
            if (m->deterministic) {
                if (add_metric_change(r, entry, m->name, RT_METRIC_MISSING, m->value, NAN, err))
                    return -1;
                ++*changes;
            }
            continue;
        }
        if (c > 0) { /* a new metric: not a regression */
            ++j;
            continue;
        }
        const metric_row *mb = &b->items[i++], *mn = &n->items[j++];
        if (!mb->deterministic && !mn->deterministic)
            continue;
        const int avail_b = mb->available && mb->has_value,
                  avail_n = mn->available && mn->has_value;
        if (avail_b != avail_n) {
            if (add_metric_change(r, entry, mb->name, RT_METRIC_AVAILABILITY, mb->value, mn->value,
                                  err))
                return -1;
            ++*changes;
        } else if (avail_b && !(mb->value == mn->value)) {
            if (add_metric_change(r, entry, mb->name, RT_METRIC_VALUE, mb->value, mn->value, err))
                return -1;
            ++*changes;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------- */
/* Two stores */

static int add_entry(rt_compare_report *r, rt_compare_entry **out, rt_err *err)
{
    void *grown = realloc(r->entries, (size_t)(r->n_entries + 1) * sizeof *r->entries);
    if (!grown)
        return rt_err_set(err, "out of memory building the comparison");
    r->entries = grown;
    *out = &r->entries[r->n_entries++];
    memset(*out, 0, sizeof **out);
    (*out)->base_median = (*out)->new_median = NAN;
    (*out)->ratio = (*out)->ratio_lo = (*out)->ratio_hi = (*out)->p_value = NAN;
    (*out)->verdict = RT_VERDICT_NOT_TIMED;
    return 0;
}

static int compare_pair(struct sqlite3 *base, const char *base_label, struct sqlite3 *fresh,
                        const char *new_label, const stored_point *pb, const stored_point *pn,
                        rt_compare_report *r, sample_buf *sb, sample_buf *sn, metric_list *mb,
                        metric_list *mn, rt_err *err)
{
    rt_compare_entry *e = NULL; /* set by add_entry; = NULL quiets -O3 -Wmaybe-uninitialized */
    if (add_entry(r, &e, err) != 0)
        return -1;
    const int index = r->n_entries - 1;
    e->key = pb->key;
    e->side = RT_COMPARE_BOTH;
    e->base_id = pb->id;
    e->new_id = pn->id;
    snprintf(e->base_status, sizeof e->base_status, "%s", pb->status);
    snprintf(e->new_status, sizeof e->new_status, "%s", pn->status);
    ++r->n_matched;

    if (strcmp(pb->status, pn->status) != 0) {
        const int worse =
            (strcmp(pb->status, status_ok) == 0 && strcmp(pn->status, status_pruned) != 0) ||
            bad_status(pn->status);
        e->status_change = worse ? RT_STATUS_FAILED : RT_STATUS_CHANGED;
        ++*(worse ? &r->n_status_failed : &r->n_status_changed);
    }

    /* A point recorded as timed with no usable time is a damaged store, not "not timed". */
    if (timed_status(pb->status) && rt_store_check_timed_point(base, pb->id, err) != 0)
        return rt_err_prefix(err, "%s", base_label);
    if (timed_status(pn->status) && rt_store_check_timed_point(fresh, pn->id, err) != 0)
        return rt_err_prefix(err, "%s", new_label);
    if (load_samples(base, base_label, pb->id, sb, err) != 0 ||
        load_samples(fresh, new_label, pn->id, sn, err) != 0)
        return -1;
    e->n_base = sb->n;
    e->n_new = sn->n;
    if (timed_status(pb->status) && timed_status(pn->status) && sb->n > 0 && sn->n > 0) {
        if (rt_compare_samples(sb->x, sb->n, sn->x, sn->n, &r->opts, &e->verdict, &e->ratio,
                               &e->ratio_lo, &e->ratio_hi, &e->p_value, err) != 0)
            return rt_err_prefix(err, "%s %s", pb->key.kernel, pb->key.matrix);
        rt_stats_median(sb->x, sb->n, &e->base_median, NULL);
        rt_stats_median(sn->x, sn->n, &e->new_median, NULL);
    } else {
        e->verdict = RT_VERDICT_NOT_TIMED;
    }

    if (load_metrics(base, base_label, pb->id, mb, err) != 0 ||
        load_metrics(fresh, new_label, pn->id, mn, err) != 0)
        return -1;
    /* A side that missed its confidence target cannot support a verdict of change, however the
     * rank test came out: its samples are not known to describe the kernel's time. */
    e->base_noisy = metric_flag(mb, RT_METRIC_NOISY);
    e->new_noisy = metric_flag(mn, RT_METRIC_NOISY);
    if ((e->base_noisy || e->new_noisy) &&
        (e->verdict == RT_VERDICT_SLOWER || e->verdict == RT_VERDICT_FASTER))
        e->verdict = RT_VERDICT_UNSURE;
    r->n_noisy += e->base_noisy || e->new_noisy;
    if (e->verdict == RT_VERDICT_UNSURE && e->ratio > 1 + r->opts.threshold)
        ++r->n_unsure_slower;
    switch (e->verdict) {
    case RT_VERDICT_SAME: ++r->n_same; break;
    case RT_VERDICT_FASTER: ++r->n_faster; break;
    case RT_VERDICT_SLOWER: ++r->n_slower; break;
    case RT_VERDICT_UNSURE: ++r->n_unsure; break;
    case RT_VERDICT_NOT_TIMED: ++r->n_not_timed; break;
    }

    int changes = 0;
    if (compare_metrics(mb, mn, r, index, &changes, err) != 0)
        return -1;
    r->entries[index].n_metric_changes = changes;
    r->n_points_metric_changed += changes > 0;
    return 0;
}

static int add_one_sided(rt_compare_report *r, const stored_point *p, rt_compare_side side,
                         rt_err *err)
{
    rt_compare_entry *e = NULL; /* set by add_entry; = NULL quiets -O3 -Wmaybe-uninitialized */
    if (add_entry(r, &e, err) != 0)
        return -1;
    e->key = p->key;
    e->side = side;
    if (side == RT_COMPARE_BASE_ONLY) {
        e->base_id = p->id;
        snprintf(e->base_status, sizeof e->base_status, "%s", p->status);
        ++r->n_base_only;
    } else {
        e->new_id = p->id;
        snprintf(e->new_status, sizeof e->new_status, "%s", p->status);
        ++r->n_new_only;
    }
    return 0;
}

int rt_compare_stores(struct sqlite3 *base, const char *base_label, struct sqlite3 *fresh,
                      const char *new_label, const rt_compare_opts *o, rt_compare_report *r,
                      rt_err *err)
{
    if (!r)
        return rt_err_set(err, "rt_compare_stores: no report to fill");
    memset(r, 0, sizeof *r);
    if (rt_compare_opts_check(o, err) != 0)
        return -1;
    r->opts = *o;
    r->opts.experiment = NULL; /* the caller's string may not outlive the report */
    base_label = base_label ? base_label : "baseline";
    new_label = new_label ? new_label : "new";
    if (check_store(base, base_label, err) != 0 || check_store(fresh, new_label, err) != 0)
        return -1;

    point_list lb = {0}, ln = {0};
    sample_buf sb = {0}, sn = {0};
    metric_list mb = {0}, mn = {0};
    int rc = -1;
    if (load_points(base, base_label, 0, o, &lb, err) != 0 ||
        load_points(fresh, new_label, 1, o, &ln, err) != 0)
        goto done;
    if (o->experiment && lb.n == 0 && ln.n == 0) {
        rt_err_set(err, "neither %s nor %s holds points of experiment '%s'", base_label, new_label,
                   o->experiment);
        goto done;
    }
    sort_and_dedupe(&lb);
    sort_and_dedupe(&ln);
    int i = 0, j = 0;
    while (i < lb.n || j < ln.n) {
        const int c = i >= lb.n ? 1 : j >= ln.n ? -1 : identity_cmp(&lb.items[i], &ln.items[j]);
        if (c < 0) {
            if (add_one_sided(r, &lb.items[i++], RT_COMPARE_BASE_ONLY, err) != 0)
                goto done;
        } else if (c > 0) {
            if (add_one_sided(r, &ln.items[j++], RT_COMPARE_NEW_ONLY, err) != 0)
                goto done;
        } else {
            if (compare_pair(base, base_label, fresh, new_label, &lb.items[i], &ln.items[j], r, &sb,
                             &sn, &mb, &mn, err) != 0)
                goto done;
            ++i;
            ++j;
        }
    }
    /* A gate that compared nothing, or whose only doubt is a change past the threshold, has not
     * shown that nothing got slower: it fails unless the user said it may. */
    r->failed = r->n_status_failed > 0 || r->n_points_metric_changed > 0 ||
                (!o->timings_informational && r->n_slower > 0) ||
                (!o->timings_informational && !o->allow_unsure && r->n_unsure_slower > 0) ||
                (!o->allow_no_match && r->n_matched == 0);
    rc = 0;
done:
    free(lb.items);
    free(ln.items);
    free(sb.x);
    free(sn.x);
    free(mb.items);
    free(mn.items);
    return rc;
}

void rt_compare_report_free(rt_compare_report *r)
{
    if (!r)
        return;
    free(r->entries);
    free(r->metric_changes);
    memset(r, 0, sizeof *r);
}

/* ------------------------------------------------------------------------------------------- */
/* History over several stores */

/* The change points of one identity, whose records are group[0..n_group-1] (by store). */
static int history_group(struct sqlite3 *const *stores, const char *const *labels,
                         const stored_point *group, int n_group, rt_history_report *h, rt_err *err)
{
    sample_buf *bufs = calloc((size_t)n_group, sizeof *bufs);
    const double **sets = calloc((size_t)n_group, sizeof *sets);
    int *counts = calloc((size_t)n_group, sizeof *counts);
    int *which = calloc((size_t)n_group, sizeof *which); /* store index of each set */
    rt_change_point *cps = calloc((size_t)n_group, sizeof *cps);
    double *medians = malloc((size_t)h->n_stores * sizeof *medians);
    int rc = -1, n_sets = 0;
    if (!bufs || !sets || !counts || !which || !cps || !medians) {
        rt_err_set(err, "out of memory reading the history");
        goto done;
    }
    for (int s = 0; s < h->n_stores; ++s)
        medians[s] = NAN;
    for (int g = 0; g < n_group; ++g) {
        const stored_point *p = &group[g];
        if (!timed_status(p->status))
            continue;
        if (rt_store_check_timed_point(stores[p->store], p->id, err) != 0) {
            rt_err_prefix(err, "%s", labels[p->store]);
            goto done;
        }
        if (load_samples(stores[p->store], labels[p->store], p->id, &bufs[n_sets], err) != 0)
            goto done;
        if (bufs[n_sets].n == 0)
            continue;
        sets[n_sets] = bufs[n_sets].x;
        counts[n_sets] = bufs[n_sets].n;
        which[n_sets] = p->store;
        rt_stats_median(bufs[n_sets].x, bufs[n_sets].n, &medians[p->store], NULL);
        ++n_sets;
    }
    if (n_sets < 2) {
        rc = 0;
        goto done;
    }
    void *grown = realloc(h->points, (size_t)(h->n_points + 1) * sizeof *h->points);
    if (!grown) {
        rt_err_set(err, "out of memory reading the history");
        goto done;
    }
    h->points = grown;
    rt_history_point *hp = &h->points[h->n_points++];
    memset(hp, 0, sizeof *hp);
    hp->key = group[0].key;
    hp->n_stores = n_sets;
    hp->medians = medians;
    medians = NULL;
    int found = 0;
    if (rt_compare_change_points(sets, counts, n_sets, &h->opts, cps, n_group, &found, err) != 0) {
        rt_err_prefix(err, "%s %s %s", hp->key.kernel, hp->key.matrix, hp->key.params);
        goto done;
    }
    if (found > 0) {
        grown = realloc(h->changes, (size_t)(h->n_changes + found) * sizeof *h->changes);
        if (!grown) {
            rt_err_set(err, "out of memory reading the history");
            goto done;
        }
        h->changes = grown;
        for (int c = 0; c < found; ++c) {
            rt_change_point cp = cps[c];
            cp.entry = h->n_points - 1;
            cp.after = which[cps[c].after]; /* a store index, not a set index */
            h->changes[h->n_changes++] = cp;
            h->n_slowdowns += cp.ratio > 1 + h->opts.threshold;
        }
    }
    rc = 0;
done:
    for (int g = 0; bufs && g < n_group; ++g)
        free(bufs[g].x);
    free(bufs);
    free(sets);
    free(counts);
    free(which);
    free(cps);
    free(medians);
    return rc;
}

int rt_compare_history(struct sqlite3 *const *stores, const char *const *labels, int n,
                       const rt_compare_opts *o, rt_history_report *h, rt_err *err)
{
    if (!h)
        return rt_err_set(err, "rt_compare_history: no report to fill");
    memset(h, 0, sizeof *h);
    if (rt_compare_opts_check(o, err) != 0)
        return -1;
    if (n < 2 || !stores || !labels)
        return rt_err_set(err, "--history needs at least two stores, in order (got %d)", n);
    h->opts = *o;
    h->opts.experiment = NULL;
    h->n_stores = n;
    point_list all = {0};
    int rc = -1;
    for (int s = 0; s < n; ++s)
        if (check_store(stores[s], labels[s], err) != 0 ||
            load_points(stores[s], labels[s], s, o, &all, err) != 0)
            goto done;
    sort_and_dedupe(&all);
    for (int i = 0; i < all.n;) {
        int j = i + 1;
        while (j < all.n && identity_cmp(&all.items[i], &all.items[j]) == 0)
            ++j;
        if (history_group(stores, labels, all.items + i, j - i, h, err) != 0)
            goto done;
        i = j;
    }
    rc = 0;
done:
    free(all.items);
    return rc;
}

void rt_history_report_free(rt_history_report *h)
{
    if (!h)
        return;
    for (int k = 0; k < h->n_points; ++k)
        free(h->points[k].medians);
    free(h->points);
    free(h->changes);
    memset(h, 0, sizeof *h);
}
