/* rt_clock: monotonic wall clock in seconds, and the calendar clock. */
#ifndef RT_CLOCK_H
#define RT_CLOCK_H

double rt_clock_now(void);
/* Seconds since the Unix epoch (CLOCK_REALTIME): the one clock that several processes, on one
 * host or NTP-synchronised nodes, read alike, for stamps compared across processes (the phase
 * record of a parallel run, rt_phases.h). Durations within a process use rt_clock_now. */
double rt_clock_epoch(void);

#endif
