/* spmm_bank_order: the colouring that orders a warp's ELL slice by shared-memory banks.
 *   - random slices (uniform, skewed to a few banks, uneven lanes, a single lane, one key) are
 *     coloured with exactly their largest degree of steps, and no lane or key has two entries in
 *     one step (König's bound, met);
 *   - fewer steps than the degree, and entries outside the graph, are refused with a message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "rt_test.h"
#include "spmm_bank_order.h"

#define LANES 32
#define KEYS  32

static uint64_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state >> 33;
}

/* Builds a slice of n entries: lane lengths up to max_len, keys from `spread` banks. */
static int32_t make_slice(uint64_t *st, int32_t *lane_of, int32_t *key_of, int max_len, int spread,
                          int lanes)
{
    int32_t n = 0;
    for (int lane = 0; lane < lanes; ++lane) {
        const int len = (int)(next_random(st) % (uint64_t)(max_len + 1));
        for (int i = 0; i < len; ++i) {
            lane_of[n] = lane;
            key_of[n] = (int32_t)(next_random(st) % (uint64_t)spread);
            ++n;
        }
    }
    return n;
}

static void check_proper(const int32_t *lane_of, const int32_t *key_of, const int32_t *step_of,
                         int32_t n, int32_t steps, const char *what)
{
    unsigned char *lane_used = calloc((size_t)LANES * (size_t)steps, 1);
    unsigned char *key_used = calloc((size_t)KEYS * (size_t)steps, 1);
    for (int32_t e = 0; e < n; ++e) {
        RT_CHECK_MSG(step_of[e] >= 0 && step_of[e] < steps, "%s: entry %d in step %d of %d", what,
                     e, step_of[e], steps);
        if (step_of[e] < 0 || step_of[e] >= steps)
            continue;
        unsigned char *l = &lane_used[lane_of[e] * steps + step_of[e]];
        unsigned char *k = &key_used[key_of[e] * steps + step_of[e]];
        RT_CHECK_MSG(!*l, "%s: lane %d has two entries in step %d", what, lane_of[e], step_of[e]);
        RT_CHECK_MSG(!*k, "%s: key %d has two entries in step %d", what, key_of[e], step_of[e]);
        *l = *k = 1;
    }
    free(lane_used);
    free(key_used);
}

static void test_random_slices(void)
{
    enum { MAX_N = LANES * 300 };
    int32_t *lane_of = malloc(MAX_N * sizeof *lane_of);
    int32_t *key_of = malloc(MAX_N * sizeof *key_of);
    int32_t *step_of = malloc(MAX_N * sizeof *step_of);
    int32_t counts[LANES + KEYS];
    uint64_t st = 12345;
    const struct {
        int max_len, spread, lanes;
    } shapes[] = {{32, 32, 32}, {64, 32, 32}, {300, 32, 32}, {40, 3, 32},
                  {8, 1, 32},   {50, 32, 1},  {1, 32, 32},   {0, 32, 32}};
    int checked = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (int rep = 0; rep < 20; ++rep) {
            const int32_t n = make_slice(&st, lane_of, key_of, shapes[s].max_len, shapes[s].spread,
                                         shapes[s].lanes);
            const int32_t degree = rt_bank_order_degree(lane_of, key_of, n, LANES, KEYS, counts);
            int32_t *work = malloc((size_t)(LANES + KEYS) * (size_t)(degree + 1) * sizeof *work);
            rt_err err;
            char what[64];
            snprintf(what, sizeof what, "shape %zu rep %d", s, rep);
            RT_CHECK_MSG(rt_bank_order_schedule(lane_of, key_of, n, LANES, KEYS, degree, step_of,
                                                work, &err) == 0,
                         "%s: %s", what, err.msg);
            check_proper(lane_of, key_of, step_of, n, degree, what);
            if (degree > 0) {
                RT_CHECK(rt_bank_order_schedule(lane_of, key_of, n, LANES, KEYS, degree - 1,
                                                step_of, work, &err) != 0);
                RT_CHECK_MSG(rt_test_contains(err.msg, "largest degree"), "%s", err.msg);
            }
            free(work);
            ++checked;
        }
    RT_CHECK(checked == 160);
    free(lane_of);
    free(key_of);
    free(step_of);
}

static void test_bad_entries(void)
{
    int32_t lane_of[2] = {0, 32}, key_of[2] = {0, 1}, step_of[2];
    int32_t work[(LANES + KEYS) * 3];
    rt_err err;
    RT_CHECK(rt_bank_order_schedule(lane_of, key_of, 2, LANES, KEYS, 2, step_of, work, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "entry 1") && rt_test_contains(err.msg, "lane 32"), "%s",
                 err.msg);
    lane_of[1] = 1;
    key_of[1] = -1;
    RT_CHECK(rt_bank_order_schedule(lane_of, key_of, 2, LANES, KEYS, 2, step_of, work, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "key -1"), "%s", err.msg);
}

int main(void)
{
    test_random_slices();
    test_bad_entries();
    return RT_TEST_RESULT();
}
