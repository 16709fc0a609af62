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
    if (rt_mmio_read(path, &m, &err) == 0)
        rt_csr_free(&m);
}
