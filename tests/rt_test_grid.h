/* rt_test_grid: the search tests' space: a fake kernel `spmm.cpu.grid` with integer parameters x,
 * y and z, of sizes nx, ny and nz (nz = 0: x and y only), taking the values first, first + step,
 * ..., and one optional constraint. Link tests/rt_test_grid.c and tests/rt_fake_kernel.c. */
#ifndef RT_TEST_GRID_H
#define RT_TEST_GRID_H

#include "rt_space.h"

/* NULL (with the reason on stderr) when the space cannot be built. */
rt_space *rt_test_grid_space(int nx, int ny, int nz, int first, int step, const char *constraint);

#endif
