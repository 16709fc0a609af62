/* rt_counters_cpu: host hardware and software counters. PAPI events are read around one
 * execution in a pass separate from the timed ones (reading them perturbs the timing); LIKWID
 * marker regions wrap the timed executions themselves, as LIKWID intends (under likwid-perfctr
 * each region start and stop reads the counters, microseconds that a very short kernel's samples
 * include; outside it the regions are not entered at all).
 *
 * Names carry their source as a prefix:
 *   papi:<event>     any PAPI preset or native event ("papi:PAPI_TOT_CYC", "papi:perf::TASK-CLOCK")
 *   likwid:<region>  a LIKWID marker region around every timed execution (not a separate pass:
 *                    rt_counters_cpu_timed_begin/end wrap each timed run), read by stop: the
 *                    region's time per execution under the name, and each event of the group
 *                    likwid-perfctr -m -g GROUP started as "<name>:<event>", per execution
 * Each name becomes a metric of the same name. An event the machine cannot read (no PAPI in this
 * build, no hardware counters in a VM, perf_event_paranoid, LIKWID not installed or the run not
 * started under likwid-perfctr) is recorded with rt_metrics_unavailable and the library's reason;
 * it never fails the run. PAPI counts the thread that calls start/stop (and threads it creates
 * afterwards), not an OpenMP pool that already exists: read per-thread values as such. */
#ifndef RT_COUNTERS_CPU_H
#define RT_COUNTERS_CPU_H

#include "rt_error.h"
#include "rt_metrics.h"

#define RT_COUNTERS_CPU_MAX 32

typedef struct rt_counters_cpu rt_counters_cpu;

/* Parses the names and prepares what can be counted. Fails only on bad input (an unknown prefix,
 * an empty or over-long name, more than RT_COUNTERS_CPU_MAX names); events that cannot be read
 * here are kept and reported unavailable by stop. */
int rt_counters_cpu_create(const char *const *names, int n, rt_counters_cpu **out, rt_err *err);
int rt_counters_cpu_start(rt_counters_cpu *ctx, rt_err *err);
/* Stops counting and adds one metric per name to m (value, or unavailable with the reason). */
int rt_counters_cpu_stop(rt_counters_cpu *ctx, rt_metrics *m, rt_err *err);
/* start, fn(arg), stop; when fn fails its error is returned and nothing is recorded. */
int rt_counters_cpu_measure(rt_counters_cpu *ctx, int (*fn)(void *arg, rt_err *err), void *arg,
                            rt_metrics *m, rt_err *err);
void rt_counters_cpu_free(rt_counters_cpu *ctx);

/* LIKWID marker regions around the timed repetitions: reset before a point's first timed
 * execution, begin/end around each one (the kernel's run only); stop then reads what they
 * accumulated. No-ops without LIKWID counters or LIKWID itself. */
void rt_counters_cpu_timed_reset(rt_counters_cpu *ctx);
void rt_counters_cpu_timed_begin(rt_counters_cpu *ctx);
void rt_counters_cpu_timed_end(rt_counters_cpu *ctx);

/* Number of names that will be read (not unavailable already at create). */
int rt_counters_cpu_readable(const rt_counters_cpu *ctx);

#endif
