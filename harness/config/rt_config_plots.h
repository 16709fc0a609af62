/* rt_config_plots: what the key table (rt_config_keys.c) cannot say about a figure of `plots:`
 * with a kind alone: the rules between its keys (a heatmap has no x or series, only bars take a
 * baseline and only with a series, a stacked figure needs a stack), the defaults that depend on
 * its type (x, y, the file stem), and the two keys with a shape of their own (stack: a value or
 * a list; where: a map of fields to values). Hooks of the table (rt_key_hook's signature): n is
 * the key's node, path its name in messages, item the rt_plot_cfg. */
#ifndef RT_CONFIG_PLOTS_H
#define RT_CONFIG_PLOTS_H

#include "rt_config_read.h"

int rt_cfg_plot_check_x(const rt_cfg_ctx *cx, const rt_yaml_node *n, const char *path, void *item,
                        rt_err *err);
int rt_cfg_plot_check_series(const rt_cfg_ctx *cx, const rt_yaml_node *n, const char *path,
                             void *item, rt_err *err);
int rt_cfg_plot_check_baseline(const rt_cfg_ctx *cx, const rt_yaml_node *n, const char *path,
                               void *item, rt_err *err);
int rt_cfg_plot_read_stack(const rt_cfg_ctx *cx, const rt_yaml_node *n, const char *path,
                           void *item, rt_err *err);
int rt_cfg_plot_read_where(const rt_cfg_ctx *cx, const rt_yaml_node *n, const char *path,
                           void *item, rt_err *err);
/* After a figure's keys: x, y and name defaults by type; a line without x, a stacked figure
 * without a stack are errors. n is the figure's map. */
int rt_cfg_plot_finish(const rt_cfg_ctx *cx, const rt_yaml_node *n, const char *path, void *item,
                       rt_err *err);
/* Names are file stems: each figure's must differ from those before it in cx->cfg->plots. */
int rt_cfg_plot_unique(const rt_cfg_ctx *cx, const rt_yaml_node *n, const char *path, void *item,
                       rt_err *err);

#endif
