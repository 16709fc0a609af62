/* Recorded tuning spaces (Kernel Tuner caches and T4 files, plain or gzip-compressed): the input is
 * the file, read the way `rooftune replay` reads it. What loads must hold together (configurations
 * in ascending grid order, each time positive or a failure) and survive a round trip through T4,
 * plain and compressed, with the same configurations, valid count and optimum. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_fuzz.h"
#include "rt_recorded.h"

static void check_space(const rt_recorded *r)
{
    if (r->n_points < 1)
        abort();
    for (int64_t i = 0; i < r->n_points; ++i) {
        if (i > 0 && r->index[i] <= r->index[i - 1])
            abort();
        const double t = r->time[i];
        if (!(t == INFINITY || (t > 0 && t <= RT_RECORDED_TIME_MAX)))
            abort();
        if (!(isnan(r->bound[i]) || r->bound[i] > 0))
            abort();
    }
}

static void round_trip(const rt_recorded *r, const char *name)
{
    /* The scratch path is reused by rt_fuzz_write_file: keep a copy. */
    const char *dir_file = rt_fuzz_write_file(name, (const uint8_t *)"", 0);
    if (!dir_file)
        return;
    char path[4300];
    snprintf(path, sizeof path, "%s", dir_file);
    rt_err err;
    if (rt_recorded_write_t4(r, path, &err) != 0) {
        fprintf(stderr, "write_t4 failed on a space that loaded: %s\n", err.msg);
        abort();
    }
    rt_recorded *back = NULL;
    if (rt_recorded_load(path, NULL, &back, &err) != 0) {
        fprintf(stderr, "the T4 file rooftune wrote does not load: %s\n", err.msg);
        abort();
    }
    int64_t valid = 0, valid_back = 0;
    const double opt = rt_recorded_optimum(r, &valid),
                 opt_back = rt_recorded_optimum(back, &valid_back);
    if (back->n_points != r->n_points || valid != valid_back ||
        !(opt == opt_back || fabs(opt - opt_back) <= 1e-12 * fabs(opt))) {
        fprintf(stderr,
                "round trip changed the space: %lld/%lld configurations, %lld/%lld valid, "
                "optimum %.17g/%.17g\n",
                (long long)r->n_points, (long long)back->n_points, (long long)valid,
                (long long)valid_back, opt, opt_back);
        abort();
    }
    rt_recorded_free(back);
}

void rt_fuzz_recorded(const uint8_t *data, size_t size)
{
    if (size > (1u << 20))
        return;
    const char *path = rt_fuzz_write_file("space.json", data, size);
    if (!path)
        return;
    char copy[4300];
    snprintf(copy, sizeof copy, "%s", path);
    rt_err err;
    rt_recorded *r = NULL;
    if (rt_recorded_load(copy, NULL, &r, &err) != 0) {
        if (!err.msg[0])
            abort(); /* every refusal says why */
        return;
    }
    check_space(r);
    round_trip(r, "back.json");
    round_trip(r, "back.json.gz");
    rt_recorded_free(r);
}
