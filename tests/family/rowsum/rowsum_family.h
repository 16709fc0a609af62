/* rowsum_family: a family that exists only to show (and test) that a new family is one folder plus
 * one line of the family list, CUDA included. The problem: y = A 1 (the row sums of A), verified
 * against a double-precision reference; one CPU kernel and one CUDA kernel. */
#ifndef ROWSUM_FAMILY_H
#define ROWSUM_FAMILY_H

#include <stdint.h>

#include "rt_cuda_catalog.h"
#include "rt_error.h"
#include "rt_registry.h"

typedef struct rt_rowsum_inputs {
    const rt_csr *a; /* borrowed */
} rt_rowsum_inputs;

/* The family's entries in the family list. */
int rt_rowsum_register(rt_registry *reg, rt_err *err);
const rt_cuda_catalog_entry *rt_rowsum_cuda_catalog(int *n);

#endif
