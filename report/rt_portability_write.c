#include "rt_portability_write.h"

#include <math.h>
#include <string.h>

#define MAX_DEVICES 16

/* The devices of the table, in the order they first appear among origins and targets. */
static int device_index(char (*names)[128], int *n, const char *name)
{
    for (int i = 0; i < *n; ++i)
        if (strcmp(names[i], name) == 0)
            return i;
    if (*n >= MAX_DEVICES)
        return -1;
    snprintf(names[*n], 128, "%s", name);
    return (*n)++;
}

static double loss_pct(const rt_portability_row *r)
{
    return r->time_s > 0 && r->own_s > 0 ? (r->time_s / r->own_s - 1.0) * 100.0 : NAN;
}

static void cell(FILE *f, int markdown, int first, const char *text)
{
    if (markdown)
        fprintf(f, "%s %s ", first ? "|" : "", text);
    else
        fprintf(f, "%s%-28s", first ? "" : " ", text);
    if (markdown)
        fputc('|', f);
}

static void end_row(FILE *f)
{
    fputc('\n', f);
}

static void summary(FILE *f, const rt_portability_row *rows, int n, int markdown)
{
    char names[MAX_DEVICES][128];
    int nd = 0;
    for (int i = 0; i < n; ++i) {
        device_index(names, &nd, rows[i].origin);
        device_index(names, &nd, rows[i].target);
    }
    fprintf(f,
            "%sLoss of each device's tuning on each device (geometric mean over the sweeps both "
            "measured; rows: tuned on, columns: run on)\n\n",
            markdown ? "" : "");
    cell(f, markdown, 1, "tuned on \\ run on");
    for (int t = 0; t < nd; ++t)
        cell(f, markdown, 0, names[t]);
    end_row(f);
    if (markdown) {
        fputc('|', f);
        for (int t = 0; t <= nd; ++t)
            fputs(" --- |", f);
        end_row(f);
    }
    for (int o = 0; o < nd; ++o) {
        cell(f, markdown, 1, names[o]);
        for (int t = 0; t < nd; ++t) {
            double log_sum = 0;
            int count = 0;
            for (int i = 0; i < n; ++i)
                if (strcmp(rows[i].origin, names[o]) == 0 &&
                    strcmp(rows[i].target, names[t]) == 0 && !isnan(loss_pct(&rows[i]))) {
                    log_sum += log(rows[i].time_s / rows[i].own_s);
                    ++count;
                }
            char text[64];
            if (count == 0)
                snprintf(text, sizeof text, "-");
            else
                snprintf(text, sizeof text, "%+.1f%% (%d)", (exp(log_sum / count) - 1.0) * 100.0,
                         count);
            cell(f, markdown, 0, text);
        }
        end_row(f);
    }
    fputc('\n', f);
}

int rt_portability_write(FILE *f, const rt_portability_row *rows, int n, int markdown, rt_err *err)
{
    summary(f, rows, n, markdown);
    static const char *const head[] = {"kernel", "matrix",     "problem",   "tuned on",
                                       "run on", "params",     "time (ms)", "own best (ms)",
                                       "loss",   "own best is"};
    const int n_head = (int)(sizeof head / sizeof head[0]);
    for (int k = 0; k < n_head; ++k)
        cell(f, markdown, k == 0, head[k]);
    end_row(f);
    if (markdown) {
        fputc('|', f);
        for (int k = 0; k < n_head; ++k)
            fputs(" --- |", f);
        end_row(f);
    }
    for (int i = 0; i < n; ++i) {
        const rt_portability_row *r = &rows[i];
        char t[32], own[32], loss[32];
        snprintf(t, sizeof t, isnan(r->time_s) ? "not measured" : "%.4g", r->time_s * 1e3);
        snprintf(own, sizeof own, isnan(r->own_s) ? "not measured" : "%.4g", r->own_s * 1e3);
        const double l = loss_pct(r);
        snprintf(loss, sizeof loss, isnan(l) ? "-" : "%+.1f%%", l);
        const char *values[] = {
            r->kernel,  r->matrix,
            r->problem, r->origin,
            r->target,  r->params,
            t,          own,
            loss,       r->own_from_tuning ? "its tuning entry" : "the fastest run here"};
        for (int k = 0; k < n_head; ++k)
            cell(f, markdown, k == 0, values[k]);
        end_row(f);
    }
    return ferror(f) ? rt_err_set(err, "cannot write the portability table") : 0;
}
