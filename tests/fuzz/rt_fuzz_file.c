#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rt_fuzz.h"

static char scratch[4096];

const char *rt_fuzz_write_file(const char *name, const uint8_t *data, size_t size)
{
    if (!scratch[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(scratch, sizeof scratch, "%s/rt-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(scratch)) {
            scratch[0] = '\0';
            return NULL;
        }
    }
    static char path[4200];
    if (snprintf(path, sizeof path, "%s/%s", scratch, name) >= (int)sizeof path)
        return NULL;
    FILE *f = fopen(path, "wb");
    if (!f)
        return NULL;
    const size_t written = size ? fwrite(data, 1, size, f) : 0;
    const int closed = fclose(f);
    return written == size && closed == 0 ? path : NULL;
}
