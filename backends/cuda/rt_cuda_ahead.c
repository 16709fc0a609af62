#define _POSIX_C_SOURCE 200809L /* strdup */

#include "rt_cuda_ahead.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"

#define AHEAD_MAX_THREADS 64

enum { QUEUED, RUNNING, DONE, FAILED, DROPPED };

/* One variant the pool was asked for. Entries are never removed before destroy: a variant done
 * stays known, so a later submission of it is not compiled (or even read) again. */
typedef struct ahead_entry {
    char *path;                /* its cache file: names the variant (a hash of its whole key) */
    rt_cuda_owned_request own; /* while QUEUED or RUNNING */
    int state;
    double compile_s;
} ahead_entry;

struct rt_cuda_ahead {
    pthread_mutex_t mu;
    pthread_cond_t work; /* a request was queued, or the pool is closing */
    pthread_cond_t done; /* a compile ended */
    pthread_t threads[AHEAD_MAX_THREADS];
    int n_threads;
    int closing;
    ahead_entry **entries; /* in submission order: the queue is the QUEUED ones among them */
    int n_entries, cap_entries;
    int next; /* entries before it are not QUEUED */
    char **failures;
    int n_failures, cap_failures;
    rt_cuda_ahead_stats stats;
};

/* The first QUEUED entry, or NULL; called with the lock held. */
static ahead_entry *next_queued(rt_cuda_ahead *a)
{
    while (a->next < a->n_entries && a->entries[a->next]->state != QUEUED)
        ++a->next;
    return a->next < a->n_entries ? a->entries[a->next] : NULL;
}

static ahead_entry *find(const rt_cuda_ahead *a, const char *path)
{
    for (int i = a->n_entries - 1; i >= 0; --i)
        if (strcmp(a->entries[i]->path, path) == 0)
            return a->entries[i];
    return NULL;
}

/* Keeps a failure's message; a failure that cannot be kept for lack of memory is still counted. */
static void record_failure(rt_cuda_ahead *a, const char *msg)
{
    if (a->n_failures == a->cap_failures) {
        const int cap = a->cap_failures ? 2 * a->cap_failures : 8;
        char **grown = realloc(a->failures, (size_t)cap * sizeof *grown);
        if (!grown)
            return;
        a->failures = grown;
        a->cap_failures = cap;
    }
    char *copy = strdup(msg);
    if (copy)
        a->failures[a->n_failures++] = copy;
}

