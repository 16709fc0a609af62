#include "sptrsv_cuda_persist.h"

#include <cuda_runtime.h>

#define WARP      32
#define FULL_MASK 0xffffffffu

/* The GPU's nanosecond clock: timeouts and the calibration trace. */
__device__ __forceinline__ static long long now_ns()
{
    long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ static unsigned long long vload(const unsigned long long *p)
{
    return *(volatile const unsigned long long *)p;
}

/* Thread 0: waits until *ptr >= want. False when it timed out (recorded in err) or another block
 * of this GPU already failed. The sleep between polls doubles up to backoff_ns so that hundreds
 * of waiting blocks leave the memory system to the working ones. */
__device__ static bool wait_ge(const sptrsv_persist_dev &p, const unsigned long long *ptr,
                               unsigned long long want, int task, long long code, int backoff_ns)
{
    unsigned long long v = vload(ptr);
    if (v >= want)
        return true;
    const long long t0 = now_ns();
    unsigned int sleep_ns = 32;
    for (;;) {
        if (backoff_ns > 0) {
            __nanosleep(sleep_ns);
            sleep_ns = min(2 * sleep_ns, (unsigned int)backoff_ns);
        }
        v = vload(ptr);
        if (v >= want)
            return true;
        if (*(volatile long long *)p.err != 0)
            return false;
        if (now_ns() - t0 > p.timeout_ns) {
            if (atomicCAS((unsigned long long *)p.err, 0ULL, 1ULL) == 0ULL) {
                p.err[1] = task;
                p.err[2] = code;
                p.err[3] = (long long)v;
            }
            return false;
        }
    }
}

/* x_s = M (b_s - lsum_s - received partials): M = inv(L_ss) forward, inv(L_ss)^T backward
 * (lower or upper triangular, column-major). r goes through shared memory; with fewer (row, rhs)
 * items than threads the columns of M are split over threads and summed in red[]. */
__device__ static void diag_step(const sptrsv_persist_dev &p, int32_t s, double *r, double *red)
{
    const int tid = threadIdx.x, nt = blockDim.x, k = p.nrhs;
    const int32_t c0 = p.first[s], nc = p.first[s + 1] - c0;
    const int64_t base = (int64_t)c0 * k;
    const int m = nc * k;
    for (int q = tid; q < m; q += nt) {
        double v = p.b[base + q] - __ldcg(&p.lsum[base + q]);
        for (int32_t e = p.recv_ptr[s]; e < p.recv_ptr[s + 1]; ++e)
            v -= __ldcg(&p.recv[p.recv_off[e] + q]);
        r[q] = v;
        p.lsum[base + q] = 0.0; /* the next execution's sums start from zero */
    }
    __syncthreads();
    const double *M = p.inv + p.inv_off[s];
    const int ksplit = m < nt ? max(1, min(nc, nt / m)) : 1;
    const int ndst = p.xdst_ptr[s + 1] - p.xdst_ptr[s];
    for (int q0 = 0; q0 < m * ksplit; q0 += nt) {
        const int q = q0 + tid;
        double sum = 0.0;
        int item = 0;
        if (q < m * ksplit) {
            item = q % m;
            const int part = q / m, i = item % nc, j = item / nc;
            const int lo = p.backward ? i : 0, hi = p.backward ? nc : i + 1;
            for (int c = lo + part; c < hi; c += ksplit)
                sum += M[(int64_t)c * nc + i] * r[c * k + j];
        }
        if (ksplit > 1) { /* m * ksplit <= nt: one pass */
            red[tid] = sum;
            __syncthreads();
            if (tid < m) {
                sum = 0.0;
                for (int part = 0; part < ksplit; ++part)
                    sum += red[part * m + tid];
                item = tid;
            }
        }
        if ((ksplit > 1 && tid < m) || (ksplit == 1 && q < m)) {
            const int i = item % nc, j = item / nc;
            const int64_t at = base + (int64_t)i * k + j;
            p.x[at] = sum;
            if (!p.nowait)
                for (int d = 0; d < ndst; ++d)
                    p.peer_x[p.xdst[p.xdst_ptr[s] + d]][at] = sum;
        }
    }
    if (p.nowait)
        return;
    __threadfence_system(); /* every copy of x_s lands before any flag says so */
    __syncthreads();
    if (tid == 0) {
        atomicExch(&p.xflag[s], p.epoch);
        for (int d = 0; d < ndst; ++d)
            atomicExch_system(p.peer_xflag[p.xdst[p.xdst_ptr[s] + d]] + s, p.epoch);
    }
}

/* Forward: lsum(rows) += L(rows, J) x_J, x_J staged in shared memory. */
__device__ static void chunk_forward(const sptrsv_persist_dev &p, int32_t c, double *xs)
{
    const int tid = threadIdx.x, nt = blockDim.x, k = p.nrhs;
    const int32_t j = p.ch_super[c], p0 = p.ch_p0[c], p1 = p.ch_p1[c];
    const int32_t nc = p.first[j + 1] - p.first[j], ld = p.ld[j];
    const double *L = p.val + p.valstart[j];
    const int32_t *rows = p.rows + p.rowstart[j];
    const int64_t xb = (int64_t)p.first[j] * k;
    for (int q = tid; q < nc * k; q += nt)
        xs[q] = __ldcg(&p.x[xb + q]);
    __syncthreads();
    const int nr = p1 - p0, m = nr * k;
    const int ksplit = m < nt ? max(1, min(nc, nt / m)) : 1;
    for (int q = tid; q < m * ksplit; q += nt) {
        const int item = q % m, part = q / m, rr = item % nr, jj = item / nr;
        double sum = 0.0;
        for (int cc = part; cc < nc; cc += ksplit)
            sum += L[(int64_t)cc * ld + p0 + rr] * xs[cc * k + jj];
        atomicAdd(&p.lsum[(int64_t)rows[p0 + rr] * k + jj], sum);
    }
}

/* Backward: lsum(J) += L(rows, J)^T x(rows): a warp per (column, rhs), lanes over the rows. x of
 * the rows is staged in shared memory when it fits (stage >= rows x nrhs). */
__device__ static void chunk_backward(const sptrsv_persist_dev &p, int32_t c, double *xs, int stage)
{
    const int tid = threadIdx.x, nt = blockDim.x, k = p.nrhs, lane = tid % WARP;
    const int32_t j = p.ch_super[c], p0 = p.ch_p0[c], p1 = p.ch_p1[c];
    const int32_t nc = p.first[j + 1] - p.first[j], ld = p.ld[j];
    const double *L = p.val + p.valstart[j];
    const int32_t *rows = p.rows + p.rowstart[j];
    const int nr = p1 - p0;
    const bool staged = nr * k <= stage;
    if (staged) {
        for (int q = tid; q < nr * k; q += nt)
            xs[q] = __ldcg(&p.x[(int64_t)rows[p0 + q / k] * k + q % k]);
        __syncthreads();
    }
    const int64_t sb = (int64_t)p.first[j] * k;
    for (int item = tid / WARP; item < nc * k; item += nt / WARP) {
        const int cc = item % nc, jj = item / nc;
        double sum = 0.0;
        for (int rr = lane; rr < nr; rr += WARP)
            sum += L[(int64_t)cc * ld + p0 + rr] *
                   (staged ? xs[rr * k + jj] : __ldcg(&p.x[(int64_t)rows[p0 + rr] * k + jj]));
        for (int off = WARP / 2; off > 0; off /= 2)
            sum += __shfl_down_sync(FULL_MASK, sum, off);
        if (lane == 0)
            atomicAdd(&p.lsum[sb + (int64_t)cc * k + jj], sum);
    }
}

/* After a chunk: one signal per output supernode; on a part that is not its owner, the chunk
 * that completes the part's signals of s sends its partial sums of s to the owner's slot. */
__device__ static void chunk_signal(const sptrsv_persist_dev &p, int32_t c, int *send)
{
    const int tid = threadIdx.x, nt = blockDim.x, k = p.nrhs;
    __threadfence(); /* this thread's partial sums visible on the device before the counters */
    __syncthreads();
    for (int32_t o = p.ch_out_ptr[c]; o < p.ch_out_ptr[c + 1]; ++o) {
        const int32_t s = p.ch_out[o], h = p.home[s];
        if (h == p.part) {
            if (tid == 0)
                atomicAdd(&p.count[s], 1ULL);
            continue;
        }
        if (tid == 0) {
            const unsigned long long old = atomicAdd(&p.count[s], 1ULL);
            *send = old + 1 == p.epoch * (unsigned long long)p.target[s];
            __threadfence(); /* the other chunks' sums (their fences came before their adds) */
        }
        __syncthreads();
        if (*send) {
            const int64_t base = (int64_t)p.first[s] * k, slot = p.red_off[s];
            const int m = (p.first[s + 1] - p.first[s]) * k;
            double *dst = p.peer_recv[h] + slot;
            for (int q = tid; q < m; q += nt) {
                dst[q] = __ldcg(&p.lsum[base + q]);
                p.lsum[base + q] = 0.0;
            }
            __threadfence_system();
            __syncthreads();
            if (tid == 0)
                atomicAdd_system(p.peer_count[h] + s, 1ULL);
        }
        __syncthreads();
    }
}

/* The lines of the L2 a step will read (the inverse block of a DIAG, the rows of a chunk), so
 * that they travel while thread 0 waits for the step's inputs: a wait on the critical path then
 * hides the fetch of the data that follows it. Up to `budget` bytes per task. */
__device__ __forceinline__ static void prefetch_l2(const void *ptr)
{
    asm volatile("prefetch.global.L2 [%0];" ::"l"(ptr));
}

__device__ static void prefetch_task(const sptrsv_persist_dev &p, int task, int64_t budget)
{
    const int tid = threadIdx.x, nt = blockDim.x;
    for (int32_t q = p.task_step_ptr[task]; q < p.task_step_ptr[task + 1] && budget > 0; ++q) {
        const int32_t code = p.task_step[q];
        if (code >= 0) {
            const int32_t nc = p.first[code + 1] - p.first[code];
            const double *M = p.inv + p.inv_off[code];
            for (int64_t e = (int64_t)tid * 16; e < (int64_t)nc * nc; e += (int64_t)nt * 16)
                prefetch_l2(M + e); /* 16 doubles: one 128-byte line */
            budget -= (int64_t)nc * nc * 8;
            continue;
        }
        const int32_t c = -1 - code, j = p.ch_super[c], p0 = p.ch_p0[c], nr = p.ch_p1[c] - p0;
        const int32_t nc = p.first[j + 1] - p.first[j], ld = p.ld[j];
        const double *L = p.val + p.valstart[j];
        const int lines = (nr + 15) / 16;
        for (int e = tid; e < nc * lines; e += nt)
            prefetch_l2(L + (int64_t)(e / lines) * ld + p0 + (e % lines) * 16);
        budget -= (int64_t)nc * nr * 8;
    }
}

__global__ void sptrsv_persist_kernel(sptrsv_persist_dev p, int shared_doubles, int backoff_ns)
{
    extern __shared__ double dyn[];
    double *stage = dyn, *red = dyn + shared_doubles;
    __shared__ int s_ticket, s_task, s_stop, s_send;
    const int tid = threadIdx.x;
    for (;;) {
        if (tid == 0) {
            const unsigned int t = atomicAdd(p.ticket_ctr, 1u);
            s_ticket = (int)t;
            s_task = t < (unsigned int)p.ntickets ? p.ticket[t] : -1;
            s_stop = 0;
            if (s_task >= 0 && p.trace) {
                p.trace[4 * (int64_t)t] = now_ns();
                p.trace[4 * (int64_t)t + 3] = blockIdx.x;
            }
        }
        __syncthreads();
        const int task = s_task;
        if (task < 0)
            return;
        prefetch_task(p, task, 512 * 1024);
        if (tid == 0) {
            if (!p.nowait)
                for (int32_t w = p.task_wait_ptr[task]; w < p.task_wait_ptr[task + 1]; ++w) {
                    const int32_t code = p.task_wait[w];
                    const bool ok =
                        code >= 0 ? wait_ge(p, &p.xflag[code], p.epoch, task, code, backoff_ns)
                                  : wait_ge(p, &p.count[-1 - code],
                                            p.epoch * (unsigned long long)p.target[-1 - code], task,
                                            code, backoff_ns);
                    if (!ok) {
                        s_stop = 1;
                        break;
                    }
                }
            __threadfence(); /* what the flags guard is read after them */
            if (p.trace)
                p.trace[4 * (int64_t)s_ticket + 1] = now_ns();
        }
        __syncthreads();
        if (s_stop)
            return;
        for (int32_t q = p.task_step_ptr[task]; q < p.task_step_ptr[task + 1]; ++q) {
            const int32_t code = p.task_step[q];
            if (code >= 0) {
                diag_step(p, code, stage, red);
            } else {
                const int32_t c = -1 - code;
                if (p.backward)
                    chunk_backward(p, c, stage, shared_doubles);
                else
                    chunk_forward(p, c, stage);
                if (!p.nowait)
                    chunk_signal(p, c, &s_send);
            }
            __syncthreads(); /* the staging buffers are reused by the next step */
        }
        if (tid == 0 && p.trace)
            p.trace[4 * (int64_t)s_ticket + 2] = now_ns();
    }
}

extern "C" int sptrsv_cuda_persist_launch(void *stream, int blocks, int threads_per_block,
                                          int shared_doubles, const sptrsv_persist_dev *p)
{
    const size_t bytes = (size_t)(shared_doubles + threads_per_block) * sizeof(double);
    cudaError_t e = cudaFuncSetAttribute(sptrsv_persist_kernel,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    if (e != cudaSuccess)
        return (int)e;
    /* the backoff is fixed at the launcher's default for the calibration runs too */
    sptrsv_persist_kernel<<<blocks, threads_per_block, bytes, (cudaStream_t)stream>>>(
        *p, shared_doubles, 256);
    return (int)cudaGetLastError();
}

extern "C" int sptrsv_cuda_persist_reset(void *stream, unsigned int *ticket_ctr, long long *err)
{
    cudaError_t e = cudaMemsetAsync(ticket_ctr, 0, sizeof *ticket_ctr, (cudaStream_t)stream);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(err, 0, SPTRSV_PERSIST_ERR_WORDS * sizeof *err, (cudaStream_t)stream);
    return (int)e;
}

extern "C" int sptrsv_cuda_persist_occupancy(int threads_per_block, int shared_doubles,
                                             int *blocks_per_sm)
{
    const size_t bytes = (size_t)(shared_doubles + threads_per_block) * sizeof(double);
    cudaError_t e = cudaFuncSetAttribute(sptrsv_persist_kernel,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, sptrsv_persist_kernel,
                                                          threads_per_block, bytes);
    return (int)e;
}

/* The probe's wait (the whole block calls it): thread 0 polls, the block meets after. */
__device__ static void flag_wait(const unsigned long long *flag, unsigned long long want,
                                 long long timeout_ns, int round, long long *err, int *ok)
{
    if (threadIdx.x == 0) {
        const long long t0 = now_ns();
        while (vload(flag) < want)
            if (now_ns() - t0 > timeout_ns) {
                err[0] = 1;
                err[2] = round;
                *ok = 0;
                break;
            }
        __threadfence();
    }
    __syncthreads();
}

/* One block; see the header. The flags carry base + round + 1, so a stale value from an earlier
 * probe never passes for this one. */
__global__ void sptrsv_persist_pingpong_kernel(int initiator, int rounds, int doubles,
                                               unsigned long long base, double *peer_buf,
                                               unsigned long long *peer_flag, const double *my_buf,
                                               unsigned long long *my_flag, long long timeout_ns,
                                               long long *err)
{
    __shared__ int s_ok;
    const int tid = threadIdx.x;
    if (tid == 0)
        s_ok = 1;
    __syncthreads();
    for (int r = 0; r < rounds && s_ok; ++r) {
        const unsigned long long want = base + (unsigned long long)r + 1;
        if (!initiator) {
            flag_wait(my_flag, want, timeout_ns, r, err, &s_ok);
            if (!s_ok)
                break;
        }
        for (int q = tid; q < doubles; q += blockDim.x)
            peer_buf[q] = __ldcg(&my_buf[q]) + 1.0;
        __threadfence_system();
        __syncthreads();
        if (tid == 0)
            atomicExch_system(peer_flag, want);
        if (initiator) {
            flag_wait(my_flag, want, timeout_ns, r, err, &s_ok);
        }
    }
}

extern "C" int sptrsv_cuda_persist_pingpong(void *stream, int initiator, int rounds, int doubles,
                                            unsigned long long base, double *peer_buf,
                                            unsigned long long *peer_flag, const double *my_buf,
                                            unsigned long long *my_flag, long long timeout_ns,
                                            long long *err)
{
    sptrsv_persist_pingpong_kernel<<<1, 256, 0, (cudaStream_t)stream>>>(
        initiator, rounds, doubles, base, peer_buf, peer_flag, my_buf, my_flag, timeout_ns, err);
    return (int)cudaGetLastError();
}
