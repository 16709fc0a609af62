/* rt_config_plots: see rt_config_plots.h. */
#include "rt_config_plots.h"

#include <stdio.h>
#include <string.h>

static int is_type(const rt_plot_cfg *p, const char *type)
{
    return strcmp(p->type, type) == 0;
}

int rt_cfg_plot_check_x(const rt_cfg_ctx *cx, const rt_yaml_node *n, const char *path, void *item,
                        rt_err *err)
{
    (void)cx;
    if (is_type(item, "heatmap"))
        return RT_CFG_FAIL(err, n, path,
                           "a heatmap has no x (y names its metric family, "
                           "e.g. comm_bytes for comm_bytes_<i>_<j>)");
    return 0;
}

int rt_cfg_plot_check_series(const rt_cfg_ctx *cx, const rt_yaml_node *n, const char *path,
                             void *item, rt_err *err)
{
    (void)cx;
    if (is_type(item, "heatmap"))
        return RT_CFG_FAIL(err, n, path,
                           "a heatmap has no series (it draws the "
                           "matrix of one point)");
    return 0;
}

int rt_cfg_plot_check_baseline(const rt_cfg_ctx *cx, const rt_yaml_node *n, const char *path,
                               void *item, rt_err *err)
{
    (void)cx;
    const rt_plot_cfg *p = item;
    if (!is_type(p, "bars"))
        return RT_CFG_FAIL(err, n, path,
                           "only bars take a baseline (the series "
                           "value that speedups are relative to)");
    if (!p->series[0])
        return RT_CFG_FAIL(err, n, path,
                           "a baseline names a series value, so the "
                           "plot needs a series (e.g. series: kernel)");
    return 0;
}

/* One value or a list of them, bottom segment first. */
int rt_cfg_plot_read_stack(const rt_cfg_ctx *cx, const rt_yaml_node *n, const char *path,
                           void *item, rt_err *err)
{
    (void)cx;
    rt_plot_cfg *p = item;
    if (!is_type(p, "stacked"))
        return RT_CFG_FAIL(err, n, path, "only stacked figures take a stack list");
    const int one = n->kind == RT_YAML_SCALAR;
    if (!one && rt_cfg_expect_kind(n, path, RT_YAML_SEQ, err) != 0)
        return -1;
    const int count = one ? 1 : n->n;
    if (count < 1 || count > RT_PLOT_STACK_MAX)
        return RT_CFG_FAIL(err, n, path, "expected 1 to %d values to stack, got %d",
                           RT_PLOT_STACK_MAX, count);
    for (int i = 0; i < count; ++i) {
        char item_path[160];
        snprintf(item_path, sizeof item_path, "%s[%d]", path, i);
        const rt_yaml_node *v = one ? n : n->items[i];
        if (rt_cfg_read_text(v, item_path, 0, p->stack[i], sizeof p->stack[i], err) != 0)
            return -1;
        for (int j = 0; j < i; ++j)
            if (strcmp(p->stack[j], p->stack[i]) == 0)
                return RT_CFG_FAIL(err, v, item_path, "'%s' is listed twice (also stack[%d])",
                                   p->stack[i], j);
    }
    p->n_stack = count;
    return 0;
}

/* where: {FIELD: VALUE or [VALUES], ...}: the figure draws only the points that meet every
 * condition (a figure of one kernel among several in the run, say). The fields are resolved
 * against the store when the figure is drawn, as x and series are. */
