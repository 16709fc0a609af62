/* rt_compare: regression verdicts between result stores; see rt_compare.h and
 * docs/regression.md for the rules. */
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

/* The status words the store writes (rt_point_status_name), spelled out so that reading a store
 * does not depend on the writer's code. */
static const char status_ok[] = "ok";
static const char status_above[] = "above_roofline";
static const char *const bad_statuses[] = {"wrong", "error", "timeout", "above_roofline"};

void rt_compare_opts_init(rt_compare_opts *o)
{
    memset(o, 0, sizeof *o);
    o->threshold = RT_COMPARE_DEFAULT_THRESHOLD;
    o->alpha = RT_COMPARE_DEFAULT_ALPHA;
}

int rt_compare_opts_check(const rt_compare_opts *o, rt_err *err)
{
    if (!o)
        return rt_err_set(err, "compare: no options given");
    if (!(o->threshold > 0 && o->threshold < 1))
        return rt_err_set(err,
                          "--threshold must be between 0 and 1 (a relative change, e.g. "
                          "0.05 for 5%%), got %g",
                          o->threshold);
    if (!(o->alpha > 0 && o->alpha < 1))
        return rt_err_set(err,
                          "--alpha must be between 0 and 1 (a significance level, e.g. "
                          "0.01), got %g",
                          o->alpha);
    return 0;
}

const char *rt_verdict_name(rt_verdict v)
{
    switch (v) {
    case RT_VERDICT_SAME: return "SAME";
    case RT_VERDICT_FASTER: return "FASTER";
    case RT_VERDICT_SLOWER: return "SLOWER";
    case RT_VERDICT_UNSURE: return "UNSURE";
    case RT_VERDICT_NOT_TIMED: return "NOT-TIMED";
    }
    return "?";
}

/* ------------------------------------------------------------------------------------------- */
/* Device class */

static int is_hex(char c)
{
    return isxdigit((unsigned char)c) != 0;
}

/* The token without the brackets, parentheses and punctuation that wrap it. */
static void strip_wrapping(const char *tok, size_t len, const char **core, size_t *core_len)
{
    size_t a = 0, b = len;
    while (a < b && strchr("([{<", tok[a]))
        ++a;
    while (b > a && strchr(")]}>,;", tok[b - 1]))
        --b;
    *core = tok + a;
    *core_len = b - a;
}

