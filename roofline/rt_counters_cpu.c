/* rt_counters_cpu: PAPI event sets and LIKWID marker regions behind one start/stop interface. */
#include "rt_counters_cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef RT_HAVE_PAPI
#include <papi.h>
#endif
#ifdef RT_HAVE_LIKWID
#include <likwid.h>
#endif

typedef enum counter_source { SRC_PAPI = 0, SRC_LIKWID = 1 } counter_source;

typedef struct counter {
    char name[64]; /* as given, also the metric name */
    counter_source source;
    const char *event; /* points into name, past the prefix */
    int readable;      /* 0: reason says why */
    char unit[16];
    char reason[160];
    int slot; /* index in the PAPI event set's values */
} counter;

struct rt_counters_cpu {
    int n;
    counter c[RT_COUNTERS_CPU_MAX];
    int running;
    int n_papi; /* events in the PAPI event set */
#ifdef RT_HAVE_PAPI
    int event_set;
#endif
};

static void mark_unavailable(counter *c, const char *why)
{
    c->readable = 0;
    snprintf(c->reason, sizeof c->reason, "%s", why);
}

#ifdef RT_HAVE_PAPI
/* PAPI's own words plus, when the event's component is disabled, the component's reason (e.g.
 * "perf_event_paranoid too high"), so the user learns what to change. */
static void papi_reason(int rc, int code, char *out, size_t len)
{
    const char *what = PAPI_strerror(rc);
    const char *comp_reason = "";
    if (code != 0) {
        const int cidx = PAPI_get_event_component(code);
        const PAPI_component_info_t *ci = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;
        if (ci && ci->disabled && ci->disabled_reason[0])
            comp_reason = ci->disabled_reason;
    }
    snprintf(out, len, "PAPI: %s%s%s", what ? what : "unknown error", comp_reason[0] ? "; " : "",
             comp_reason);
}

static void papi_setup(rt_counters_cpu *ctx)
{
    int rc = PAPI_VER_CURRENT;
    if (PAPI_is_initialized() == PAPI_NOT_INITED)
        rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (rc != PAPI_VER_CURRENT) {
        char why[160];
        snprintf(why, sizeof why, "PAPI_library_init failed: %s",
                 rc > 0 ? "PAPI header/library version mismatch" : PAPI_strerror(rc));
        for (int i = 0; i < ctx->n; ++i)
            if (ctx->c[i].source == SRC_PAPI)
                mark_unavailable(&ctx->c[i], why);
        return;
    }
    rc = PAPI_create_eventset(&ctx->event_set);
    for (int i = 0; i < ctx->n; ++i) {
        counter *c = &ctx->c[i];
        if (c->source != SRC_PAPI)
            continue;
        if (rc != PAPI_OK) {
            char why[160];
            papi_reason(rc, 0, why, sizeof why);
            mark_unavailable(c, why);
            continue;
        }
        int code = 0;
        int erc = PAPI_event_name_to_code(c->event, &code);
        if (erc == PAPI_OK)
            erc = PAPI_query_event(code);
        if (erc == PAPI_OK)
            erc = PAPI_add_event(ctx->event_set, code);
        if (erc != PAPI_OK) {
            char why[160];
            papi_reason(erc, code, why, sizeof why);
            /* PAPI_ENOEVNT on a preset means no native event backs it here: say which kind of
             * machine that is, since "Event does not exist" alone reads like a typo. */
            if (erc == PAPI_ENOEVNT && strncmp(c->event, "PAPI_", 5) == 0)
                snprintf(c->reason, sizeof c->reason,
                         "%s (preset %s has no hardware counter "
                         "behind it on this machine, e.g. a VM without a PMU)",
                         why, c->event);
            else
                snprintf(c->reason, sizeof c->reason, "%s (event '%s')", why, c->event);
            c->readable = 0;
            continue;
        }
        PAPI_event_info_t info;
        if (PAPI_get_event_info(code, &info) == PAPI_OK && info.units[0])
            snprintf(c->unit, sizeof c->unit, "%s", info.units);
        else if (strstr(c->event, "TASK-CLOCK") || strstr(c->event, "CPU-CLOCK"))
            snprintf(c->unit, sizeof c->unit, "ns"); /* perf's software clocks count ns */
        c->slot = ctx->n_papi++;
    }
}
#endif

