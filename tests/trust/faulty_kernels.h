/* Test-only kernels of the spmm family that misbehave on purpose, so the tests can prove that the
 * real runner records what they do: registered by the test programs of tests/trust only, never by
 * the rooftune binary. */
#ifndef FAULTY_KERNELS_H
#define FAULTY_KERNELS_H

#include "rt_registry.h"

/* Registers spmm.cpu.faulty_test: a plain CSR product in double that, on request, changes one
 * output element by a relative amount (from its first run, or only after some runs) and reports
 * its time divided by a factor (a kernel "too fast" for its roofline). */
int faulty_kernels_register(rt_registry *reg, rt_err *err);

#endif
