/* The plot keys added for the new figure types (docs/guides/config.md, plots): what the config
 * stage accepts, its defaults, and the errors (with file:line:col) for what it refuses. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_config.h"
#include "rt_test.h"

static char g_path[256];

/* Writes text to a temporary file and loads it; returns rt_config_load's status. */
static int load(const char *text, rt_config *cfg, rt_err *err)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(g_path, sizeof g_path, "%s/rt_figcfg_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    const int fd = mkstemp(g_path);
    if (fd < 0)
        return -2;
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    memset(cfg, 0, sizeof *cfg);
    const int rc = rt_config_load(g_path, NULL, 0, cfg, err);
    unlink(g_path);
    return rc;
}

static void expect_error(const char *text, const char *fragment, int line)
{
    rt_config cfg;
    rt_err err;
    rt_err_clear(&err);
    const int rc = load(text, &cfg, &err);
    RT_CHECK_MSG(rc == -1, "line %d: accepted: %s", line, text);
    if (rc == 0)
        rt_config_free(&cfg);
    RT_CHECK_MSG(rt_test_contains(err.msg, fragment), "line %d: message lacks '%s': %s", line,
                 fragment, err.msg);
}

int main(void)
{
    rt_config cfg;
    rt_err err;
    const char *good = "experiment: {name: figs}\n"
                       "plots:\n"
                       "  - {type: bars, series: kernel, baseline: spmm.cuda.cusparse}\n"
                       "  - {type: stacked, x: variant, stack: [compute_s, comm_s, wait_s]}\n"
                       "  - {type: stacked, stack: comm_s, name: one-stack}\n"
                       "  - {type: box, series: kernel}\n"
                       "  - {type: heatmap}\n"
                       "  - {type: heatmap, y: peer_bytes, name: peers}\n"
                       "  - {type: scaling, series: kernel}\n"
                       "  - {type: scaling, y: parallel_efficiency, name: eff}\n";
    RT_CHECK_MSG(load(good, &cfg, &err) == 0, "%s", err.msg);
    RT_CHECK(cfg.n_plots == 8);
    if (cfg.n_plots == 8) {
        const rt_plot_cfg *p = cfg.plots;
        RT_CHECK(strcmp(p[0].type, "bars") == 0 && strcmp(p[0].x, "matrix") == 0 &&
                 strcmp(p[0].baseline, "spmm.cuda.cusparse") == 0 && p[0].n_stack == 0);
        RT_CHECK(strcmp(p[1].type, "stacked") == 0 && p[1].n_stack == 3 &&
                 strcmp(p[1].stack[0], "compute_s") == 0 && strcmp(p[1].stack[2], "wait_s") == 0 &&
                 strcmp(p[1].x, "variant") == 0 && strcmp(p[1].y, "gflops") == 0);
        RT_CHECK(strcmp(p[1].name, "stacked-variant-gflops") == 0);
        RT_CHECK(p[2].n_stack == 1 && strcmp(p[2].stack[0], "comm_s") == 0 &&
                 strcmp(p[2].x, "matrix") == 0);
        RT_CHECK(strcmp(p[3].type, "box") == 0 && strcmp(p[3].x, "matrix") == 0);
        RT_CHECK(strcmp(p[4].type, "heatmap") == 0 && p[4].x[0] == '\0' &&
                 strcmp(p[4].y, "comm_bytes") == 0 && strcmp(p[4].name, "heatmap-comm_bytes") == 0);
        RT_CHECK(strcmp(p[5].y, "peer_bytes") == 0 && strcmp(p[5].name, "peers") == 0);
        RT_CHECK(strcmp(p[6].x, "ranks") == 0 && strcmp(p[6].y, "time_median_s") == 0 &&
                 strcmp(p[6].name, "scaling-ranks-time_median_s") == 0);
        RT_CHECK(strcmp(p[7].y, "parallel_efficiency") == 0);
        rt_config_free(&cfg);
    }
    /* --set reaches the new keys. */
    {
        const char *text = "experiment: {name: figs}\n"
                           "plots: [{type: stacked, stack: [a_s, b_s]}, {type: bars, series: k}]\n";
        const char *const sets[] = {"plots.0.stack.1=c_s", "plots.1.baseline=base"};
        const char *tmp = getenv("TMPDIR");
        snprintf(g_path, sizeof g_path, "%s/rt_figcfg_XXXXXX", tmp && *tmp ? tmp : "/tmp");
        const int fd = mkstemp(g_path);
        FILE *f = fdopen(fd, "w");
        fputs(text, f);
        fclose(f);
        const int rc = rt_config_load(g_path, sets, 2, &cfg, &err);
        unlink(g_path);
        RT_CHECK_MSG(rc == 0, "%s", err.msg);
        if (rc == 0) {
            RT_CHECK(cfg.plots[0].n_stack == 2 && strcmp(cfg.plots[0].stack[1], "c_s") == 0);
            RT_CHECK(strcmp(cfg.plots[1].baseline, "base") == 0);
            rt_config_free(&cfg);
        }
    }

    expect_error("experiment: {name: x}\nplots:\n  - {type: line, x: K, baseline: a}\n",
                 ":3:34: plots[0].baseline: only bars take a baseline", __LINE__);
    expect_error("experiment: {name: x}\nplots:\n  - {type: bars, baseline: a}\n",
                 "plots[0].baseline: a baseline names a series value", __LINE__);
    expect_error("experiment: {name: x}\nplots:\n  - {type: stacked}\n",
                 "plots[0]: a stacked figure needs 'stack'", __LINE__);
    expect_error("experiment: {name: x}\nplots:\n  - {type: bars, stack: [a]}\n",
                 "plots[0].stack: only stacked figures take a stack list", __LINE__);
    expect_error("experiment: {name: x}\nplots:\n  - {type: stacked, stack: [a, b, a]}\n",
                 "plots[0].stack[2]: 'a' is listed twice (also stack[0])", __LINE__);
    expect_error("experiment: {name: x}\nplots:\n  - {type: stacked, stack: []}\n",
                 "expected 1 to 8 values to stack, got 0", __LINE__);
    expect_error("experiment: {name: x}\nplots:\n  - {type: stacked, stack: [a, b, c, d, e, f, "
                 "g, h, i]}\n",
                 "expected 1 to 8 values to stack, got 9", __LINE__);
    expect_error("experiment: {name: x}\nplots:\n  - {type: stacked, stack: {a: 1}}\n",
                 "plots[0].stack: expected a list", __LINE__);
    expect_error("experiment: {name: x}\nplots:\n  - {type: heatmap, x: ranks}\n",
                 "plots[0].x: a heatmap has no x", __LINE__);
    expect_error("experiment: {name: x}\nplots:\n  - {type: heatmap, series: kernel}\n",
                 "plots[0].series: a heatmap has no series", __LINE__);
    expect_error("experiment: {name: x}\nplots:\n  - {type: boxes}\n",
                 "expected one of line, bars, stacked, box, heatmap, scaling, got 'boxes' (did "
                 "you mean 'box'?)",
                 __LINE__);
    expect_error("experiment: {name: x}\nplots:\n  - {type: box, stak: [a]}\n",
                 "unknown key 'stak' (did you mean 'stack'?)", __LINE__);
    expect_error("experiment: {name: x}\nplots:\n  - {type: line}\n", "missing 'x'", __LINE__);
    return RT_TEST_RESULT();
}
