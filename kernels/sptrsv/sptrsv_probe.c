#include "sptrsv_probe.h"

#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"
#include "rt_comm_rma.h"

#define PROBE_BIG   65536
#define PROBE_ROUND 16

void sptrsv_probe_tier_matrix(const rt_comm *comm, int *tier)
{
    sptrsv_probe_tier_matrix_of(comm, rt_comm_world_size(comm), tier);
}

void sptrsv_probe_tier_matrix_of(const rt_comm *comm, int P, int *tier)
{
    for (int a = 0; a < P; ++a)
        for (int b = 0; b < P; ++b) {
            const int same_node = rt_comm_node_of(comm, a) == rt_comm_node_of(comm, b);
            const int same_socket =
                same_node && rt_comm_socket_of(comm, a) == rt_comm_socket_of(comm, b);
            tier[a * P + b] = same_socket ? RT_TIER_SOCKET
                              : same_node ? RT_TIER_NODE
                                          : RT_TIER_GLOBAL;
        }
}

/* One message of `bytes` to `peer`: data at offset 8, then the counter at 0. */
static int send_msg(rt_rma_win *w, int peer, const char *buf, size_t bytes, rt_err *err)
{
    int64_t old = 0;
    if (rt_rma_put(w, buf, bytes, peer, 8, err) != 0 || rt_rma_flush(w, peer, err) != 0 ||
        rt_rma_fetch_add(w, peer, 0, 1, &old, err) != 0)
        return -1;
    return 0;
}

static int wait_count(rt_rma_win *w, int me, int64_t want, rt_err *err)
{
    const double t0 = rt_clock_now();
    for (;;) {
        int64_t v = 0;
        if (rt_rma_atomic_load(w, me, 0, &v, err) != 0)
            return -1;
        if (v >= want)
            return rt_rma_sync(w, err);
        if (rt_clock_now() - t0 > 60.0)
            return rt_err_set(err, "sptrsv probe: rank %d waited 60 s for a ping-pong message", me);
    }
}

/* Seconds per round trip between ranks a and b for messages of `bytes`; *count is the number of
 * messages this rank's counter has received so far (other ranks return at once). */
static int pingpong(rt_rma_win *w, int me, int a, int b, size_t bytes, char *buf, int64_t *count,
                    double *rt, rt_err *err)
{
    *rt = 0.0;
    if (me != a && me != b)
        return 0;
    const double t0 = rt_clock_now();
    for (int i = 0; i < PROBE_ROUND; ++i) {
        ++*count;
        if (me == a) {
            if (send_msg(w, b, buf, bytes, err) != 0 || wait_count(w, me, *count, err) != 0)
                return -1;
        } else if (me == b) {
            if (wait_count(w, me, *count, err) != 0 || send_msg(w, a, buf, bytes, err) != 0)
                return -1;
        }
    }
    *rt = (rt_clock_now() - t0) / PROBE_ROUND;
    return 0;
}

int sptrsv_probe_tiers(rt_comm *comm, sptrsv_costs *c, rt_err *err)
{
    const int P = rt_comm_world_size(comm), me = rt_comm_world_rank(comm);
    int *tier = malloc((size_t)P * (size_t)P * sizeof *tier);
    char *buf = calloc(PROBE_BIG, 1);
    rt_rma_win *w = NULL;
    int ok = tier && buf;
    int rc = -1;
    if (!ok)
        rt_err_set(err, "sptrsv probe: out of memory");
    int all_ok = 0, first = -1;
    if (rt_comm_all_ok(comm, ok, &all_ok, &first) != 0 || !all_ok) {
        if (ok)
            rt_err_set(err, "sptrsv probe: rank %d ran out of memory", first);
        goto done;
    }
    if (rt_rma_win_create(comm, RT_COMM_WORLD, 8 + PROBE_BIG, "sptrsv probe", &w, err) != 0)
        goto done;
    sptrsv_probe_tier_matrix(comm, tier);
    int64_t count = 0;
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        int peer = -1;
        for (int b = 1; b < P && peer < 0; ++b)
            if (tier[b] == t)
                peer = b;
        if (peer < 0)
            continue;
        double small = 0.0, big = 0.0;
        /* Every rank learns whether the pair succeeded before anyone waits in a broadcast. */
        const int pair_ok = pingpong(w, me, 0, peer, 8, buf, &count, &small, err) == 0 &&
                            pingpong(w, me, 0, peer, PROBE_BIG, buf, &count, &big, err) == 0;
        if (rt_comm_all_ok(comm, pair_ok, &all_ok, &first) != 0 || !all_ok) {
            if (pair_ok)
                rt_err_set(err, "sptrsv probe: the ping-pong of rank %d failed", first);
            goto done;
        }
        double lat = small / 2.0, bw = 0.0;
        const double extra = big / 2.0 - lat;
        bw = extra > 0.0 ? (double)PROBE_BIG / extra : (double)PROBE_BIG / (big / 2.0);
        if (rt_comm_bcast_double(comm, &lat, 0, err) != 0 ||
            rt_comm_bcast_double(comm, &bw, 0, err) != 0)
            goto done;
        c->lat_s[t] = lat;
        c->bw_bps[t] = bw;
    }
    rc = 0;
done:
    rt_rma_win_free(w);
    free(tier);
    free(buf);
    return rc;
}
