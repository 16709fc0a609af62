#include "rt_job.h"

#include <stddef.h>

rt_job rt_job_alone(void)
{
    const rt_job one = {.rank = 0, .nranks = 1};
    return one;
}

int rt_job_check(const rt_job *job, const char *owner, rt_err *err)
{
    if (!job)
        return rt_err_set(err, "%s: no job given (rank and ranks of the job measuring the point)",
                          owner);
    if (job->nranks < 1 || job->rank < 0 || job->rank >= job->nranks)
        return rt_err_set(err, "%s: rank %d of %d ranks is not a place in a job", owner, job->rank,
                          job->nranks);
    return 0;
}
