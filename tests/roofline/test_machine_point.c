/* rt_machine_for_point (issue 13, item 5): on emulated nodes a GPU kernel's inter-node messages
 * are bounded by the staged device-buffer figure (h200-x4: 5.771 GB/s), not by the NVLink socket
 * figure that emulation copies into the node and global tiers; CPU kernels and GPU kernels with no
 * inter-node traffic keep the emulated (socket) figure, and real nodes keep the staged one. */
#include <stdio.h>

#include "rt_machine_point.h"
#include "rt_test.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_roofline_machine_point MACHINE_DIR\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/h200-x4.yaml", argv[1]);
    static rt_machine m, out;
    rt_err err;
    rt_err_clear(&err);
    if (rt_machine_load(path, &m, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    const double socket = m.effective.tier_gbs[RT_TIER_SOCKET];
    const double staged = m.staged_gbs[RT_TIER_GLOBAL];
    RT_CHECK_MSG(socket > 100 && staged > 1 && staged < 10, "socket %g, staged %g", socket, staged);
    rt_machine_point_flags f;

    /* GPU kernel, inter-node traffic, emulated nodes: the staged figure on the global tier. */
    rt_machine_for_point(&m, 1, 1, 1, &out, &f);
    RT_CHECK(f.emulated == 1 && f.staged == 1);
    RT_CHECK_MSG(out.effective.tier_gbs[RT_TIER_GLOBAL] == staged, "global %g, want staged %g",
                 out.effective.tier_gbs[RT_TIER_GLOBAL], staged);
    RT_CHECK(out.effective.tier_latency_us[RT_TIER_GLOBAL] == m.staged_latency_us[RT_TIER_GLOBAL]);
    RT_CHECK(out.effective.tier_gbs[RT_TIER_NODE] == socket);

    /* The same on real nodes. */
    rt_machine_for_point(&m, 1, 1, 0, &out, &f);
    RT_CHECK(f.emulated == 0 && f.staged == 1);
    RT_CHECK(out.effective.tier_gbs[RT_TIER_GLOBAL] == staged);

    /* A CPU kernel on emulated nodes: shared memory, the socket figure. */
    rt_machine_for_point(&m, 0, 1, 1, &out, &f);
    RT_CHECK(f.emulated == 1 && f.staged == 0);
    RT_CHECK(out.effective.tier_gbs[RT_TIER_GLOBAL] == socket);

    /* A GPU kernel without inter-node traffic: nothing staged. */
    rt_machine_for_point(&m, 1, 0, 1, &out, &f);
    RT_CHECK(f.staged == 0 && out.effective.tier_gbs[RT_TIER_GLOBAL] == socket);

    /* The input is left as it was. */
    RT_CHECK(m.effective.tier_gbs[RT_TIER_SOCKET] == socket);
    return RT_TEST_RESULT();
}
