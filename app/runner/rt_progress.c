/* rt_progress: see rt_progress.h. */
#define _POSIX_C_SOURCE 200809L
#include "rt_progress.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

void rt_progress_init(rt_progress *p, FILE *out, int redraw, double interval_s, int64_t total,
                      double now)
{
    memset(p, 0, sizeof *p);
    p->out = out;
    p->redraw = redraw >= 0 ? redraw : (out && isatty(fileno(out)));
    p->interval_s = interval_s;
    p->total = total;
    p->t_start = now;
    p->t_last = now;
}

void rt_progress_duration(double seconds, char *buf, size_t len)
{
    if (!(seconds >= 0) || isinf(seconds))
        seconds = 0;
    const long s = (long)(seconds + 0.5);
    if (s >= 3600)
        snprintf(buf, len, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    else
        snprintf(buf, len, "%ld:%02ld", s / 60, s % 60);
}

void rt_progress_format(const rt_progress *p, double now, char *buf, size_t len)
{
    char elapsed[32], left[48] = "";
    const double spent = now - p->t_start;
    rt_progress_duration(spent, elapsed, sizeof elapsed);
    char count[64];
    if (p->total > 0) {
        const int64_t done = p->done < p->total ? p->done : p->total;
        snprintf(count, sizeof count, "%lld/%lld %d%%", (long long)p->done, (long long)p->total,
                 (int)(100 * done / p->total));
        /* The estimate assumes the points left cost what the points done cost on average; it is
         * only shown once there is an average. */
        if (p->done > 0 && p->done < p->total) {
            char d[32];
            rt_progress_duration(spent / (double)p->done * (double)(p->total - p->done), d,
                                 sizeof d);
            snprintf(left, sizeof left, ", about %s left", d);
        }
    } else {
        snprintf(count, sizeof count, "%lld done", (long long)p->done);
    }
    snprintf(buf, len, "[%s] %s elapsed%s%s%s", count, elapsed, left, p->current[0] ? ": " : "",
             p->current);
}

void rt_progress_clear(rt_progress *p)
{
    if (!p->out || !p->redraw || !p->drawn)
        return;
    fputs("\r\033[K", p->out);
    fflush(p->out);
    p->drawn = 0;
}

void rt_progress_begin(rt_progress *p, const char *current, double now)
{
    snprintf(p->current, sizeof p->current, "%s", current ? current : "");
    if (!p->out)
        return;
    /* Plain lines start after one interval: short runs print none. */
    if (!p->redraw && now - p->t_last < p->interval_s)
        return;
    char line[512];
    rt_progress_format(p, now, line, sizeof line);
    if (p->redraw) {
        /* One terminal line: cut to a width that fits most terminals, so it never wraps. */
        fprintf(p->out, "\r\033[K%.110s", line);
        p->drawn = 1;
    } else {
        fprintf(p->out, "progress %s\n", line);
    }
    fflush(p->out);
    p->t_last = now;
}

void rt_progress_done(rt_progress *p)
{
    p->done++;
}
