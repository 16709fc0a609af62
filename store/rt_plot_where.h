/* rt_plot_where: a figure drawn from some of an experiment's points (a config's
 * `plots[].where: {kernel: spmm.cpu.csr}`).
 *
 * Every figure type reads the table `points`. rt_plot_where_apply puts a temporary view of that
 * name in front of it (SQLite looks in the connection's temp schema first), holding only the
 * points that meet every condition, so each figure type's own queries see exactly those points;
 * rt_plot_where_clear removes it. The store file is never written (the view lives in the
 * connection's temp schema, also on a read-only store). */
#ifndef RT_PLOT_WHERE_H
#define RT_PLOT_WHERE_H

#include <stddef.h>

#include "rt_config.h"
#include "rt_error.h"

struct sqlite3;

/* Restricts `points` to experiment's points whose every where[i].field (resolved as a figure's x
 * is: a points column, a parameter or problem parameter, a metric) equals, as text, one of its
 * values. desc receives the condition as SQL, for the figure's .dat header. An unknown field is
 * an error listing the names there are; no status-ok point left is an error naming the
 * condition. */
int rt_plot_where_apply(struct sqlite3 *db, const char *experiment, const rt_plot_where *where,
                        int n_where, char *desc, size_t desc_len, rt_err *err);
/* Removes the view; harmless when there is none. */
void rt_plot_where_clear(struct sqlite3 *db);

#endif
