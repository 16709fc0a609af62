/* rt_pareto: the Pareto front of a set of points under two objectives, both minimised (time and
 * energy, time and memory): the points no other point beats in one objective without losing in
 * the other. A point that another equals or beats in both, and strictly beats in one, is
 * dominated; two points equal in both are both on the front. Points with an objective that is not
 * a finite number take no part (never on the front, never dominating). */
#ifndef RT_PARETO_H
#define RT_PARETO_H

#include "rt_error.h"

/* on_front[i] = 1 for the points on the front, 0 for the others. Returns how many are on it, or
 * -1 (out of memory). */
int rt_pareto_front(const double *a, const double *b, int n, int *on_front, rt_err *err);

#endif
