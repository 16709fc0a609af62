/* rt_stop: a request to stop, which a long computation (a family building its inputs) polls
 * between pieces of work. The caller owns where the request comes from (the runner: a signal
 * received), so nothing below it reads process-wide state; a NULL stop never asks. */
#ifndef RT_STOP_H
#define RT_STOP_H

typedef struct rt_stop {
    int (*requested)(const void *ctx); /* nonzero: stop as soon as convenient */
    const void *ctx;
} rt_stop;

/* Nonzero when stop is given and asks to stop. Safe to call from several threads at once when
 * the request function is. */
int rt_stop_requested(const rt_stop *stop);

#endif
