/* rt_replay and rt_recorded: the exact random-search expectation on a space derived by hand, the
 * score of an oracle (1) and of random search (about 0), T4 written and read back unchanged,
 * duplicates refused, and every strategy replayed within its budget. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_recorded.h"
#include "rt_replay.h"
#include "rt_test.h"

static rt_recorded *line_space(int n, int with_failure)
{
    char names[64][8];
    char *values[64];
    for (int i = 0; i < n; ++i) {
        snprintf(names[i], sizeof names[i], "%d", 8 * (i + 1));
        values[i] = names[i];
    }
    rt_recorded_dim dim = {.name = "block", .n_values = n, .values = values, .numeric = 1};
    rt_recorded *r = NULL;
    rt_err err;
    if (rt_recorded_new("k", "dev", "ms", 1, &dim, &r, &err) != 0)
        return NULL;
    for (int i = 0; i < n; ++i) {
        const int64_t c = i;
        /* times 1..n in a scrambled order; the last one failed when asked */
        const double t = (with_failure && i == n - 1) ? INFINITY : (double)((i * 7) % n + 1);
        rt_recorded_add(r, &c, t, 0.5 * t, &err);
    }
    if (rt_recorded_finish(r, "line", &err) != 0) {
        rt_recorded_free(r);
        return NULL;
    }
    return r;
}

static void test_random_expectation_by_hand(void)
{
    /* times {1,2,3,4}, 2 draws: P(min = 1) = 3/6, P(2) = 2/6, P(3) = 1/6 -> E = 10/6. */
    rt_recorded *r = line_space(4, 0);
    RT_CHECK(r != NULL);
    RT_CHECK(fabs(rt_replay_random_best(r, 2) - 10.0 / 6.0) < 1e-12);
    RT_CHECK(fabs(rt_replay_random_best(r, 1) - 2.5) < 1e-12);
    RT_CHECK(fabs(rt_replay_random_best(r, 4) - 1.0) < 1e-12);
    const double oracle[3] = {1.0, 1.0, 1.0};
    rt_replay_result res;
    rt_replay_score(r, 2, oracle, 3, &res);
    RT_CHECK(fabs(res.score - 1.0) < 1e-12);
    RT_CHECK(fabs(res.frac_optimum - 1.0) < 1e-12);
    const double like_random[2] = {1.0, 14.0 / 6.0}; /* mean 10/6 */
    rt_replay_score(r, 2, like_random, 2, &res);
    RT_CHECK(fabs(res.score) < 1e-12);
    rt_recorded_free(r);
}

static void test_random_search_scores_zero(void)
{
    rt_recorded *r = line_space(60, 1);
    RT_CHECK(r != NULL);
    rt_replay_result res;
    rt_err err;
    RT_CHECK(rt_replay_run(r, "random", NULL, 10, 2000, 1, NULL, &res, &err) == 0);
    RT_CHECK_MSG(fabs(res.score) < 0.05, "random search scored %.3f", res.score);
    RT_CHECK(res.mean_evals == 10);
    rt_recorded_free(r);
}

static void test_every_strategy_within_budget(void)
{
    rt_recorded *r = line_space(60, 1);
    RT_CHECK(r != NULL);
    for (int k = 0; k < rt_strategy_count(); ++k) {
        const char *name = rt_strategy_at(k)->name;
        rt_replay_result res;
        rt_err err;
        RT_CHECK(rt_replay_run(r, name, NULL, 15, 3, 5, NULL, &res, &err) == 0);
        RT_CHECK_MSG(res.mean_evals == 15, "%s made %.1f evaluations", name, res.mean_evals);
        /* With the whole space as budget every strategy finds the optimum. */
        RT_CHECK(rt_replay_run(r, name, NULL, 60, 2, 5, NULL, &res, &err) == 0);
        RT_CHECK_MSG(res.frac_optimum == 1.0, "%s reached %.3f of the optimum", name,
                     res.frac_optimum);
    }
    rt_recorded_free(r);
}

static void test_t4_round_trip(void)
{
    rt_recorded *r = line_space(12, 1);
    RT_CHECK(r != NULL);
    char path[] = "/tmp/rt_test_t4_XXXXXX";
    const int fd = mkstemp(path);
    RT_CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    char gz[64];
    snprintf(gz, sizeof gz, "%s.json.gz", path);
    rt_err err;
    RT_CHECK(rt_recorded_write_t4(r, gz, &err) == 0);
    rt_recorded *back = NULL;
    RT_CHECK_MSG(rt_recorded_load(gz, NULL, &back, &err) == 0, "%s", err.msg);
    if (back) {
        RT_CHECK(back->n_points == r->n_points && back->n_dims == 1);
        RT_CHECK(strcmp(back->dims[0].name, "block") == 0);
        for (int64_t i = 0; i < r->n_points && i < back->n_points; ++i) {
            RT_CHECK(back->index[i] == r->index[i]);
            RT_CHECK(back->time[i] == r->time[i]);
            RT_CHECK(isfinite(r->time[i]) ? back->bound[i] == r->bound[i] : 1);
        }
        RT_CHECK(strcmp(back->unit, "ms") == 0);
    }
    rt_recorded_free(back);
    remove(gz);
    remove(path);
    rt_recorded_free(r);
}

static void test_bad_input(void)
{
    char names[2][4] = {"1", "2"};
    char *values[2] = {names[0], names[1]};
    rt_recorded_dim dim = {.name = "x", .n_values = 2, .values = values, .numeric = 1};
    rt_recorded *r = NULL;
    rt_err err;
    RT_CHECK(rt_recorded_new("k", "d", "ms", 1, &dim, &r, &err) == 0);
    const int64_t c = 1;
    rt_recorded_add(r, &c, 1.0, NAN, &err);
    rt_recorded_add(r, &c, 2.0, NAN, &err);
    RT_CHECK(rt_recorded_finish(r, "dup.json", &err) != 0);
    RT_CHECK(rt_test_contains(err.msg, "x=2 is recorded twice"));
    rt_recorded_free(r);

    const char *bad = "{\"results\": 3}";
    RT_CHECK(rt_recorded_parse_json("bad.json", bad, strlen(bad), &r, &err) != 0);
    RT_CHECK(rt_test_contains(err.msg, "bad.json"));
    const char *kt = "{\"tune_params_keys\":[\"a\"],\"tune_params\":{\"a\":[1,2]},"
                     "\"cache\":{\"3\":{\"a\":3,\"time\":1.0}}}";
    RT_CHECK(rt_recorded_parse_json("kt.json", kt, strlen(kt), &r, &err) != 0);
    RT_CHECK(rt_test_contains(err.msg, "outside tune_params"));
    const char *kt_ok = "{\"tune_params_keys\":[\"a\"],\"tune_params\":{\"a\":[1,2]},"
                        "\"cache\":{\"1\":{\"a\":1,\"time\":1.5},"
                        "\"2\":{\"a\":2,\"time\":\"CompilationFailedConfig\"}}}";
    RT_CHECK(rt_recorded_parse_json("kt.json", kt_ok, strlen(kt_ok), &r, &err) == 0);
    if (r) {
        RT_CHECK(r->n_points == 2 && r->time[0] == 1.5 && isinf(r->time[1]));
        rt_recorded_free(r);
    }
}

int main(void)
{
    test_random_expectation_by_hand();
    test_random_search_scores_zero();
    test_every_strategy_within_budget();
    test_t4_round_trip();
    test_bad_input();
    return RT_TEST_RESULT();
}
