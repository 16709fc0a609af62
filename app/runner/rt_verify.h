/* rt_verify: the verification gate's comparison of a kernel's output with the family's reference,
 * over all ranks. Two checks, both must pass:
 *   - normwise: ||out - ref||_2 / ||ref||_2 <= tolerance (the family's, for its precision and
 *     reduction length);
 *   - elementwise, when the family gives a scale (|A||B| for a product): every element satisfies
 *     |out - ref| <= RT_VERIFY_ELEMENT_FACTOR x tolerance x scale, so one wrong element of a large
 *     output cannot hide in the norm.
 * A non-finite output element (NaN poison never overwritten, overflow) fails both.
 * The comparison (and the poison) run over the OpenMP threads; the sums are taken over fixed chunks
 * and added in order, so a result does not depend on the number of threads. */
#ifndef RT_VERIFY_H
#define RT_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"

struct rt_comm;

/* Headroom of the elementwise bound over the normwise tolerance: the tolerance is a probabilistic
 * bound on a whole output (about 5 standard deviations of the rounding error of the longest row);
 * one element among millions may sit further out, an element off by a real mistake does not. */
#define RT_VERIFY_ELEMENT_FACTOR 2.0

typedef struct rt_verify_result {
    double rel_error;    /* normwise, over all ranks; INFINITY when any element is not finite */
    double tolerance;    /* the normwise tolerance checked against */
    int elementwise;     /* 1: the elementwise check ran (the family gave a scale) */
    int64_t n_nonfinite; /* over all ranks */
    int64_t n_over;      /* elements over their elementwise bound, over all ranks */
    /* The element furthest over its bound (ratio = |out - ref| / bound), where it is and what it
     * held; worst_ratio <= 1 means every element passed. */
    double worst_ratio;
    int worst_rank;
    int64_t worst_index; /* in the rank's output order */
    double worst_out, worst_ref, worst_scale;
} rt_verify_result;

/* Compares this rank's n outputs with its reference (scale may be NULL: normwise only). Every rank
 * must call it; every rank receives the same result. Fails only when communication fails. */
int rt_verify_output(struct rt_comm *comm, const double *out, const double *ref,
                     const double *scale, int64_t n, double tolerance, rt_verify_result *r,
                     rt_err *err);

/* Fills out[0..n) with NaN before a kernel hands over its output, so an element it never writes
 * fails the check. */
void rt_verify_poison(double *out, int64_t n);

/* 1 when both checks passed. */
int rt_verify_passed(const rt_verify_result *r);

/* Why the output failed, e.g. "element 123 of rank 1 is 1.01 where the reference is 1 (|diff|
 * 0.01 over its bound 2e-05 = 2 x tolerance 1e-05 x |A||B| 1)". Numbers keep enough digits that a
 * value just over its bound never prints equal to it. */
void rt_verify_describe(const rt_verify_result *r, char *buf, size_t len);

#endif
