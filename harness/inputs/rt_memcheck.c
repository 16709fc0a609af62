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
    const double phys = rt_memcheck_physical_bytes();
    if (!(bytes >= 0.0))
        return rt_err_set(err, "%s needs an invalid amount of memory", what);
    if (phys > 0.0 && bytes > phys)
        return rt_err_set(err,
                          "%s needs %.0f bytes, more than the %.0f bytes of memory on this host",
                          what, bytes, phys);
    return 0;
}
