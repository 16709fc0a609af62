/* libFuzzer entry: RT_FUZZ_TARGET (config, expr, mmio, store or recorded) names the harness. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_fuzz.h"

typedef void (*harness_fn)(const uint8_t *, size_t);
static harness_fn chosen;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    static const struct {
        const char *name;
        harness_fn fn;
    } harnesses[] = {{"config", rt_fuzz_config},
                     {"expr", rt_fuzz_expr},
                     {"mmio", rt_fuzz_mmio},
                     {"store", rt_fuzz_store},
                     {"recorded", rt_fuzz_recorded}};
    const char *want = getenv("RT_FUZZ_TARGET");
    for (size_t i = 0; want && i < sizeof harnesses / sizeof harnesses[0]; ++i)
        if (strcmp(want, harnesses[i].name) == 0)
            chosen = harnesses[i].fn;
    if (!chosen) {
        fprintf(stderr, "rt_fuzz: set RT_FUZZ_TARGET to config, expr, mmio, store or recorded\n");
        exit(2);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    chosen(data, size);
    return 0;
}
