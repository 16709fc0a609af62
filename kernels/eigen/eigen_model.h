/* eigen_model: the link projection of Fig. 4.13 of the DeepSparse thesis: the time per iteration
 * a point would take on another host-device link, from what it moved and what it computed.
 *
 * Model: one stream, so transfers and compute do not overlap:
 *   t(link) = compute_s_per_iter + (h2d + d2h bytes per iteration) / bandwidth(link),
 * with compute_s_per_iter the measured time per iteration minus the measured copy time. The links
 * are nominal per-direction figures: PCIe 3, 4, 5 x16 (16, 32, 64 GB/s) and NVLink-C2C of Grace
 * Hopper (450 GB/s). */
#ifndef EIGEN_MODEL_H
#define EIGEN_MODEL_H

#include "rt_metrics.h"

typedef struct eg_link {
    const char *name; /* metric suffix */
    double bytes_per_s;
} eg_link;

/* The links of the projection; *n receives their count. */
const eg_link *eg_model_links(int *n);

/* Projected seconds per iteration on a link of the given bandwidth. */
double eg_model_project(double compute_s_per_iter, double bytes_per_iter, double bytes_per_s);

/* Adds projected_s_per_iter_<link> for every link, plus compute_s_per_iter. */
void eg_model_add_metrics(rt_metrics *m, double compute_s_per_iter, double bytes_per_iter);

#endif