static int all_digits(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; ++i)
        if (!isdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

/* 8-4-4-4-12 hex digits. */
static int is_uuid(const char *s, size_t n)
{
    static const int groups[] = {8, 4, 4, 4, 12};
    size_t i = 0;
    for (int g = 0; g < 5; ++g) {
        for (int k = 0; k < groups[g]; ++k, ++i)
            if (i >= n || !is_hex(s[i]))
                return 0;
        if (g < 4) {
            if (i >= n || s[i] != '-')
                return 0;
            ++i;
        }
    }
    return i == n;
}

/* [dddd:]bb:dd.f with hex digits. */
static int is_pci_bus_id(const char *s, size_t n)
{
    size_t i = 0, run = 0;
    int colons = 0, dot = 0;
    for (; i < n; ++i) {
        if (is_hex(s[i])) {
            ++run;
        } else if (s[i] == ':' && run > 0 && !dot) {
            ++colons;
            run = 0;
        } else if (s[i] == '.' && run > 0 && colons > 0 && !dot) {
            dot = 1;
            run = 0;
        } else {
            return 0;
        }
    }
    return dot && run == 1 && (colons == 1 || colons == 2);
}

static int is_serialish(const char *s, size_t n)
{
    if (n >= 4 && (strncmp(s, "GPU-", 4) == 0 || strncmp(s, "MIG-", 4) == 0))
        return 1;
    if (is_uuid(s, n) || is_pci_bus_id(s, n))
        return 1;
    if (n >= 2 && s[0] == '#' && all_digits(s + 1, n - 1))
        return 1;
    /* A long hex word with a digit in it is a serial number or a hash, not a model name. */
    if (n >= 8) {
        int hex = 1, digit = 0;
        for (size_t i = 0; i < n; ++i) {
            hex &= is_hex(s[i]);
            digit |= isdigit((unsigned char)s[i]) != 0;
        }
        if (hex && digit)
            return 1;
    }
    return 0;
}

static int starts_serial_label(const char *s, size_t n)
{
    return (n >= 2 && (s[0] == 'S' || s[0] == 's') && (s[1] == 'N' || s[1] == 'n') &&
            (n == 2 || s[2] == ':' || s[2] == '=' || isdigit((unsigned char)s[2]))) ||
           (n >= 3 && strncmp(s, "S/N", 3) == 0);
}

void rt_compare_device_class(const char *device, char *out, size_t len)
{
    if (!out || len == 0)
        return;
    out[0] = '\0';
    if (!device)
        return;
    /* Tokens kept, in order; their count lets a trailing index be dropped afterwards. */
    size_t used = 0, last_start = 0;
    int kept = 0, last_is_index = 0, in_serial_bracket = 0;
    const char *p = device;
    while (*p) {
        while (*p && isspace((unsigned char)*p))
            ++p;
        if (!*p)
            break;
        const char *tok = p;
        while (*p && !isspace((unsigned char)*p))
            ++p;
        const size_t tlen = (size_t)(p - tok);
        const char *core;
        size_t clen;
        strip_wrapping(tok, tlen, &core, &clen);
        const int opens = strchr("([{", tok[0]) != NULL;
        const int closes = tlen > 0 && strchr(")]}", tok[tlen - 1]) != NULL;
        if (in_serial_bracket) {
            /* "(S/N: 1234 5678)": everything up to the closing bracket goes. */
            if (closes)
                in_serial_bracket = 0;
            continue;
        }
        if (starts_serial_label(core, clen)) {
            in_serial_bracket = opens && !closes;
            continue;
        }
        if (clen == 0 || is_serialish(core, clen))
            continue;
        /* ":0", "[0]", "(0)" and a bare number are an index only at the end: remember. */
        const char *digits = core;
        size_t dlen = clen;
        if (dlen > 0 && digits[0] == ':') {
            ++digits;
            --dlen;
        }
        /* Bracketed or after a colon up to 3 digits; bare only up to 2, since a bare 3-digit
         * number ends many model names ("... Processor 248"). */
        const int marked = opens || core[0] == ':';
        const int index_like =
            all_digits(digits, dlen) && dlen <= (marked ? 3u : 2u) && (marked || kept > 0);
        if (used + tlen + 2 > len)
            break;
        last_start = used;
        if (used)
            out[used++] = ' ';
        memcpy(out + used, tok, tlen);
        used += tlen;
        out[used] = '\0';
        ++kept;
        last_is_index = index_like;
    }
    /* A model name never ends in a bare small number after a model word ("H100 0"), while a
     * device index often does. */
    if (kept > 1 && last_is_index)
        out[last_start] = '\0';
}

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
    char experiment[64];
    char kernel[96];
    char matrix[64];
    char params[1024];
    char problem[512];
    int ranks;
    char device_class[128];
    char status[24];
} stored_point;

typedef struct point_list {
    int n, cap;
    stored_point *items;
} point_list;

static void copy_text(sqlite3_stmt *st, int col, char *buf, size_t len)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(buf, len, "%s", t ? (const char *)t : "");
}

