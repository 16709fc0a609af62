/* rt_progress: how far a long run is: points done of the total, time elapsed, an estimate of the
 * time left and the point being measured. On a terminal it is one line redrawn in place; into a
 * file or a pipe it is a plain line at most every interval_s seconds, so logs stay readable.
 * A progress with no stream (quiet runs, ranks other than 0) does nothing. */
#ifndef RT_PROGRESS_H
#define RT_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Least time between two plain progress lines (not on a terminal), in seconds. */
#define RT_PROGRESS_INTERVAL_S 10.0

typedef struct rt_progress {
    FILE *out;         /* NULL: silent */
    int redraw;        /* 1: a terminal, the line is redrawn in place */
    double interval_s; /* plain mode: least time between two lines */
    int64_t total;     /* points expected (0: unknown) */
    int64_t done;
    double t_start, t_last;
    int drawn; /* a redrawn line is on the terminal now */
    char current[256];
} rt_progress;

/* out may be NULL. redraw < 0 decides from the stream (a terminal redraws). */
void rt_progress_init(rt_progress *p, FILE *out, int redraw, double interval_s, int64_t total,
                      double now);
/* The point now being measured; draws the line (terminal) or a plain line when one is due. */
void rt_progress_begin(rt_progress *p, const char *current, double now);
/* One more point finished. */
void rt_progress_done(rt_progress *p);
/* Erases the redrawn line so that other output starts on a clean line (no-op in plain mode). */
void rt_progress_clear(rt_progress *p);
/* Writes the progress text at `now` into buf ("[3/12 25%] 0:41 elapsed, about 2:03 left: X"). */
void rt_progress_format(const rt_progress *p, double now, char *buf, size_t len);
/* Seconds as "1:02:03", "2:03" or "0:41". */
void rt_progress_duration(double seconds, char *buf, size_t len);

#endif
