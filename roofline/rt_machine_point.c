#include "rt_machine_point.h"

void rt_machine_for_point(const rt_machine *m, int device_kernel, int sends_internode, int emulated,
                          rt_machine *out, rt_machine_point_flags *flags)
{
    *out = *m;
    flags->emulated = 0;
    flags->staged = 0;
    if (emulated && out->effective.tier_gbs[RT_TIER_SOCKET] > 0) {
        for (int tier = RT_TIER_NODE; tier < RT_TIER_COUNT; ++tier) {
            out->effective.tier_gbs[tier] = out->effective.tier_gbs[RT_TIER_SOCKET];
            out->effective.tier_latency_us[tier] = out->effective.tier_latency_us[RT_TIER_SOCKET];
        }
        flags->emulated = 1;
    }
    if (device_kernel && sends_internode)
        flags->staged = rt_machine_use_staged_internode(out);
}
