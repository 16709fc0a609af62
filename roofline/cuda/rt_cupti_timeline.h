/* rt_cupti_timeline: the activity timeline of the CUDA plugin (rt_plugin_api.timeline_start and
 * .timeline_stop, backends/rt_plugin.h) from CUPTI's activity API: every kernel execution
 * (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, which keeps kernels concurrent, unlike KIND_KERNEL) and
 * every copy (KIND_MEMCPY: host to device, device to host, within a device; KIND_MEMCPY2: peer to
 * peer) of every device of the process, as rt_timeline records.
 *
 * CUPTI hands its record buffers to a C callback that takes no user pointer, so the list being
 * filled is the one piece of state this module keeps (file-static, behind a mutex: CUPTI may call
 * back from a thread of its own); start installs it, stop flushes, disables the kinds and removes
 * it again. One timeline at a time per process.
 *
 * The activity API and the range profiler of the counters (rt_cupti.cu) are not used together:
 * `rooftune run` refuses --timeline with counters (app/cli/rt_cli_run.c). */
#ifndef RT_CUPTI_TIMELINE_H
#define RT_CUPTI_TIMELINE_H

#ifdef __cplusplus
extern "C" {
#endif

#include "rt_error.h"
#include "rt_timeline.h"

/* Enables the activity kinds and starts appending records to *into (which must outlive the
 * matching stop). -1 with CUPTI's reason when CUPTI refuses (nothing is then left enabled), or
 * when a timeline is being recorded already. plugin_state is not looked into. */
int rt_cupti_timeline_start(void *plugin_state, rt_timeline_list *into, rt_err *err);

/* Delivers every record CUPTI holds (a forced flush: call it once the traced work has finished,
 * as a point's repetitions have), disables the kinds and forgets the list. -1 with the reason
 * when CUPTI failed, dropped records for want of a buffer, or delivered records without
 * timestamps (the timeline would be incomplete and its overlap wrong), or a record could not be
 * kept; the timeline is stopped either way. */
int rt_cupti_timeline_stop(void *plugin_state, rt_err *err);

#ifdef __cplusplus
}
#endif

#endif
