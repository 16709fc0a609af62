/* rt_portability_write: the portability table (store/rt_store_portability.h) as text or
 * Markdown: first the loss of each device's tuning on each other device over every sweep both
 * measured (the geometric mean of time / own best, as a loss in %: 0% on the diagonal), then one
 * row per sweep, tuned-on and run-on device, with both times. */
#ifndef RT_PORTABILITY_WRITE_H
#define RT_PORTABILITY_WRITE_H

#include <stdio.h>

#include "rt_error.h"
#include "rt_store_portability.h"

int rt_portability_write(FILE *f, const rt_portability_row *rows, int n, int markdown, rt_err *err);

#endif
