/* rt_prefetch: see rt_prefetch.h. */
#include "rt_prefetch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_clock.h"
#include "rt_shared_matrix.h"
#include "rt_walk.h"

struct rt_prefetch {
    const rt_matrix_cfg *mc;
    int index;
    pthread_t thread;
    pthread_mutex_t lock; /* guards done */
    int done;             /* the thread's result is written */
    int joined;
    rt_prefetch_result res; /* written by the thread, read after done */
};

static void *build(void *arg)
{
    rt_prefetch *p = arg;
    rt_prefetch_result *r = &p->res;
    rt_err err;
    rt_err_clear(&err);
    rt_csr m;
    memset(&m, 0, sizeof m);
    r->begin = rt_clock_epoch();
    if (rt_walk_build_matrix(p->mc, &m, &err) == 0 &&
        rt_shared_matrix_create(&m, &r->fd, &err) == 0) {
        r->rows = m.rows;
        r->cols = m.cols;
        r->nnz = m.nnz;
    } else {
        snprintf(r->failed, sizeof r->failed, "%s", err.msg[0] ? err.msg : "unknown failure");
    }
    rt_csr_free(&m);
    r->end = rt_clock_epoch();
    pthread_mutex_lock(&p->lock);
    p->done = 1;
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

int rt_prefetch_start(const rt_matrix_cfg *mc, int index, rt_prefetch **out, rt_err *err)
{
    *out = NULL;
    rt_prefetch *p = calloc(1, sizeof *p);
    if (!p)
        return rt_err_set(err, "out of memory building matrix '%s' ahead", mc->name);
    p->mc = mc;
    p->index = index;
    p->res.fd = -1;
    pthread_mutex_init(&p->lock, NULL);
    const int rc = pthread_create(&p->thread, NULL, build, p);
    if (rc != 0) {
        pthread_mutex_destroy(&p->lock);
        free(p);
        return rt_err_set(err, "building matrix '%s' ahead: no thread: %s", mc->name, strerror(rc));
    }
    *out = p;
    return 0;
}

int rt_prefetch_index(const rt_prefetch *p)
{
    return p->index;
}

int rt_prefetch_ready(rt_prefetch *p)
{
    pthread_mutex_lock(&p->lock);
    const int done = p->done;
    pthread_mutex_unlock(&p->lock);
    return done;
}

rt_prefetch_result *rt_prefetch_wait(rt_prefetch *p)
{
    if (!p->joined) {
        pthread_join(p->thread, NULL);
        p->joined = 1;
    }
    return &p->res;
}

void rt_prefetch_free(rt_prefetch *p)
{
    if (!p)
        return;
    rt_prefetch_wait(p);
    if (p->res.fd >= 0)
        close(p->res.fd);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
