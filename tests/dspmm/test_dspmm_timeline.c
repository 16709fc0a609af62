/* The phase timeline behind time_busy_*: per-phase busy time is the union of that phase's
 * intervals, the union covers all phases, and overlap = sum - union, on hand-checked cases. */
#include <math.h>

#include "dspmm_timeline.h"
#include "rt_test.h"

static int near(double a, double b)
{
    return fabs(a - b) < 1e-12;
}

/* A two-stage pipeline drawn by hand: multiply [0,2] [2,4], copies [2,3] [4,5], MPI [3,6]. */
static void test_pipeline(void)
{
    rt_err err;
    rt_err_clear(&err);
    dspmm_timeline t;
    RT_CHECK(dspmm_timeline_init(&t, 2, &err) == 0); /* grows past 2 */
    RT_CHECK(dspmm_timeline_add(&t, DSPMM_PH_MULTIPLY, 0, 2, &err) == 0);
    RT_CHECK(dspmm_timeline_add(&t, DSPMM_PH_MULTIPLY, 2, 4, &err) == 0);
    RT_CHECK(dspmm_timeline_add(&t, DSPMM_PH_D2H, 2, 3, &err) == 0);
    RT_CHECK(dspmm_timeline_add(&t, DSPMM_PH_D2H, 4, 5, &err) == 0);
    RT_CHECK(dspmm_timeline_add(&t, DSPMM_PH_MPI, 3, 6, &err) == 0);
    dspmm_busy b;
    RT_CHECK(dspmm_timeline_busy(&t, &b, &err) == 0);
    RT_CHECK(near(b.phase[DSPMM_PH_MULTIPLY], 4.0));
    RT_CHECK(near(b.phase[DSPMM_PH_D2H], 2.0));
    RT_CHECK(near(b.phase[DSPMM_PH_MPI], 3.0));
    RT_CHECK(near(b.phase[DSPMM_PH_IPC], 0.0));
    RT_CHECK(near(b.sum, 9.0));
    RT_CHECK_MSG(near(b.uni, 6.0), "union %g", b.uni);
    /* Overlap: [2,4] copies under the multiply (2 s), [3,4] MPI under the multiply (1 s),
     * [4,5] copies under MPI (1 s). */
    RT_CHECK(near(b.sum - b.uni, 3.0));
    dspmm_timeline_free(&t);
}

/* Intervals of one phase that overlap count once; a gap is not busy; serial phases give no
 * overlap; clearing forgets everything. */
static void test_union_rules(void)
{
    rt_err err;
    rt_err_clear(&err);
    dspmm_timeline t;
    RT_CHECK(dspmm_timeline_init(&t, 0, &err) == 0);
    RT_CHECK(dspmm_timeline_add(&t, DSPMM_PH_REDUCE, 5, 7, &err) == 0);
    RT_CHECK(dspmm_timeline_add(&t, DSPMM_PH_REDUCE, 1, 3, &err) == 0);
    RT_CHECK(dspmm_timeline_add(&t, DSPMM_PH_REDUCE, 2, 4, &err) == 0);
    RT_CHECK(dspmm_timeline_add(&t, DSPMM_PH_H2D, 4, 5, &err) == 0);
    dspmm_busy b;
    RT_CHECK(dspmm_timeline_busy(&t, &b, &err) == 0);
    RT_CHECK(near(b.phase[DSPMM_PH_REDUCE], 5.0)); /* [1,4] and [5,7] */
    RT_CHECK(near(b.sum, 6.0));
    RT_CHECK(near(b.uni, 6.0));
    dspmm_timeline_clear(&t);
    RT_CHECK(dspmm_timeline_busy(&t, &b, &err) == 0);
    RT_CHECK(near(b.sum, 0.0) && near(b.uni, 0.0));
    dspmm_timeline_free(&t);
}

static void test_bad_intervals(void)
{
    rt_err err;
    rt_err_clear(&err);
    dspmm_timeline t;
    RT_CHECK(dspmm_timeline_init(&t, 4, &err) == 0);
    RT_CHECK(dspmm_timeline_add(&t, DSPMM_PH_IPC, 2, 1, &err) != 0);
    RT_CHECK(rt_test_contains(err.msg, "ipc interval ends"));
    rt_err_clear(&err);
    RT_CHECK(dspmm_timeline_add(&t, (dspmm_phase)DSPMM_PH_COUNT, 0, 1, &err) != 0);
    RT_CHECK(rt_test_contains(err.msg, "out of range"));
    RT_CHECK(t.n == 0);
    RT_CHECK(rt_test_contains(dspmm_phase_name(DSPMM_PH_MULTIPLY), "multiply"));
    dspmm_timeline_free(&t);
}

int main(void)
{
    test_pipeline();
    test_union_rules();
    test_bad_intervals();
    return RT_TEST_RESULT();
}
