/* rt_store_portability: how each GPU's best configurations do on the other GPUs. The tuning
 * database (rt_store_tuning.h) holds every device's best configuration per kernel and input;
 * `rooftune portability --config` writes a config that runs all of them (app/cli), and each
 * device runs it into a store of its own. This reads those stores back: for every tuning entry
 * (the configuration tuned on device O for a kernel, matrix and problem) and every device T that
 * a store measured, its time on T against T's own best configuration's time on T, both from T's
 * store (the same run), so the loss is the price of using O's tuning on T. */
#ifndef RT_STORE_PORTABILITY_H
#define RT_STORE_PORTABILITY_H

#include "rt_error.h"

struct sqlite3;

typedef struct rt_portability_row {
    char kernel[128], matrix[128], problem[512];
    char origin[128];    /* the device whose best configuration this is */
    char target[128];    /* the device it ran on */
    char params[1024];   /* the configuration */
    double time_s;       /* its median time on target; NAN when target's store lacks it */
    char own[1024];      /* target's own best configuration */
    double own_s;        /* its time on target (NAN when unknown) */
    int own_from_tuning; /* 1: target's tuning entry; 0: the fastest configuration of the store */
} rt_portability_row;

/* The rows for the tuning database and the measured stores (each a store of the generated
 * config, any number of devices in each), ordered by kernel, matrix, problem, target, origin.
 * *rows is malloc'd (free it). A measured store with no point of a tuned kernel is an error
 * naming it. */
int rt_portability_table(struct sqlite3 *tuned, struct sqlite3 *const *measured,
                         const char *const *labels, int n_measured, rt_portability_row **rows,
                         int *n, rt_err *err);

#endif
