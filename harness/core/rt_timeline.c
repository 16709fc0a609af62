#include "rt_timeline.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[RT_TIMELINE_KIND_COUNT] = {"kernel", "h2d", "d2h", "d2d",
                                                               "p2p"};

const char *rt_timeline_kind_name(rt_timeline_kind kind)
{
    return (int)kind >= 0 && kind < RT_TIMELINE_KIND_COUNT ? kind_names[kind] : "?";
}

int rt_timeline_kind_parse(const char *s, rt_timeline_kind *kind)
{
    for (int k = 0; s && k < RT_TIMELINE_KIND_COUNT; ++k)
        if (strcmp(s, kind_names[k]) == 0) {
            *kind = (rt_timeline_kind)k;
            return 0;
        }
    return -1;
}

int rt_timeline_add(rt_timeline_list *l, const rt_timeline_record *r, rt_err *err)
{
    if ((int)r->kind < 0 || r->kind >= RT_TIMELINE_KIND_COUNT)
        return rt_err_set(err, "timeline: record kind %d out of range", (int)r->kind);
    if (r->device < 0 || r->device > RT_TIMELINE_DEVICE_MAX)
        return rt_err_set(err, "timeline: a %s record on device %d, not a device from 0 to %d",
                          kind_names[r->kind], r->device, RT_TIMELINE_DEVICE_MAX);
    if (r->end_ns < r->start_ns)
        return rt_err_set(err,
                          "timeline: a %s record on device %d ends (%llu ns) before it starts "
                          "(%llu ns)",
                          kind_names[r->kind], r->device, (unsigned long long)r->end_ns,
                          (unsigned long long)r->start_ns);
    if (l->n == l->cap) {
        const int64_t cap = l->cap > 0 ? 2 * l->cap : 256;
        rt_timeline_record *v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v)
            return rt_err_set(err, "timeline: out of memory for %lld records", (long long)cap);
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = *r;
    return 0;
}

void rt_timeline_clear(rt_timeline_list *l)
{
    l->n = 0;
}

void rt_timeline_free(rt_timeline_list *l)
{
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

void rt_timeline_set_name(char out[RT_TIMELINE_NAME_MAX], const char *name)
{
    size_t i = 0;
    for (; name && name[i] && i + 1 < RT_TIMELINE_NAME_MAX; ++i) {
        const unsigned char c = (unsigned char)name[i];
        out[i] = c < 0x20 || c > 0x7e || c == ',' || c == '"' ? '_' : (char)c;
    }
    out[i] = '\0';
}
