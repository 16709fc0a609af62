// rt_probe_devbuf: the device-buffer operations the MPI probe borrows from the CUDA plugin
// (rt_probe_devbuf_ops in roofline/rt_probe.h; rt_cuda_probe_devbuf_ops in rt_cuda_roofline.h).
//
// The MPI choreography (staged ping-pong and streaming, IPC handle exchange, tokens, failure
// agreement) lives on the host side, rt_probe_mpi.c; this file only does what needs the CUDA
// runtime, on the device the plugin's init made current. Every copy returns when its bytes have
// arrived: the probe times whole trips, and a pinned staging slot must be complete before MPI
// reads it. Every CUDA return code is checked and turned into an rt_err naming the call.
#include <cuda_runtime.h>

#include <stdio.h>
#include <string.h>

#include "rt_cuda_roofline.h"

extern "C" {
#include "rt_probe.h"
}

static_assert(sizeof(cudaIpcMemHandle_t) == RT_PROBE_IPC_HANDLE_BYTES,
              "RT_PROBE_IPC_HANDLE_BYTES must match cudaIpcMemHandle_t");

namespace
{

int devbuf_fail(rt_err *err, cudaError_t rc, const char *call)
{
    (void)cudaGetLastError(); // a sticky error would otherwise be reported by the next call
    return rt_err_set(err, "device-buffer probe: %s failed: %s (%s)", call, cudaGetErrorName(rc),
                      cudaGetErrorString(rc));
}

#define DEVBUF_CHECK(call)                                                                         \
    do {                                                                                           \
        const cudaError_t devbuf_rc_ = (call);                                                     \
        if (devbuf_rc_ != cudaSuccess)                                                             \
            return devbuf_fail(err, devbuf_rc_, #call);                                            \
    } while (0)

int dev_alloc(void *, size_t bytes, void **dev, rt_err *err)
{
    *dev = NULL;
    DEVBUF_CHECK(cudaMalloc(dev, bytes));
    return 0;
}

int dev_free(void *, void *dev, rt_err *err)
{
    DEVBUF_CHECK(cudaFree(dev));
    return 0;
}

int pinned_alloc(void *, size_t bytes, void **host, rt_err *err)
{
    *host = NULL;
    DEVBUF_CHECK(cudaMallocHost(host, bytes));
    return 0;
}

int pinned_free(void *, void *host, rt_err *err)
{
    DEVBUF_CHECK(cudaFreeHost(host));
    return 0;
}

// cudaMemcpy between device and pinned host memory returns when the copy is complete.
int to_host(void *, void *host, const void *dev, size_t bytes, rt_err *err)
{
    DEVBUF_CHECK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
    return 0;
}

int to_device(void *, void *dev, const void *host, size_t bytes, rt_err *err)
{
    DEVBUF_CHECK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
    return 0;
}

// A device-to-device cudaMemcpy may return before the copy ends, so the stream is synchronized:
// the MPI token that follows must not overtake the data. cudaMemcpyDefault lets unified
// addressing tell a peer process's mapping (on this GPU or another) from local memory.
int device_copy(void *, void *dst, const void *src, size_t bytes, rt_err *err)
{
    DEVBUF_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, 0));
    DEVBUF_CHECK(cudaStreamSynchronize(0));
    return 0;
}

int ipc_export(void *, void *dev, unsigned char handle[RT_PROBE_IPC_HANDLE_BYTES], rt_err *err)
{
    cudaIpcMemHandle_t h;
    DEVBUF_CHECK(cudaIpcGetMemHandle(&h, dev));
    memcpy(handle, &h, sizeof h);
    return 0;
}

// Called only with a handle another process exported (rt_probe_mpi.c exchanges them between
// the two ranks of a pair): CUDA does not allow a process to open its own handle. The two
// processes may share one GPU (a 1-GPU host); lazy peer access covers two GPUs.
int ipc_open(void *, const unsigned char handle[RT_PROBE_IPC_HANDLE_BYTES], void **mapped,
             rt_err *err)
{
    cudaIpcMemHandle_t h;
    memcpy(&h, handle, sizeof h);
    *mapped = NULL;
    DEVBUF_CHECK(cudaIpcOpenMemHandle(mapped, h, cudaIpcMemLazyEnablePeerAccess));
    return 0;
}

int ipc_close(void *, void *mapped, rt_err *err)
{
    DEVBUF_CHECK(cudaIpcCloseMemHandle(mapped));
    return 0;
}

const rt_probe_devbuf_ops kOps = {dev_alloc, dev_free,    pinned_alloc, pinned_free, to_host,
                                  to_device, device_copy, ipc_export,   ipc_open,    ipc_close};

} // namespace

extern "C" const void *rt_cuda_probe_devbuf_ops(void *plugin_state)
{
    (void)plugin_state;
    return &kOps;
}
