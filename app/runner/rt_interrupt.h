/* rt_interrupt: SIGINT and SIGTERM end a run between points instead of killing it mid-record, so
 * the run is marked 'interrupted' and the user told what was kept. A signal handler can only set a
 * flag, so the flag is this module's one piece of process-wide state; the runner polls it. A
 * second signal gets the default action (the process ends at once; the next run marks its row). */
#ifndef RT_INTERRUPT_H
#define RT_INTERRUPT_H

/* Installs the handlers (once per process; later calls do nothing). */
void rt_interrupt_install(void);
/* The signal received (SIGINT, SIGTERM), or 0. */
int rt_interrupt_signal(void);

#endif