static void *pool_main(void *arg)
{
    rt_cuda_ahead *a = arg;
    pthread_mutex_lock(&a->mu);
    for (;;) {
        ahead_entry *e = a->closing ? NULL : next_queued(a);
        if (!e) {
            if (a->closing)
                break;
            pthread_cond_wait(&a->work, &a->mu);
            continue;
        }
        e->state = RUNNING;
        --a->stats.queued;
        ++a->stats.running;
        pthread_mutex_unlock(&a->mu);

        /* The entry's request is this thread's alone while RUNNING. */
        rt_cuda_image img;
        rt_err err;
        rt_err_clear(&err);
        const int rc = rt_cuda_compile(&e->own.req, &img, &err);
        const int from_cache = rc == 0 && img.from_cache;
        const double compile_s = rc == 0 ? img.compile_s : 0.0;
        rt_cuda_image_free(&img); /* rt_cuda_compile zeroes it first: nothing on failure */
        rt_cuda_request_release(&e->own);

        pthread_mutex_lock(&a->mu);
        --a->stats.running;
        e->compile_s = compile_s;
        if (rc != 0) {
            e->state = FAILED;
            ++a->stats.failed;
            record_failure(a, err.msg);
        } else {
            e->state = DONE;
            a->stats.compiled += !from_cache;
            a->stats.cached += from_cache;
            a->stats.compile_s += compile_s;
        }
        pthread_cond_broadcast(&a->done);
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

int rt_cuda_ahead_create(int threads, rt_cuda_ahead **out, rt_err *err)
{
    *out = NULL;
    if (threads < 1 || threads > AHEAD_MAX_THREADS)
        return rt_err_set(err, "compile-ahead pool of %d threads (1 to %d)", threads,
                          AHEAD_MAX_THREADS);
    rt_cuda_ahead *a = calloc(1, sizeof *a);
    if (!a)
        return rt_err_set(err, "out of memory creating the compile-ahead pool");
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->work, NULL);
    pthread_cond_init(&a->done, NULL);
    for (int i = 0; i < threads; ++i) {
        if (pthread_create(&a->threads[i], NULL, pool_main, a) != 0) {
            rt_cuda_ahead_destroy(a);
            return rt_err_set(err, "cannot start compile-ahead thread %d of %d", i + 1, threads);
        }
        a->n_threads = i + 1;
    }
    *out = a;
    return 0;
}

int rt_cuda_ahead_submit(rt_cuda_ahead *a, const rt_cuda_compile_request *req, rt_err *err)
{
    if (!a)
        return rt_err_set(err, "no compile-ahead pool");
    if (!req || !req->cache_dir || !*req->cache_dir)
        return rt_err_set(err, "%s: a compile ahead needs the variant cache, which is off",
                          req && req->source_name ? req->source_name : "(no source)");
    char path[4096];
    if (rt_cuda_cache_path(req, path, sizeof path, err) != 0)
        return rt_err_prefix(err, "compile ahead");

    ahead_entry *e = calloc(1, sizeof *e);
    if (!e || !(e->path = strdup(path)) || rt_cuda_request_copy(req, &e->own) != 0) {
        if (e)
            free(e->path);
        free(e);
        return rt_err_set(err, "out of memory queueing the compile of %s", req->source_name);
    }
    e->own.req.skip_cache_read = 0;
    e->state = QUEUED;

    pthread_mutex_lock(&a->mu);
    const char *refused = NULL;
    if (a->closing)
        refused = "the compile-ahead pool is closing";
    else if (!find(a, path) && a->n_entries == a->cap_entries) {
        const int cap = a->cap_entries ? 2 * a->cap_entries : 32;
        ahead_entry **grown = realloc(a->entries, (size_t)cap * sizeof *grown);
        if (grown) {
            a->entries = grown;
            a->cap_entries = cap;
        } else
            refused = "out of memory";
    }
    int queued = 0;
    if (!refused && !find(a, path)) {
        a->entries[a->n_entries++] = e;
        ++a->stats.submitted;
        ++a->stats.queued;
        queued = 1;
        pthread_cond_signal(&a->work);
    }
    pthread_mutex_unlock(&a->mu);
    if (!queued) {
        rt_cuda_request_release(&e->own);
        free(e->path);
        free(e);
    }
    if (refused)
        return rt_err_set(err, "cannot queue the compile of %s (%s): %s", req->source_name,
                          req->entry, refused);
    return 0;
}

int rt_cuda_ahead_claim(rt_cuda_ahead *a, const rt_cuda_compile_request *req, double *ahead_s,
                        double *waited_s)
{
    *ahead_s = 0.0;
    *waited_s = 0.0;
    char path[4096];
    rt_err ignored;
    /* A request with no cache or a bad key was never queued; the caller's compile says why. */
    if (!a || !req || !req->cache_dir || !*req->cache_dir ||
        rt_cuda_cache_path(req, path, sizeof path, &ignored) != 0)
        return 0;
    const double t0 = rt_clock_now();
    pthread_mutex_lock(&a->mu);
    ahead_entry *e = find(a, path);
    if (e && e->state == QUEUED) {
        e->state = DROPPED;
        --a->stats.queued;
        ++a->stats.dropped;
        rt_cuda_request_release(&e->own);
    }
    while (e && e->state == RUNNING)
        pthread_cond_wait(&a->done, &a->mu);
    const int ahead = e && e->state == DONE;
    if (ahead)
        *ahead_s = e->compile_s;
    pthread_mutex_unlock(&a->mu);
    *waited_s = rt_clock_now() - t0;
    return ahead;
}

void rt_cuda_ahead_drain(rt_cuda_ahead *a)
{
    if (!a)
        return;
    pthread_mutex_lock(&a->mu);
    while (a->stats.queued > 0 || a->stats.running > 0)
        pthread_cond_wait(&a->done, &a->mu);
    pthread_mutex_unlock(&a->mu);
}

void rt_cuda_ahead_get_stats(rt_cuda_ahead *a, rt_cuda_ahead_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!a)
        return;
    pthread_mutex_lock(&a->mu);
    *out = a->stats;
    pthread_mutex_unlock(&a->mu);
}

int rt_cuda_ahead_failure(rt_cuda_ahead *a, int i, char *buf, size_t len)
{
    if (len > 0)
        buf[0] = '\0';
    if (!a)
        return -1;
    pthread_mutex_lock(&a->mu);
    const int ok = i >= 0 && i < a->n_failures;
    if (ok)
        snprintf(buf, len, "%s", a->failures[i]);
    pthread_mutex_unlock(&a->mu);
    return ok ? 0 : -1;
}

void rt_cuda_ahead_destroy(rt_cuda_ahead *a)
{
    if (!a)
        return;
    pthread_mutex_lock(&a->mu);
    a->closing = 1;
    /* What no thread has started is dropped: a shutdown waits for no queue. */
    for (ahead_entry *e; (e = next_queued(a)) != NULL;) {
        e->state = DROPPED;
        --a->stats.queued;
        ++a->stats.dropped;
        rt_cuda_request_release(&e->own);
    }
    pthread_cond_broadcast(&a->work);
    pthread_mutex_unlock(&a->mu);
    for (int i = 0; i < a->n_threads; ++i)
        pthread_join(a->threads[i], NULL);
    for (int i = 0; i < a->n_entries; ++i) {
        rt_cuda_request_release(&a->entries[i]->own);
        free(a->entries[i]->path);
        free(a->entries[i]);
    }
    free(a->entries);
    for (int i = 0; i < a->n_failures; ++i)
        free(a->failures[i]);
    free(a->failures);
    pthread_cond_destroy(&a->done);
    pthread_cond_destroy(&a->work);
    pthread_mutex_destroy(&a->mu);
    free(a);
}
