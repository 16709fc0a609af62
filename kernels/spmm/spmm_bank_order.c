#include "spmm_bank_order.h"

#include <inttypes.h>
#include <string.h>

int32_t rt_bank_order_degree(const int32_t *lane_of, const int32_t *key_of, int32_t n,
                             int32_t lanes, int32_t keys, int32_t *counts)
{
    memset(counts, 0, (size_t)(lanes + keys) * sizeof *counts);
    int32_t degree = 0;
    for (int32_t e = 0; e < n; ++e) {
        if (lane_of[e] < 0 || lane_of[e] >= lanes || key_of[e] < 0 || key_of[e] >= keys)
            continue;
        const int32_t a = ++counts[lane_of[e]];
        const int32_t b = ++counts[lanes + key_of[e]];
        if (a > degree)
            degree = a;
        if (b > degree)
            degree = b;
    }
    return degree;
}

/* First colour no edge of node uses (one exists while the node's degree is below steps). */
static int32_t free_colour(const int32_t *at, int32_t node, int32_t steps)
{
    const int32_t *row = at + (int64_t)node * steps;
    for (int32_t c = 0; c < steps; ++c)
        if (row[c] < 0)
            return c;
    return -1;
}

int rt_bank_order_schedule(const int32_t *lane_of, const int32_t *key_of, int32_t n, int32_t lanes,
                           int32_t keys, int32_t steps, int32_t *step_of, int32_t *work,
                           rt_err *err)
{
    for (int32_t e = 0; e < n; ++e)
        if (lane_of[e] < 0 || lane_of[e] >= lanes || key_of[e] < 0 || key_of[e] >= keys)
            return rt_err_set(err,
                              "bank order: entry %" PRId32 " joins lane %" PRId32
                              " and key %" PRId32 ", outside %" PRId32 " lanes and %" PRId32
                              " keys",
                              e, lane_of[e], key_of[e], lanes, keys);
    /* at[node * steps + c]: the edge of colour c at node, -1 if none. Lanes are nodes
     * 0..lanes-1, keys lanes..lanes+keys-1. */
    int32_t *at = work;
    int32_t *path = work + (int64_t)(lanes + keys) * steps;
    for (int64_t i = 0; i < (int64_t)(lanes + keys) * steps; ++i)
        at[i] = -1;
    for (int32_t e = 0; e < n; ++e) {
        const int32_t u = lane_of[e], v = lanes + key_of[e];
        const int32_t alpha = free_colour(at, u, steps);
        const int32_t beta = free_colour(at, v, steps);
        if (alpha < 0 || beta < 0)
            return rt_err_set(err,
                              "bank order: %" PRId32 " steps are fewer than the slice's largest "
                              "degree (lane %" PRId32 " or key %" PRId32 " has more entries)",
                              steps, u, key_of[e]);
        if (at[(int64_t)v * steps + alpha] >= 0) {
            /* alpha is taken at v: swap alpha and beta along the path from v that alternates
             * them. In a bipartite graph the path never reaches u (it would close an odd
             * cycle), so afterwards alpha is free at both ends. A simple path has fewer edges
             * than the graph has nodes. */
            int32_t x = v, c = alpha, length = 0;
            while (at[(int64_t)x * steps + c] >= 0) {
                const int32_t f = at[(int64_t)x * steps + c];
                path[length++] = f;
                x = (x == lane_of[f]) ? lanes + key_of[f] : lane_of[f];
                c = (c == alpha) ? beta : alpha;
            }
            for (int32_t i = 0; i < length; ++i) {
                const int32_t f = path[i];
                at[(int64_t)lane_of[f] * steps + step_of[f]] = -1;
                at[(int64_t)(lanes + key_of[f]) * steps + step_of[f]] = -1;
            }
            for (int32_t i = 0; i < length; ++i) {
                const int32_t f = path[i];
                step_of[f] = (step_of[f] == alpha) ? beta : alpha;
                at[(int64_t)lane_of[f] * steps + step_of[f]] = f;
                at[(int64_t)(lanes + key_of[f]) * steps + step_of[f]] = f;
            }
        }
        step_of[e] = alpha;
        at[(int64_t)u * steps + alpha] = e;
        at[(int64_t)v * steps + alpha] = e;
    }
    return 0;
}
