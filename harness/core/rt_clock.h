/* rt_clock: monotonic wall clock in seconds. */
#ifndef RT_CLOCK_H
#define RT_CLOCK_H

double rt_clock_now(void);

#endif
