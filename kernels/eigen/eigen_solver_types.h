/* eigen_solver_types: what a solver run is asked (eg_config) and returns (eg_result), shared by
 * the solver front (eigen_solver.h) and the solvers behind it (eigen_solver_impl.h). */
#ifndef EIGEN_SOLVER_TYPES_H
#define EIGEN_SOLVER_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include <stddef.h>
#include <stdint.h>
#include "eigen_dag.h"
#include "eigen_dev.h"
#include "eigen_graph.h"
#include "eigen_mem.h"
#include "rt_error.h"
#include "rt_matrix.h"

#define EG_NEV_MAX 128

/* The solvers, and the two microbenchmark operations the family also offers (eigen_micro.h). */
typedef enum eg_solver_kind {
    EG_LOBPCG = 0,
    EG_LANCZOS = 1,
    EG_SPMM = 2,
    EG_XTY = 3
} eg_solver_kind;

/* "lobpcg", "lanczos", "spmm" or "xty"; -1 when unknown. */
int eg_solver_parse(const char *s);
const char *eg_solver_name(eg_solver_kind k);

typedef struct eg_config {
    eg_solver_kind solver;
    int64_t block; /* LOBPCG block width (8..128); Lanczos ignores it */
    int64_t nev;   /* pairs returned, <= block for LOBPCG, <= iters for Lanczos */
    int64_t iters; /* LOBPCG iterations, or Lanczos steps */
    int64_t tile;  /* rows per tile */
    uint64_t seed;
    eg_schedule sched;
    size_t budget; /* device pool bytes; 0: in-core (room for every tile) */
} eg_config;

typedef struct eg_result {
    int64_t nev;
    double ritz[EG_NEV_MAX];
    double rel_res[EG_NEV_MAX];
    double max_rel_res;
    eg_mem_stats st;
    int64_t tasks;        /* tasks executed in the run */
    int64_t iterations;   /* task graphs run (one per iteration) */
    eg_graph_stats graph; /* the graph schedule's segments, captures and launches (else zeros) */
} eg_result;

typedef struct eg_solver eg_solver;

#endif
