#include "rt_compare_types.h"

#include <math.h>
#include <string.h>

void rt_compare_opts_init(rt_compare_opts *o)
{
    memset(o, 0, sizeof *o);
    o->threshold = RT_COMPARE_DEFAULT_THRESHOLD;
    o->alpha = RT_COMPARE_DEFAULT_ALPHA;
}

int rt_compare_opts_check(const rt_compare_opts *o, rt_err *err)
{
    if (!o)
        return rt_err_set(err, "compare: no options given");
    if (!(o->threshold > 0 && o->threshold < 1))
        return rt_err_set(err,
                          "--threshold must be between 0 and 1 (a relative change, e.g. "
                          "0.05 for 5%%), got %g",
                          o->threshold);
    if (!(o->alpha > 0 && o->alpha < 1))
        return rt_err_set(err,
                          "--alpha must be between 0 and 1 (a significance level, e.g. "
                          "0.01), got %g",
                          o->alpha);
    return 0;
}

const char *rt_verdict_name(rt_verdict v)
{
    switch (v) {
    case RT_VERDICT_SAME: return "SAME";
    case RT_VERDICT_FASTER: return "FASTER";
    case RT_VERDICT_SLOWER: return "SLOWER";
    case RT_VERDICT_UNSURE: return "UNSURE";
    case RT_VERDICT_NOT_TIMED: return "NOT-TIMED";
    }
    return "?";
}