int rt_cfg_plot_read_where(const rt_cfg_ctx *cx, const rt_yaml_node *n, const char *path,
                           void *item, rt_err *err)
{
    (void)cx;
    rt_plot_cfg *p = item;
    if (rt_cfg_expect_kind(n, path, RT_YAML_MAP, err) != 0)
        return -1;
    if (n->n < 1 || n->n > RT_PLOT_WHERE_MAX)
        return RT_CFG_FAIL(err, n, path, "expected 1 to %d fields to restrict, got %d",
                           RT_PLOT_WHERE_MAX, n->n);
    for (int i = 0; i < n->n; ++i) {
        rt_plot_where *w = &p->where[i];
        char field_path[128];
        snprintf(field_path, sizeof field_path, "%s.%s", path, n->keys[i]);
        if (n->keys[i][0] == '\0' || strlen(n->keys[i]) >= sizeof w->field)
            return RT_CFG_FAIL(err, n->items[i], field_path,
                               "a field name must have 1 to %zu characters", sizeof w->field - 1);
        snprintf(w->field, sizeof w->field, "%s", n->keys[i]);
        const rt_yaml_node *v = n->items[i];
        const int one = v->kind == RT_YAML_SCALAR;
        if (!one && rt_cfg_expect_kind(v, field_path, RT_YAML_SEQ, err) != 0)
            return -1;
        const int count = one ? 1 : v->n;
        if (count < 1 || count > RT_PLOT_WHERE_VALUES)
            return RT_CFG_FAIL(err, v, field_path, "expected 1 to %d values, got %d",
                               RT_PLOT_WHERE_VALUES, count);
        for (int k = 0; k < count; ++k) {
            char item_path[160];
            snprintf(item_path, sizeof item_path, "%s[%d]", field_path, k);
            if (rt_cfg_read_text(one ? v : v->items[k], item_path, 0, w->values[k],
                                 sizeof w->values[k], err) != 0)
                return -1;
        }
        w->n_values = count;
    }
    p->n_where = n->n;
    return 0;
}

/* Defaults agreed with the plot stage (docs/guides/figures.md): bars, stacked bars and box plots
 * group by matrix, scaling figures run over ranks, y is gflops (scaling: the median time;
 * heatmap: the metric family comm_bytes_<i>_<j>). A heat map draws one point's matrix, so it has
 * no x or series to group by. */
int rt_cfg_plot_finish(const rt_cfg_ctx *cx, const rt_yaml_node *n, const char *path, void *item,
                       rt_err *err)
{
    (void)cx;
    rt_plot_cfg *p = item;
    const int heatmap = is_type(p, "heatmap");
    const int scaling = is_type(p, "scaling");
    if (!p->x[0] && scaling)
        snprintf(p->x, sizeof p->x, "ranks");
    else if (!p->x[0] && !is_type(p, "line") && !heatmap)
        snprintf(p->x, sizeof p->x, "matrix");
    else if (!p->x[0] && !heatmap)
        return RT_CFG_FAIL(err, n, path,
                           "missing 'x' (the column on the horizontal axis, e.g. "
                           "row_block or K)");
    if (!p->y[0])
        snprintf(p->y, sizeof p->y, "%s",
                 scaling   ? "time_median_s"
                 : heatmap ? "comm_bytes"
                           : "gflops");
    if (is_type(p, "stacked") && p->n_stack == 0)
        return RT_CFG_FAIL(err, n, path,
                           "a stacked figure needs 'stack' (the values stacked in "
                           "each bar, e.g. [compute_s, comm_s])");
    if (!p->name[0]) {
        /* The default stem must be a valid name too: replace what the x/y columns may hold. */
        if (p->x[0])
            snprintf(p->name, sizeof p->name, "%s-%s-%s", p->type, p->x, p->y);
        else
            snprintf(p->name, sizeof p->name, "%s-%s", p->type, p->y);
        for (char *c = p->name; *c; ++c)
            if (!rt_cfg_is_name_char(*c))
                *c = '_';
    }
    return 0;
}

int rt_cfg_plot_unique(const rt_cfg_ctx *cx, const rt_yaml_node *n, const char *path, void *item,
                       rt_err *err)
{
    const rt_plot_cfg *p = item;
    const int i = (int)(p - cx->cfg->plots);
    for (int j = 0; j < i; ++j) {
        if (strcmp(cx->cfg->plots[j].name, p->name) == 0) {
            char name_path[96];
            snprintf(name_path, sizeof name_path, "%s.name", path);
            return RT_CFG_FAIL(err, n, name_path,
                               "'%s' is already the name of "
                               "plots[%d]; give each plot its own name",
                               p->name, j);
        }
    }
    return 0;
}
