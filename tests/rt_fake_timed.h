/* rt_fake_timed: a test family and a CPU kernel of it that report synthetic times instead of
 * timing themselves, so runner tests can check stopping rules, early abort and parallel workers
 * on exact, repeatable numbers (the fake kernels of rt_fake_kernel.h time a no-op instead).
 *
 *   family  "fake":            RT_FAKE_TIMED_OUT outputs, all 1.0, whatever the matrix and problem
 *   kernel  "fake.cpu.timed":  each run reports ms x 1e-3 x (1 + spread x u), u uniform in [-1, 1)
 *                              from a splitmix64 stream seeded with `seed`; parameters ms (real
 *                              > 0, default 1), spread (real in [0, 1), default 0.001) and seed
 *                              (integer, default 7); a point with ms >= 1000 fails verification
 *                              (its output is 2.0), so tests have a wrong point on demand.
 *
 * Link tests/rt_fake_timed.c into the test and register both descriptors. */
#ifndef RT_FAKE_TIMED_H
#define RT_FAKE_TIMED_H

#include "rt_registry.h"

#define RT_FAKE_TIMED_OUT 4

extern const rt_family_desc rt_fake_timed_family;
extern const rt_kernel_desc rt_fake_timed_kernel;

#endif
