/* sysconf(_SC_PHYS_PAGES) is a glibc/BSD extension beyond POSIX. */
#define _DEFAULT_SOURCE 1

#include "rt_memcheck.h"

#include <unistd.h>

double rt_memcheck_physical_bytes(void)
{
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page_size <= 0)
        return 0.0;
    return (double)pages * (double)page_size;
}

int rt_memcheck_fits(double bytes, const char *what, rt_err *err)
{
    return rt_memcheck_fits_within(bytes, 0.0, what, err);
}

int rt_memcheck_fits_within(double bytes, double max_bytes, const char *what, rt_err *err)
{
    if (!(bytes >= 0.0))
        return rt_err_set(err, "%s needs an invalid amount of memory", what);
    const double phys = rt_memcheck_physical_bytes();
    if (phys > 0.0 && bytes > phys)
        return rt_err_set(err,
                          "%s needs %.0f bytes, more than the %.0f bytes of memory on this host",
                          what, bytes, phys);
    if (max_bytes > 0.0 && bytes > max_bytes)
        return rt_err_set(err, "%s needs %.0f bytes, more than the %.0f bytes allowed", what, bytes,
                          max_bytes);
    return 0;
}
