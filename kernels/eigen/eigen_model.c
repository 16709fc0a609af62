#include "eigen_model.h"

#include <stdio.h>

static const eg_link links[] = {
    {"pcie3", 16e9},
    {"pcie4", 32e9},
    {"pcie5", 64e9},
    {"nvlink_c2c", 450e9},
};

const eg_link *eg_model_links(int *n)
{
    *n = (int)(sizeof links / sizeof links[0]);
    return links;
}

double eg_model_project(double compute_s_per_iter, double bytes_per_iter, double bytes_per_s)
{
    const double compute = compute_s_per_iter > 0.0 ? compute_s_per_iter : 0.0;
    return compute + bytes_per_iter / bytes_per_s;
}

void eg_model_add_metrics(rt_metrics *m, double compute_s_per_iter, double bytes_per_iter)
{
    rt_metrics_add(m, "compute_s_per_iter", "s", compute_s_per_iter, 0);
    for (size_t i = 0; i < sizeof links / sizeof links[0]; ++i) {
        char name[64];
        snprintf(name, sizeof name, "projected_s_per_iter_%s", links[i].name);
        rt_metrics_add(m, name, "s",
                       eg_model_project(compute_s_per_iter, bytes_per_iter, links[i].bytes_per_s),
                       0);
    }
}
