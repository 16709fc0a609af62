#include "rt_fuzz.h"
#include "rt_matrix.h"
#include "rt_mmio.h"

void rt_fuzz_mmio(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return;
    const char *path = rt_fuzz_write_file("m.mtx", data, size);
    if (!path)
        return;
    rt_csr m;
    rt_err err;
    /* libFuzzer counts a single allocation above its malloc limit (-rss_limit_mb=2048 in
     * CMakeLists.txt) as a crash, yet a size line declaring 10^8 rows is a valid request on a
     * 24 GiB host. The budget keeps such inputs to the refusal path the reader has for them. */
    if (rt_mmio_read_within(path, 64.0 * 1024 * 1024, &m, &err) == 0)
        rt_csr_free(&m);
}
