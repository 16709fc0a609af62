#include <string.h>

#include "rt_config.h"
#include "rt_fuzz.h"
#include "test_registry.h"

static const char fragment[] = "measure: {warmup: 1, min_reps: 2}\n"
                               "matrices:\n  - {name: inc_band, generator: banded, rows: 64}\n";
static const char matrix[] = "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.0\n";

void rt_fuzz_config(const uint8_t *data, size_t size)
{
    if (size > 65536) /* configs are small; larger inputs only slow the search */
        return;
    static int ready;
    static rt_registry reg;
    if (!ready) {
        rt_err err;
        if (!rt_fuzz_write_file("inc.yaml", (const uint8_t *)fragment, strlen(fragment)) ||
            !rt_fuzz_write_file("a.mtx", (const uint8_t *)matrix, strlen(matrix)) ||
            test_registry_init(&reg, &err) != 0)
            __builtin_trap();
        ready = 1;
    }
    const char *path = rt_fuzz_write_file("main.yaml", data, size);
    if (!path)
        return;
    static const char *const sets[] = {"measure.max_reps=7"};
    rt_config cfg;
    rt_err err;
    if (rt_config_load(path, sets, (int)(size % 2), &cfg, &err) == 0) {
        rt_config_check(&cfg, &reg, &err);
        rt_config_free(&cfg);
    }
}