int rt_counters_cpu_create(const char *const *names, int n, rt_counters_cpu **out, rt_err *err)
{
    *out = NULL;
    if (n < 0 || n > RT_COUNTERS_CPU_MAX)
        return rt_err_set(err, "counters: %d names given, at most %d are supported", n,
                          RT_COUNTERS_CPU_MAX);
    rt_counters_cpu *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return rt_err_set(err, "counters: out of memory");
#ifdef RT_HAVE_PAPI
    ctx->event_set = PAPI_NULL;
#endif
    for (int i = 0; i < n; ++i) {
        const char *name = names[i];
        counter *c = &ctx->c[i];
        if (!name || !name[0]) {
            free(ctx);
            return rt_err_set(err, "counters[%d]: empty counter name", i);
        }
        if (strlen(name) >= sizeof c->name) {
            free(ctx);
            return rt_err_set(err, "counters[%d]: '%s' is longer than %zu characters", i, name,
                              sizeof c->name - 1);
        }
        snprintf(c->name, sizeof c->name, "%s", name);
        snprintf(c->unit, sizeof c->unit, "count");
        c->readable = 1;
        if (strncmp(name, "papi:", 5) == 0) {
            c->source = SRC_PAPI;
            c->event = c->name + 5;
        } else if (strncmp(name, "likwid:", 7) == 0) {
            c->source = SRC_LIKWID;
            c->event = c->name + 7;
        } else {
            free(ctx);
            return rt_err_set(err,
                              "counters[%d]: '%s' has no known source prefix; CPU counters "
                              "are 'papi:<event>' (e.g. papi:perf::TASK-CLOCK) or "
                              "'likwid:<region>'",
                              i, name);
        }
        if (!c->event[0]) {
            free(ctx);
            return rt_err_set(err, "counters[%d]: '%s' names no event after the prefix", i, name);
        }
        for (int j = 0; j < i; ++j)
            if (strcmp(ctx->c[j].name, name) == 0) {
                free(ctx);
                return rt_err_set(err, "counters[%d]: '%s' is listed twice", i, name);
            }
    }
    ctx->n = n;
#ifdef RT_HAVE_PAPI
    papi_setup(ctx);
#else
    for (int i = 0; i < n; ++i)
        if (ctx->c[i].source == SRC_PAPI)
            mark_unavailable(&ctx->c[i], "PAPI support not compiled in (papi.pc not found when "
                                         "rooftune was configured)");
#endif
    for (int i = 0; i < n; ++i) {
        counter *c = &ctx->c[i];
        if (c->source != SRC_LIKWID)
            continue;
#ifdef RT_HAVE_LIKWID
        /* The marker API only counts when likwid-perfctr -m started the process (it exports
         * LIKWID_MODE and the event list); otherwise the regions read zero. */
        if (!getenv("LIKWID_MODE"))
            mark_unavailable(c, "LIKWID marker regions count only under likwid-perfctr -m -g "
                                "<group>; this run was not started that way");
#else
        mark_unavailable(c, "LIKWID support not compiled in (likwid.h/liblikwid not found when "
                            "rooftune was configured)");
#endif
    }
#ifdef RT_HAVE_LIKWID
    likwid_markerInit();
#endif
    *out = ctx;
    return 0;
}

#ifdef RT_HAVE_LIKWID
/* A marker region's reading, per timed execution: the region's time as the counter's own metric
 * (seconds), and each event of likwid-perfctr's active group as "<name>:<event>" (counts). A
 * region that recorded no execution (the marker API inactive: the process was not started by
 * likwid-perfctr -m, which exports LIKWID_EVENTS) is unavailable with that reason, never 0. */
static int likwid_region_metrics(const counter *c, rt_metrics *m)
{
    int nev = RT_COUNTERS_CPU_MAX, count = 0;
    double ev[RT_COUNTERS_CPU_MAX] = {0}, t = 0;
    likwid_markerGetRegion(c->event, &nev, ev, &t, &count);
    if (count <= 0) {
        char why[200];
        snprintf(why, sizeof why,
                 "LIKWID marker region '%s' recorded no timed execution: the marker API is not "
                 "active (likwid-perfctr -m -g <group> starts it%s)",
                 c->event, getenv("LIKWID_EVENTS") ? "" : "; LIKWID_EVENTS is unset");
        return rt_metrics_unavailable(m, c->name, "s", why);
    }
    int dropped = rt_metrics_add(m, c->name, "s", t / count, 0) != 0;
    const int group = perfmon_getIdOfActiveGroup();
    for (int e = 0; e < nev && e < RT_COUNTERS_CPU_MAX; ++e) {
        const char *event = group >= 0 ? perfmon_getEventName(group, e) : NULL;
        char name[64], index[16];
        snprintf(index, sizeof index, "event%d", e);
        if (snprintf(name, sizeof name, "%s:%s", c->name, event && *event ? event : index) >=
            (int)sizeof name)
            snprintf(name, sizeof name, "%s:%s", c->name, index);
        dropped |= rt_metrics_add(m, name, "count", ev[e] / count, 0) != 0;
    }
    return dropped ? -1 : 0;
}
#endif

void rt_counters_cpu_timed_reset(rt_counters_cpu *ctx)
{
#ifdef RT_HAVE_LIKWID
    for (int i = 0; i < ctx->n; ++i)
        if (ctx->c[i].source == SRC_LIKWID && ctx->c[i].readable)
            likwid_markerResetRegion(ctx->c[i].event);
#else
    (void)ctx;
#endif
}

