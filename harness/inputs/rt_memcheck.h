/* rt_memcheck: refuses allocations that cannot possibly fit before they are attempted.
 *
 * Linux overcommits: a malloc of 100 GB on a 16 GB machine often "succeeds" and the process is
 * killed later while touching the pages. Readers and generators therefore compare the bytes a
 * declared size implies with physical memory first and turn a hopeless request into a message. */
#ifndef RT_MEMCHECK_H
#define RT_MEMCHECK_H

#include "rt_error.h"

/* Physical memory of this host in bytes (0 when it cannot be determined). */
double rt_memcheck_physical_bytes(void);
/* 0 when `bytes` fits in physical memory (or memory is unknown); otherwise fills err with
 * "<what> needs N bytes, more than the M bytes of memory on this host" and returns -1. */
int rt_memcheck_fits(double bytes, const char *what, rt_err *err);
/* The same check against the smaller of physical memory and max_bytes (ignored when 0). */
int rt_memcheck_fits_within(double bytes, double max_bytes, const char *what, rt_err *err);

#endif
