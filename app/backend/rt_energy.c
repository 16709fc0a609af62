#define _POSIX_C_SOURCE 200809L
#include "rt_energy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_path.h"

static int powercap_read(double *joules, char *why, size_t whylen)
{
    const char *root = getenv("ROOFTUNE_POWERCAP");
    char path[1024];
    snprintf(path, sizeof path, "%s/intel-rapl:0/energy_uj",
             root && *root ? root : "/sys/class/powercap");
    FILE *f = fopen(path, "r");
    /* The reason is a metric's (a short buffer): a deep path keeps its end, which names the file.
     */
    int cut = 0;
    if (!f) {
        const char *what = strerror(errno);
        const size_t fixed = strlen("no CPU energy counter: : ") + strlen(what) + 1;
        const char *shown = rt_path_tail(path, whylen > fixed ? whylen - fixed : 0, &cut);
        snprintf(why, whylen, "no CPU energy counter: %s%s: %s", cut ? "..." : "", shown, what);
        return -1;
    }
    unsigned long long uj = 0;
    const int got = fscanf(f, "%llu", &uj);
    fclose(f);
    if (got != 1) {
        const size_t fixed = strlen(" does not hold a count of microjoules") + 1;
        const char *shown = rt_path_tail(path, whylen > fixed ? whylen - fixed : 0, &cut);
        snprintf(why, whylen, "%s%s does not hold a count of microjoules", cut ? "..." : "", shown);
        return -1;
    }
    *joules = (double)uj * 1e-6;
    return 0;
}

int rt_energy_read(const rt_backend *be, const char *backend, double *joules, char *why,
                   size_t whylen)
{
    if (strcmp(backend, "cpu") == 0)
        return powercap_read(joules, why, whylen);
    if (strcmp(backend, "cuda") == 0) {
        if (!be->cuda_loaded) {
            snprintf(why, whylen, "the CUDA backend is not loaded");
            return -1;
        }
        if (!be->plugin->energy) {
            snprintf(why, whylen, "the CUDA plugin reads no energy counter");
            return -1;
        }
        return be->plugin->energy(be->plugin_state, joules, why, whylen);
    }
    snprintf(why, whylen, "no energy counter for backend '%s'", backend);
    return -1;
}
