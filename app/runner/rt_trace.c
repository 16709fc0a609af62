/* rt_trace: the run's activity timeline, point by point; see rt_trace.h. */
#include "rt_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_outfile.h"
#include "rt_path.h"
#include "rt_timeline.h"
#include "rt_timeline_csv.h"

struct rt_trace {
    char path[4096];
    const rt_backend *be;
    rt_timeline_list all;   /* every traced point's records, with their point */
    rt_timeline_list point; /* the point being traced: the plugin appends here */
    char point_key[RT_TIMELINE_POINT_MAX];
    int tracing; /* between a successful start and its stop */
    int failed;  /* err holds why; nothing more is traced */
    rt_err err;
};

int rt_trace_path(const char *path, int rank, int nranks, char *out, size_t len, rt_err *err)
{
    if (!path || !path[0])
        return rt_err_set(err, "--timeline: no file given");
    if (nranks <= 1)
        return rt_path_format(out, len, err, "%s", path);
    size_t stem = strlen(path);
    if (stem > 4 && strcmp(path + stem - 4, ".csv") == 0)
        stem -= 4;
    return rt_path_format(out, len, err, "%.*s.rank%d.csv", (int)stem, path, rank);
}

int rt_trace_open(const char *path, const rt_backend *be, int rank, int nranks, rt_trace **out,
                  rt_err *err)
{
    *out = NULL;
    if (!be->cuda_loaded)
        return rt_err_set(err,
                          "--timeline %s: the timeline records GPU activity through the CUDA "
                          "backend (CUPTI), which is not loaded here (%s)",
                          path, be->cuda_status);
    if (!be->plugin->timeline_start || !be->plugin->timeline_stop)
        return rt_err_set(err, "--timeline %s: this CUDA plugin records no timeline", path);
    rt_trace *t = calloc(1, sizeof *t);
    if (!t)
        return rt_err_set(err, "--timeline: out of memory");
    /* The folder is made now, as --db's is, and the file tried (and left as it was): a name the
     * CSV cannot take (a folder, a read-only file) is refused before the run, not after it. */
    rt_outfile probe = RT_OUTFILE_NONE;
    if (rt_trace_path(path, rank, nranks, t->path, sizeof t->path, err) != 0 ||
        rt_path_make_parent(t->path, err) != 0 || rt_outfile_open(&probe, t->path, err) != 0) {
        free(t);
        return rt_err_prefix(err, "--timeline %s", path);
    }
    rt_outfile_abort(&probe);
    t->be = be;
    *out = t;
    return 0;
}

void rt_trace_point_begin(rt_trace *t, const char *point_key)
{
    if (!t || t->failed)
        return;
    rt_timeline_clear(&t->point);
    snprintf(t->point_key, sizeof t->point_key, "%s", point_key);
    if (t->be->plugin->timeline_start(t->be->plugin_state, &t->point, &t->err) != 0) {
        rt_err_prefix(&t->err, "point %s", t->point_key);
        t->failed = 1;
        return;
    }
    t->tracing = 1;
}

void rt_trace_point_end(rt_trace *t)
{
    if (!t || !t->tracing)
        return;
    t->tracing = 0;
    if (t->be->plugin->timeline_stop(t->be->plugin_state, &t->err) != 0) {
        rt_err_prefix(&t->err, "point %s", t->point_key);
        t->failed = 1;
        return;
    }
    for (int64_t i = 0; i < t->point.n; ++i) {
        rt_timeline_record r = t->point.v[i];
        snprintf(r.point, sizeof r.point, "%s", t->point_key);
        if (rt_timeline_add(&t->all, &r, &t->err) != 0) {
            t->failed = 1;
            return;
        }
    }
}

void rt_trace_free(rt_trace *t)
{
    if (!t)
        return;
    if (t->tracing) /* a run that ended inside a point: stop recording into memory about to go */
        t->be->plugin->timeline_stop(t->be->plugin_state, &t->err);
    rt_timeline_free(&t->all);
    rt_timeline_free(&t->point);
    free(t);
}

int rt_trace_close(rt_trace *t, long long *n_records, rt_err *err)
{
    *n_records = 0;
    if (!t)
        return 0;
    int rc = 0;
    if (t->tracing)
        rt_trace_point_end(t);
    if (t->failed) {
        *err = t->err;
        rc = rt_err_prefix(err, "--timeline %s: nothing written", t->path);
    } else if (rt_timeline_csv_save(t->path, &t->all, err) != 0) {
        rc = -1;
    } else {
        *n_records = (long long)t->all.n;
    }
    rt_trace_free(t);
    return rc;
}