static int identity_cmp(const stored_point *a, const stored_point *b)
{
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

static int check_store(sqlite3 *db, const char *label, rt_err *err)
{
    if (!db)
        return rt_err_set(err, "%s: no store is open", label);
    if (rt_store_check(db, err) != 0)
        return rt_err_prefix(err, "%s", label);
    return 0;
}

/* Appends every point of a store (optionally one experiment) to list, tagged with store. */
static int load_points(sqlite3 *db, const char *label, int store, const rt_compare_opts *o,
                       point_list *list, rt_err *err)
{
    sqlite3_stmt *st = NULL;
    const char *sql = o->experiment
                          ? "SELECT id, experiment, kernel, matrix, params, problem, ranks, "
                            "device, status FROM points WHERE experiment = ?1 ORDER BY id"
                          : "SELECT id, experiment, kernel, matrix, params, problem, ranks, "
                            "device, status FROM points ORDER BY id";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        rt_err_set(err, "%s: cannot read its points: %s", label, sqlite3_errmsg(db));
        sqlite3_finalize(st);
        return -1;
    }
    if (o->experiment)
        sqlite3_bind_text(st, 1, o->experiment, -1, SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (list->n == list->cap) {
            const int cap = list->cap ? 2 * list->cap : 256;
            void *grown = realloc(list->items, (size_t)cap * sizeof *list->items);
            if (!grown) {
                sqlite3_finalize(st);
                return rt_err_set(err, "%s: out of memory reading its points", label);
            }
            list->items = grown;
            list->cap = cap;
        }
        stored_point *p = &list->items[list->n++];
        memset(p, 0, sizeof *p);
        p->id = sqlite3_column_int64(st, 0);
        p->store = store;
        copy_text(st, 1, p->experiment, sizeof p->experiment);
        copy_text(st, 2, p->kernel, sizeof p->kernel);
        copy_text(st, 3, p->matrix, sizeof p->matrix);
        copy_text(st, 4, p->params, sizeof p->params);
        copy_text(st, 5, p->problem, sizeof p->problem);
        p->ranks = sqlite3_column_int(st, 6);
        char device[256];
        copy_text(st, 7, device, sizeof device);
        if (o->ignore_device)
            snprintf(p->device_class, sizeof p->device_class, "*");
        else
            rt_compare_device_class(device, p->device_class, sizeof p->device_class);
        copy_text(st, 8, p->status, sizeof p->status);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return rt_err_set(err, "%s: cannot read its points: %s", label, sqlite3_errmsg(db));
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

static int load_samples(sqlite3 *db, const char *label, int64_t id, sample_buf *s, rt_err *err)
{
    s->n = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT seconds FROM samples WHERE point_id = ?1 AND seconds IS "
                           "NOT NULL ORDER BY rep",
                           -1, &st, NULL) != SQLITE_OK) {
        rt_err_set(err, "%s: cannot read samples: %s", label, sqlite3_errmsg(db));
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_bind_int64(st, 1, id);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const double v = sqlite3_column_double(st, 0);
        if (!isfinite(v) || v <= 0)
            continue; /* not a time: never compare it */
        if (s->n == s->cap) {
            const int cap = s->cap ? 2 * s->cap : 128;
            void *grown = realloc(s->x, (size_t)cap * sizeof *s->x);
            if (!grown) {
                sqlite3_finalize(st);
                return rt_err_set(err, "%s: out of memory reading samples", label);
            }
            s->x = grown;
            s->cap = cap;
        }
        s->x[s->n++] = v;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return rt_err_set(err, "%s: cannot read samples of point %lld: %s", label, (long long)id,
                          sqlite3_errmsg(db));
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

typedef struct metric_row {
    char name[64];
    int available, deterministic, has_value;
    double value;
} metric_row;

typedef struct metric_list {
    int n, cap;
    metric_row *items;
} metric_list;

static int load_metrics(sqlite3 *db, const char *label, int64_t id, metric_list *m, rt_err *err)
{
    m->n = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT name, available, deterministic, value FROM metrics WHERE "
                           "point_id = ?1 ORDER BY name",
                           -1, &st, NULL) != SQLITE_OK) {
        rt_err_set(err, "%s: cannot read metrics: %s", label, sqlite3_errmsg(db));
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_bind_int64(st, 1, id);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (m->n == m->cap) {
            const int cap = m->cap ? 2 * m->cap : 64;
            void *grown = realloc(m->items, (size_t)cap * sizeof *m->items);
            if (!grown) {
                sqlite3_finalize(st);
                return rt_err_set(err, "%s: out of memory reading metrics", label);
            }
            m->items = grown;
            m->cap = cap;
        }
        metric_row *r = &m->items[m->n++];
        copy_text(st, 0, r->name, sizeof r->name);
        r->available = sqlite3_column_int(st, 1);
        r->deterministic = sqlite3_column_int(st, 2);
        r->has_value = sqlite3_column_type(st, 3) != SQLITE_NULL;
        r->value = r->has_value ? sqlite3_column_double(st, 3) : NAN;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return rt_err_set(err, "%s: cannot read metrics of point %lld: %s", label, (long long)id,
                          sqlite3_errmsg(db));
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

static void fill_identity(rt_compare_entry *e, const stored_point *p)
{
    snprintf(e->experiment, sizeof e->experiment, "%s", p->experiment);
    snprintf(e->kernel, sizeof e->kernel, "%s", p->kernel);
    snprintf(e->matrix, sizeof e->matrix, "%s", p->matrix);
    snprintf(e->params, sizeof e->params, "%s", p->params);
    snprintf(e->problem, sizeof e->problem, "%s", p->problem);
    e->ranks = p->ranks;
    snprintf(e->device_class, sizeof e->device_class, "%s", p->device_class);
}

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

static int compare_pair(sqlite3 *base, const char *base_label, sqlite3 *fresh,
                        const char *new_label, const stored_point *pb, const stored_point *pn,
                        rt_compare_report *r, sample_buf *sb, sample_buf *sn, metric_list *mb,
                        metric_list *mn, rt_err *err)
{
    rt_compare_entry *e = NULL; /* set by add_entry; = NULL quiets -O3 -Wmaybe-uninitialized */
    if (add_entry(r, &e, err) != 0)
        return -1;
    const int index = r->n_entries - 1;
    fill_identity(e, pb);
    e->side = RT_COMPARE_BOTH;
    e->base_id = pb->id;
    e->new_id = pn->id;
    snprintf(e->base_status, sizeof e->base_status, "%s", pb->status);
    snprintf(e->new_status, sizeof e->new_status, "%s", pn->status);
    ++r->n_matched;

    if (strcmp(pb->status, pn->status) != 0) {
        const int worse = strcmp(pb->status, status_ok) == 0 || bad_status(pn->status);
        e->status_change = worse ? RT_STATUS_FAILED : RT_STATUS_CHANGED;
        ++*(worse ? &r->n_status_failed : &r->n_status_changed);
    }

    if (load_samples(base, base_label, pb->id, sb, err) != 0 ||
        load_samples(fresh, new_label, pn->id, sn, err) != 0)
        return -1;
    e->n_base = sb->n;
    e->n_new = sn->n;
    if (timed_status(pb->status) && timed_status(pn->status) && sb->n > 0 && sn->n > 0) {
        if (rt_compare_samples(sb->x, sb->n, sn->x, sn->n, &r->opts, &e->verdict, &e->ratio,
                               &e->ratio_lo, &e->ratio_hi, &e->p_value, err) != 0)
            return rt_err_prefix(err, "%s %s", pb->kernel, pb->matrix);
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
    fill_identity(e, p);
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

int rt_compare_stores(sqlite3 *base, const char *base_label, sqlite3 *fresh, const char *new_label,
                      const rt_compare_opts *o, rt_compare_report *r, rt_err *err)
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
/* Writing the comparison */

/* A time with a unit that keeps 4 significant digits readable. */
static void format_time(double s, char *buf, size_t len)
{
    if (!isfinite(s))
        snprintf(buf, len, "-");
    else if (s >= 1)
        snprintf(buf, len, "%.4g s", s);
    else if (s >= 1e-3)
        snprintf(buf, len, "%.4g ms", s * 1e3);
    else if (s >= 1e-6)
        snprintf(buf, len, "%.4g us", s * 1e6);
    else
        snprintf(buf, len, "%.4g ns", s * 1e9);
}

static void format_change(double ratio, char *buf, size_t len)
{
    if (!isfinite(ratio))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%+.1f%%", (ratio - 1) * 100);
}

static void describe_point(char *buf, size_t len, const rt_compare_entry *e)
{
    snprintf(buf, len, "%s %s %s %s %s ranks=%d [%s]", e->experiment, e->kernel, e->matrix,
             e->params, e->problem, e->ranks, e->device_class);
}

static const char *metric_kind_text(rt_metric_change_kind k)
{
    switch (k) {
    case RT_METRIC_VALUE: return "value changed";
    case RT_METRIC_MISSING: return "missing in the new store";
    case RT_METRIC_AVAILABILITY: return "readable on one side only";
    }
    return "?";
}

static void verdict_summary(const rt_compare_report *r, char *buf, size_t len)
{
    if (!r->failed) {
        snprintf(buf, len, "PASS");
        return;
    }
    size_t used = (size_t)snprintf(buf, len, "FAIL (");
    const char *sep = "";
    if (!r->opts.allow_no_match && r->n_matched == 0 && used < len) {
        used += (size_t)snprintf(buf + used, len - used,
                                 "no point matched: nothing was compared (--ignore-device matches "
                                 "across devices, --allow-no-match accepts it)");
        sep = "; ";
    }
    if (!r->opts.timings_informational && r->n_slower > 0 && used < len) {
        used += (size_t)snprintf(buf + used, len - used, "%s%d slower beyond %.3g%%", sep,
                                 r->n_slower, r->opts.threshold * 100);
        sep = "; ";
    }
    if (!r->opts.timings_informational && !r->opts.allow_unsure && r->n_unsure_slower > 0 &&
        used < len) {
        used += (size_t)snprintf(buf + used, len - used,
                                 "%s%d unsure past +%.3g%%: re-measure them, or --allow-unsure",
                                 sep, r->n_unsure_slower, r->opts.threshold * 100);
        sep = "; ";
    }
    if (r->n_status_failed > 0 && used < len) {
        used += (size_t)snprintf(buf + used, len - used, "%s%d status failure(s)", sep,
                                 r->n_status_failed);
        sep = "; ";
    }
    if (r->n_points_metric_changed > 0 && used < len)
        used += (size_t)snprintf(buf + used, len - used,
                                 "%s%d point(s) with changed deterministic metrics", sep,
                                 r->n_points_metric_changed);
    if (used < len)
        snprintf(buf + used, len - used, ")");
}

void rt_compare_write_text(FILE *f, const rt_compare_report *r, const char *base_label,
                           const char *new_label)
{
    fprintf(f, "rooftune compare: %s -> %s (threshold %.3g%%, alpha %g%s%s)\n", base_label,
            new_label, r->opts.threshold * 100, r->opts.alpha,
            r->opts.timings_informational ? ", timings informational" : "",
            r->opts.ignore_device ? ", any device" : "");
    fprintf(f, "matched %d point(s): %d same, %d faster, %d slower, %d unsure, %d not timed\n",
            r->n_matched, r->n_same, r->n_faster, r->n_slower, r->n_unsure, r->n_not_timed);
    fprintf(f, "only in %s: %d; only in %s: %d\n", base_label, r->n_base_only, new_label,
            r->n_new_only);
    if (r->n_noisy > 0)
        fprintf(f,
                "noisy: %d matched point(s) missed their confidence target on one side or both "
                "(never SLOWER or FASTER, at most UNSURE)\n",
                r->n_noisy);
    fprintf(f,
            "status: %d failure(s), %d other change(s); deterministic metrics: %d point(s) "
            "changed\n",
            r->n_status_failed, r->n_status_changed, r->n_points_metric_changed);
    int header = 0;
    for (int k = 0; k < r->n_entries; ++k) {
        const rt_compare_entry *e = &r->entries[k];
        if (e->side != RT_COMPARE_BOTH)
            continue;
        const int timing = e->verdict == RT_VERDICT_SLOWER || e->verdict == RT_VERDICT_FASTER ||
                           e->verdict == RT_VERDICT_UNSURE;
        if (!timing && e->status_change == RT_STATUS_UNCHANGED && e->n_metric_changes == 0)
            continue;
        if (!header++)
            fputc('\n', f);
        char what[2048], tb[32], tn[32], ch[32];
        describe_point(what, sizeof what, e);
        if (timing) {
            format_time(e->base_median, tb, sizeof tb);
            format_time(e->new_median, tn, sizeof tn);
            format_change(e->ratio, ch, sizeof ch);
            fprintf(f, "%-7s %s: %s -> %s (%s, p = %.2g, %d/%d samples)\n",
                    rt_verdict_name(e->verdict), what, tb, tn, ch, e->p_value, e->n_base, e->n_new);
        }
        if (e->status_change != RT_STATUS_UNCHANGED)
            fprintf(f, "%-7s %s: status %s -> %s%s\n", "STATUS", what, e->base_status,
                    e->new_status, e->status_change == RT_STATUS_FAILED ? " (failure)" : "");
        for (int m = 0; m < r->n_metric_changes; ++m) {
            const rt_compare_metric_change *c = &r->metric_changes[m];
            if (c->entry != k)
                continue;
            fprintf(f, "%-7s %s: %s %s (%.17g -> %.17g)\n", "METRIC", what, c->name,
                    metric_kind_text(c->kind), c->base_value, c->new_value);
        }
    }
    int listed = 0;
    for (int k = 0; k < r->n_entries; ++k) {
        const rt_compare_entry *e = &r->entries[k];
        if (e->side == RT_COMPARE_BOTH)
            continue;
        if (!listed++)
            fputc('\n', f);
        char what[2048];
        describe_point(what, sizeof what, e);
        fprintf(f, "ONLY    %s: only in %s (%s)\n", what,
                e->side == RT_COMPARE_BASE_ONLY ? base_label : new_label,
                e->side == RT_COMPARE_BASE_ONLY ? e->base_status : e->new_status);
    }
    char verdict[256];
    verdict_summary(r, verdict, sizeof verdict);
    fprintf(f, "\nverdict: %s\n", verdict);
}

/* Markdown table cells: a pipe or a newline would break the table. */
static void md_cell(FILE *f, const char *text)
{
    for (const char *c = text; *c; ++c) {
        if (*c == '|')
            fputs("\\|", f);
        else if (*c == '\n' || *c == '\r')
            fputc(' ', f);
        else
            fputc(*c, f);
    }
}

static void md_identity(FILE *f, const rt_compare_entry *e)
{
    fputs("| ", f);
    md_cell(f, e->experiment);
    fputs(" | ", f);
    md_cell(f, e->kernel);
    fputs(" | ", f);
    md_cell(f, e->matrix);
    fputs(" | `", f);
    md_cell(f, e->params);
    fputs("` | `", f);
    md_cell(f, e->problem);
    fprintf(f, "` | %d | ", e->ranks);
}

void rt_compare_write_markdown(FILE *f, const rt_compare_report *r, const char *base_label,
                               const char *new_label)
{
    char verdict[256];
    verdict_summary(r, verdict, sizeof verdict);
    fprintf(f, "# rooftune compare\n\n");
    fprintf(f, "- baseline: `");
    md_cell(f, base_label);
    fprintf(f, "`\n- new: `");
    md_cell(f, new_label);
    fprintf(f, "`\n- threshold %.3g%%, alpha %g%s%s\n- **verdict: %s**\n\n",
            r->opts.threshold * 100, r->opts.alpha,
            r->opts.timings_informational ? ", timings informational (do not gate)" : "",
            r->opts.ignore_device ? ", points matched on any device" : "", verdict);
    fprintf(f, "| matched | same | faster | slower | unsure | not timed | only baseline | "
               "only new | status failures | metric changes |\n");
    fprintf(f, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    fprintf(f, "| %d | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n\n", r->n_matched, r->n_same,
            r->n_faster, r->n_slower, r->n_unsure, r->n_not_timed, r->n_base_only, r->n_new_only,
            r->n_status_failed, r->n_points_metric_changed);

    fprintf(f, "## Points\n\n");
    fprintf(f, "| experiment | kernel | matrix | params | problem | ranks | verdict | baseline "
               "| new | change | p | samples | status |\n");
    fprintf(f, "|---|---|---|---|---|---:|---|---:|---:|---:|---:|---:|---|\n");
    for (int k = 0; k < r->n_entries; ++k) {
        const rt_compare_entry *e = &r->entries[k];
        if (e->side != RT_COMPARE_BOTH)
            continue;
        char tb[32], tn[32], ch[32];
        format_time(e->base_median, tb, sizeof tb);
        format_time(e->new_median, tn, sizeof tn);
        format_change(e->ratio, ch, sizeof ch);
        md_identity(f, e);
        const int loud = e->verdict == RT_VERDICT_SLOWER;
        fprintf(f, "%s%s%s | %s | %s | %s | ", loud ? "**" : "", rt_verdict_name(e->verdict),
                loud ? "**" : "", tb, tn, ch);
        if (isfinite(e->p_value))
            fprintf(f, "%.2g", e->p_value);
        else
            fputc('-', f);
        fprintf(f, " | %d/%d | ", e->n_base, e->n_new);
        if (e->status_change == RT_STATUS_UNCHANGED)
            fprintf(f, "%s |\n", e->new_status);
        else
            fprintf(f, "%s%s -> %s%s |\n", e->status_change == RT_STATUS_FAILED ? "**" : "",
                    e->base_status, e->new_status,
                    e->status_change == RT_STATUS_FAILED ? "**" : "");
    }
    if (r->n_metric_changes > 0) {
        fprintf(f, "\n## Deterministic metrics that changed\n\n");
        fprintf(f, "| experiment | kernel | matrix | params | problem | ranks | metric | change "
                   "| baseline | new |\n|---|---|---|---|---|---:|---|---|---:|---:|\n");
        for (int m = 0; m < r->n_metric_changes; ++m) {
            const rt_compare_metric_change *c = &r->metric_changes[m];
            md_identity(f, &r->entries[c->entry]);
            md_cell(f, c->name);
            fprintf(f, " | %s | %.17g | %.17g |\n", metric_kind_text(c->kind), c->base_value,
                    c->new_value);
        }
    }
    if (r->n_base_only + r->n_new_only > 0) {
        fprintf(f, "\n## Points in one store only\n\n");
        fprintf(f, "| experiment | kernel | matrix | params | problem | ranks | only in | status "
                   "|\n|---|---|---|---|---|---:|---|---|\n");
        for (int k = 0; k < r->n_entries; ++k) {
            const rt_compare_entry *e = &r->entries[k];
            if (e->side == RT_COMPARE_BOTH)
                continue;
            md_identity(f, e);
            fprintf(f, "%s | %s |\n", e->side == RT_COMPARE_BASE_ONLY ? "baseline" : "new",
                    e->side == RT_COMPARE_BASE_ONLY ? e->base_status : e->new_status);
        }
    }
}

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
    if (sg->found < sg->max) {
        rt_change_point *c = &sg->out[sg->found];
        memset(c, 0, sizeof *c);
        c->after = best;
        c->before_median = best_lm;
        c->after_median = best_rm;
        c->ratio = best_ratio;
        c->p_value = best_p;
    }
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

/* ------------------------------------------------------------------------------------------- */
/* History over several stores */

static void history_identity(rt_history_point *h, const stored_point *p)
{
    snprintf(h->experiment, sizeof h->experiment, "%s", p->experiment);
    snprintf(h->kernel, sizeof h->kernel, "%s", p->kernel);
    snprintf(h->matrix, sizeof h->matrix, "%s", p->matrix);
    snprintf(h->params, sizeof h->params, "%s", p->params);
    snprintf(h->problem, sizeof h->problem, "%s", p->problem);
    h->ranks = p->ranks;
    snprintf(h->device_class, sizeof h->device_class, "%s", p->device_class);
}

/* The change points of one identity, whose records are group[0..n_group-1] (by store). */
static int history_group(sqlite3 *const *stores, const char *const *labels,
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
    history_identity(hp, &group[0]);
    hp->n_stores = n_sets;
    hp->medians = medians;
    medians = NULL;
    int found = 0;
    if (rt_compare_change_points(sets, counts, n_sets, &h->opts, cps, n_group, &found, err) != 0) {
        rt_err_prefix(err, "%s %s %s", hp->kernel, hp->matrix, hp->params);
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

int rt_compare_history(sqlite3 *const *stores, const char *const *labels, int n,
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

static void history_describe(char *buf, size_t len, const rt_history_point *p)
{
    snprintf(buf, len, "%s %s %s %s %s ranks=%d [%s]", p->experiment, p->kernel, p->matrix,
             p->params, p->problem, p->ranks, p->device_class);
}

void rt_history_write_text(FILE *f, const rt_history_report *h, const char *const *labels)
{
    fprintf(f,
            "rooftune compare --history: %d stores, %d point(s) timed in at least two "
            "(threshold %.3g%%, alpha %g)\n",
            h->n_stores, h->n_points, h->opts.threshold * 100, h->opts.alpha);
    for (int s = 0; s < h->n_stores; ++s)
        fprintf(f, "  [%d] %s\n", s, labels[s]);
    fprintf(f, "%d change point(s), %d of them slowdowns\n", h->n_changes, h->n_slowdowns);
    for (int c = 0; c < h->n_changes; ++c) {
        const rt_change_point *cp = &h->changes[c];
        const rt_history_point *p = &h->points[cp->entry];
        char what[2048], tb[32], ta[32], ch[32];
        history_describe(what, sizeof what, p);
        format_time(cp->before_median, tb, sizeof tb);
        format_time(cp->after_median, ta, sizeof ta);
        format_change(cp->ratio, ch, sizeof ch);
        /* The next store after `after` where the point was timed. */
        int next = cp->after + 1;
        while (next < h->n_stores - 1 && isnan(p->medians[next]))
            ++next;
        fprintf(f, "%-7s %s: between [%d] %s and [%d] %s: %s -> %s (%s, p = %.2g)\n",
                cp->ratio > 1 ? "SLOWER" : "FASTER", what, cp->after, labels[cp->after], next,
                labels[next], tb, ta, ch, cp->p_value);
    }
    fprintf(f, "\nverdict: %s\n", h->n_slowdowns ? "FAIL (a slowdown in the history)" : "PASS");
}

void rt_history_write_markdown(FILE *f, const rt_history_report *h, const char *const *labels)
{
    fprintf(f, "# rooftune compare --history\n\n");
    for (int s = 0; s < h->n_stores; ++s) {
        fprintf(f, "%d. `", s);
        md_cell(f, labels[s]);
        fprintf(f, "`\n");
    }
    fprintf(f,
            "\nthreshold %.3g%%, alpha %g; %d point(s) timed in at least two stores; **%d "
            "change point(s), %d slowdown(s)**\n\n",
            h->opts.threshold * 100, h->opts.alpha, h->n_points, h->n_changes, h->n_slowdowns);
    if (h->n_changes == 0)
        return;
    fprintf(f, "| experiment | kernel | matrix | params | problem | ranks | after store | before "
               "| after | change | p |\n|---|---|---|---|---|---:|---:|---:|---:|---:|---:|\n");
    for (int c = 0; c < h->n_changes; ++c) {
        const rt_change_point *cp = &h->changes[c];
        const rt_history_point *p = &h->points[cp->entry];
        rt_compare_entry e;
        memset(&e, 0, sizeof e);
        snprintf(e.experiment, sizeof e.experiment, "%s", p->experiment);
        snprintf(e.kernel, sizeof e.kernel, "%s", p->kernel);
        snprintf(e.matrix, sizeof e.matrix, "%s", p->matrix);
        snprintf(e.params, sizeof e.params, "%s", p->params);
        snprintf(e.problem, sizeof e.problem, "%s", p->problem);
        e.ranks = p->ranks;
        char tb[32], ta[32], ch[32];
        format_time(cp->before_median, tb, sizeof tb);
        format_time(cp->after_median, ta, sizeof ta);
        format_change(cp->ratio, ch, sizeof ch);
        md_identity(f, &e);
        fprintf(f, "%d | %s | %s | %s%s%s | %.2g |\n", cp->after, tb, ta, cp->ratio > 1 ? "**" : "",
                ch, cp->ratio > 1 ? "**" : "", cp->p_value);
    }
}
