#define _POSIX_C_SOURCE 200809L
#include "rt_energy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int powercap_read(double *joules, char *why, size_t whylen)
{
    const char *root = getenv("ROOFTUNE_POWERCAP");
    char path[1024];
    snprintf(path, sizeof path, "%s/intel-rapl:0/energy_uj",
             root && *root ? root : "/sys/class/powercap");
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, whylen, "no CPU energy counter: %s: %s", path, strerror(errno));
        return -1;
    }
    unsigned long long uj = 0;
    const int got = fscanf(f, "%llu", &uj);
    fclose(f);
    if (got != 1) {
        snprintf(why, whylen, "%s does not hold a count of microjoules", path);
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