void rt_counters_cpu_timed_begin(rt_counters_cpu *ctx)
{
#ifdef RT_HAVE_LIKWID
    for (int i = 0; i < ctx->n; ++i)
        if (ctx->c[i].source == SRC_LIKWID && ctx->c[i].readable)
            likwid_markerStartRegion(ctx->c[i].event);
#else
    (void)ctx;
#endif
}

void rt_counters_cpu_timed_end(rt_counters_cpu *ctx)
{
#ifdef RT_HAVE_LIKWID
    for (int i = 0; i < ctx->n; ++i)
        if (ctx->c[i].source == SRC_LIKWID && ctx->c[i].readable)
            likwid_markerStopRegion(ctx->c[i].event);
#else
    (void)ctx;
#endif
}

int rt_counters_cpu_readable(const rt_counters_cpu *ctx)
{
    int k = 0;
    for (int i = 0; i < ctx->n; ++i)
        k += ctx->c[i].readable;
    return k;
}

int rt_counters_cpu_start(rt_counters_cpu *ctx, rt_err *err)
{
    if (ctx->running)
        return rt_err_set(err, "counters: start called twice without stop");
#ifdef RT_HAVE_PAPI
    if (ctx->n_papi > 0) {
        const int rc = PAPI_start(ctx->event_set);
        if (rc != PAPI_OK) {
            /* Not fatal: the events become unavailable with the reason, the run goes on. */
            char why[160];
            papi_reason(rc, 0, why, sizeof why);
            for (int i = 0; i < ctx->n; ++i)
                if (ctx->c[i].source == SRC_PAPI && ctx->c[i].readable) {
                    snprintf(ctx->c[i].reason, sizeof ctx->c[i].reason, "PAPI_start: %s", why);
                    ctx->c[i].readable = 0;
                }
            ctx->n_papi = 0;
        }
    }
#endif
    ctx->running = 1;
    return 0;
}

int rt_counters_cpu_stop(rt_counters_cpu *ctx, rt_metrics *m, rt_err *err)
{
    if (!ctx->running)
        return rt_err_set(err, "counters: stop called without start");
    ctx->running = 0;
    long long values[RT_COUNTERS_CPU_MAX] = {0};
#ifdef RT_HAVE_PAPI
    if (ctx->n_papi > 0) {
        const int rc = PAPI_stop(ctx->event_set, values);
        if (rc != PAPI_OK) {
            char why[160];
            papi_reason(rc, 0, why, sizeof why);
            for (int i = 0; i < ctx->n; ++i)
                if (ctx->c[i].source == SRC_PAPI && ctx->c[i].readable) {
                    snprintf(ctx->c[i].reason, sizeof ctx->c[i].reason, "PAPI_stop: %s", why);
                    ctx->c[i].readable = 0;
                }
        }
    }
#endif
    int dropped = 0;
    for (int i = 0; i < ctx->n; ++i) {
        const counter *c = &ctx->c[i];
        if (!c->readable) {
            dropped |= rt_metrics_unavailable(m, c->name, c->unit, c->reason) != 0;
            continue;
        }
        if (c->source == SRC_PAPI) {
            dropped |= rt_metrics_add(m, c->name, c->unit, (double)values[c->slot], 0) != 0;
        } else {
#ifdef RT_HAVE_LIKWID
            dropped |= likwid_region_metrics(c, m) != 0;
#endif
        }
    }
    if (dropped)
        return rt_err_set(err,
                          "counters: the point already holds %d metrics; some counters "
                          "were dropped",
                          RT_MAX_METRICS);
    return 0;
}

int rt_counters_cpu_measure(rt_counters_cpu *ctx, int (*fn)(void *arg, rt_err *err), void *arg,
                            rt_metrics *m, rt_err *err)
{
    if (rt_counters_cpu_start(ctx, err) != 0)
        return -1;
    if (fn(arg, err) != 0) {
        rt_metrics scratch;
        rt_metrics_init(&scratch);
        rt_err ignored;
        rt_counters_cpu_stop(ctx, &scratch, &ignored);
        return -1;
    }
    return rt_counters_cpu_stop(ctx, m, err);
}

void rt_counters_cpu_free(rt_counters_cpu *ctx)
{
    if (!ctx)
        return;
#ifdef RT_HAVE_PAPI
    if (ctx->running && ctx->n_papi > 0) {
        long long values[RT_COUNTERS_CPU_MAX];
        PAPI_stop(ctx->event_set, values);
    }
    if (ctx->event_set != PAPI_NULL && PAPI_is_initialized() != PAPI_NOT_INITED) {
        PAPI_cleanup_eventset(ctx->event_set);
        PAPI_destroy_eventset(&ctx->event_set);
    }
#endif
#ifdef RT_HAVE_LIKWID
    likwid_markerClose();
#endif
    free(ctx);
}
