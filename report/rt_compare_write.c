/* rt_compare_write: the comparison and the history as text and Markdown; see rt_compare.h. */
#define _POSIX_C_SOURCE 200809L
#include "rt_compare_write.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A point's identity on one line, as the text reports name points (compare and history alike). */
static void describe_point(char *buf, size_t len, const rt_point_identity *k)
{
    snprintf(buf, len, "%s %s %s %s %s ranks=%d [%s]", k->experiment, k->kernel, k->matrix,
             k->params, k->problem, k->ranks, k->device_class);
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
        describe_point(what, sizeof what, &e->key);
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
        describe_point(what, sizeof what, &e->key);
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

static void md_identity(FILE *f, const rt_point_identity *k)
{
    /* Each cell and what follows it: params and problem in code spans. */
    const char *const cells[] = {k->experiment, k->kernel, k->matrix, k->params, k->problem};
    static const char *const after[] = {" | ", " | ", " | `", "` | `", "` | "};
    fputs("| ", f);
    for (size_t i = 0; i < sizeof cells / sizeof cells[0]; ++i) {
        md_cell(f, cells[i]);
        fputs(after[i], f);
    }
    fprintf(f, "%d | ", k->ranks);
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
        md_identity(f, &e->key);
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
            md_identity(f, &r->entries[c->entry].key);
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
            md_identity(f, &e->key);
            fprintf(f, "%s | %s |\n", e->side == RT_COMPARE_BASE_ONLY ? "baseline" : "new",
                    e->side == RT_COMPARE_BASE_ONLY ? e->base_status : e->new_status);
        }
    }
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
        describe_point(what, sizeof what, &p->key);
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
        char tb[32], ta[32], ch[32];
        format_time(cp->before_median, tb, sizeof tb);
        format_time(cp->after_median, ta, sizeof ta);
        format_change(cp->ratio, ch, sizeof ch);
        md_identity(f, &p->key);
        fprintf(f, "%d | %s | %s | %s%s%s | %.2g |\n", cp->after, tb, ta, cp->ratio > 1 ? "**" : "",
                ch, cp->ratio > 1 ? "**" : "", cp->p_value);
    }
}
