#include "rt_point_memory.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t rt_point_memory_host_available(void)
{
    const char *env = getenv("ROOFTUNE_MEMINFO");
    FILE *f = fopen(env && *env ? env : "/proc/meminfo", "r");
    if (!f)
        return -1;
    char line[256];
    int64_t kib = -1;
    while (fgets(line, sizeof line, f)) {
        long long v = 0;
        if (sscanf(line, "MemAvailable: %lld kB", &v) == 1) {
            kib = v;
            break;
        }
    }
    fclose(f);
    return kib < 0 ? -1 : kib * 1024;
}

static double gib(int64_t bytes)
{
    return (double)bytes / (1024.0 * 1024.0 * 1024.0);
}

int rt_point_memory_fits(const rt_point_memory_in *in, char *why, size_t whylen)
{
    const rt_footprint *fp = &in->fp;
    const int ranks = in->ranks_on_host > 0 ? in->ranks_on_host : 1;
    /* Host: inputs and the runner's three arrays unless they are there already; a host kernel's
     * output. Every rank of the host needs its own share at the same time. */
    const int64_t runner_bytes = 3 * fp->output_elems * (int64_t)sizeof(double);
    const int64_t per_rank = (in->inputs_resident ? 0 : fp->input_bytes + runner_bytes) +
                             (in->device_kernel ? 0 : fp->output_bytes) + fp->workspace_bytes;
    const int64_t host_need = per_rank * ranks;
    if (in->host_available > 0 && host_need > in->host_available) {
        char workspace[64] = "";
        if (fp->workspace_bytes > 0)
            snprintf(workspace, sizeof workspace, " + kernel workspace %.3g",
                     gib(fp->workspace_bytes));
        snprintf(why, whylen,
                 "needs %.3g GiB of host memory (%d rank(s) x [inputs %.3g + reference, output "
                 "and scale %.3g + kernel output %.3g%s GiB]%s), %.3g GiB available",
                 gib(host_need), ranks, gib(in->inputs_resident ? 0 : fp->input_bytes),
                 gib(in->inputs_resident ? 0 : runner_bytes),
                 gib(in->device_kernel ? 0 : fp->output_bytes), workspace,
                 in->inputs_resident ? ", inputs already built" : "", gib(in->host_available));
        return 0;
    }
    const int64_t device_need = fp->operand_bytes + fp->output_bytes;
    if (in->device_kernel && in->device_memory > 0 && device_need > in->device_memory) {
        snprintf(why, whylen,
                 "needs at least %.3g GiB of device memory (operands %.3g + output %.3g GiB, "
                 "before the kernel's own workspace), the device has %.3g GiB",
                 gib(device_need), gib(fp->operand_bytes), gib(fp->output_bytes),
                 gib(in->device_memory));
        return 0;
    }
    return 1;
}
