#include "rt_metrics.h"

#include <stdio.h>
#include <string.h>

void rt_metrics_init(rt_metrics *m)
{
    memset(m, 0, sizeof *m);
}

static rt_metric *slot(rt_metrics *m, const char *name)
{
    for (int k = 0; k < m->n; ++k)
        if (strcmp(m->item[k].name, name) == 0)
            return &m->item[k];
    if (m->n >= RT_MAX_METRICS)
        return NULL;
    rt_metric *s = &m->item[m->n++];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    return s;
}

int rt_metrics_add(rt_metrics *m, const char *name, const char *unit, double value,
                   int deterministic)
{
    rt_metric *s = slot(m, name);
    if (!s)
        return -1;
    snprintf(s->unit, sizeof s->unit, "%s", unit ? unit : "");
    s->available = 1;
    s->deterministic = deterministic;
    s->value = value;
    s->reason[0] = '\0';
    return 0;
}

int rt_metrics_unavailable(rt_metrics *m, const char *name, const char *unit, const char *reason)
{
    rt_metric *s = slot(m, name);
    if (!s)
        return -1;
    snprintf(s->unit, sizeof s->unit, "%s", unit ? unit : "");
    s->available = 0;
    s->deterministic = 0;
    s->value = 0.0;
    snprintf(s->reason, sizeof s->reason, "%s", reason ? reason : "unavailable");
    return 0;
}

const rt_metric *rt_metrics_get(const rt_metrics *m, const char *name)
{
    for (int k = 0; k < m->n; ++k)
        if (strcmp(m->item[k].name, name) == 0)
            return &m->item[k];
    return NULL;
}
