#include "rt_point_wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define POINT_MAGIC 0x52545057u /* "RTPW" */

typedef struct head {
    uint32_t magic;
    uint32_t fixed_bytes; /* sizeof(rt_measured) of the sender */
    int32_t n_samples;
    uint32_t arrays; /* 1: samples, 2: rank minima, 4: rank means */
} head;

int rt_point_wire_pack(const rt_measured *res, void **data, size_t *n, rt_err *err)
{
    const rt_point_record *rec = &res->rec;
    const int32_t ns = rec->n_samples > 0 ? rec->n_samples : 0;
    const double *arrays[3] = {rec->samples, rec->samples_rank_min, rec->samples_rank_avg};
    head h = {.magic = POINT_MAGIC, .fixed_bytes = sizeof *res, .n_samples = ns, .arrays = 0};
    for (int a = 0; a < 3; ++a)
        if (arrays[a] && ns > 0)
            h.arrays |= 1u << a;
    size_t bytes = sizeof h + sizeof *res;
    for (int a = 0; a < 3; ++a)
        if (h.arrays & (1u << a))
            bytes += (size_t)ns * sizeof(double);
    char *buf = malloc(bytes);
    if (!buf)
        return rt_err_set(err, "out of memory packing a point of %d samples", (int)ns);
    rt_measured fixed = *res; /* pointers mean nothing on the other side */
    fixed.rec.samples = fixed.rec.samples_rank_min = fixed.rec.samples_rank_avg = NULL;
    fixed.rec.metrics = NULL;
    size_t o = 0;
    memcpy(buf + o, &h, sizeof h);
    o += sizeof h;
    memcpy(buf + o, &fixed, sizeof fixed);
    o += sizeof fixed;
    for (int a = 0; a < 3; ++a)
        if (h.arrays & (1u << a)) {
            memcpy(buf + o, arrays[a], (size_t)ns * sizeof(double));
            o += (size_t)ns * sizeof(double);
        }
    *data = buf;
    *n = bytes;
    return 0;
}

int rt_point_wire_unpack(const void *data, size_t n, rt_point_wire *out, rt_err *err)
{
    memset(out, 0, sizeof *out);
    head h;
    if (n < sizeof h)
        return rt_err_set(err, "parallel tuning: a point of %zu bytes is too short", n);
    memcpy(&h, data, sizeof h);
    if (h.magic != POINT_MAGIC || h.fixed_bytes != sizeof out->res || h.n_samples < 0 ||
        h.arrays > 7)
        return rt_err_set(err,
                          "parallel tuning: a point that is not this build's (magic 0x%08x, "
                          "%u bytes)",
                          h.magic, h.fixed_bytes);
    size_t want = sizeof h + sizeof out->res;
    for (int a = 0; a < 3; ++a)
        if (h.arrays & (1u << a))
            want += (size_t)h.n_samples * sizeof(double);
    if (n != want)
        return rt_err_set(err, "parallel tuning: a point of %zu bytes, expected %zu", n, want);
    const char *p = (const char *)data + sizeof h;
    memcpy(&out->res, p, sizeof out->res);
    p += sizeof out->res;
    double **arrays[3] = {&out->samples, &out->rank_min, &out->rank_avg};
    for (int a = 0; a < 3; ++a) {
        if (!(h.arrays & (1u << a)))
            continue;
        const size_t bytes = (size_t)h.n_samples * sizeof(double);
        *arrays[a] = malloc(bytes > 0 ? bytes : 1);
        if (!*arrays[a]) {
            rt_point_wire_free(out);
            return rt_err_set(err, "out of memory for a point's %d samples", (int)h.n_samples);
        }
        memcpy(*arrays[a], p, bytes);
        p += bytes;
    }
    /* Text fields travel whole; make sure each is terminated whatever arrived. */
    rt_point_record *rec = &out->res.rec;
    rec->reason[sizeof rec->reason - 1] = '\0';
    rec->params_json[sizeof rec->params_json - 1] = '\0';
    out->res.shown[sizeof out->res.shown - 1] = '\0';
    rec->n_samples = (h.arrays & 1u) ? h.n_samples : 0;
    rec->samples = out->samples;
    rec->samples_rank_min = out->rank_min;
    rec->samples_rank_avg = out->rank_avg;
    rec->metrics = &out->res.metrics;
    if (out->res.metrics.n < 0 || out->res.metrics.n > RT_MAX_METRICS) {
        rt_point_wire_free(out);
        return rt_err_set(err, "parallel tuning: a point with %d metrics", out->res.metrics.n);
    }
    return 0;
}

void rt_point_wire_free(rt_point_wire *p)
{
    free(p->samples);
    free(p->rank_min);
    free(p->rank_avg);
    p->samples = p->rank_min = p->rank_avg = NULL;
}
