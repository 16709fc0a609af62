#!/usr/bin/env python3
"""Where a process's CUDA start goes on a multi-GPU host, alone and beside others (issue 35, the
start of parallel tuning): per scenario, each process's libcuda load, cuInit and primary context
on device 0 of what it sees (CUDA_VISIBLE_DEVICES), and the scenario's wall time. A: one process
seeing every GPU (a serial run); B: one seeing one; C: four seeing one each (the workers of
--parallel gpus); D: C plus one seeing all (their coordinator); E: C plus one on GPU 0 alone.
usage: python3 ci/cuda-start.py   (on the GPU host; ctypes, no build needed)"""
import ctypes, os, subprocess, sys, time
if len(sys.argv) > 1 and sys.argv[1] == "one":
    t0 = time.time(); cu = ctypes.CDLL("libcuda.so.1"); t1 = time.time()
    cu.cuInit(0); t2 = time.time()
    dev = ctypes.c_int(); cu.cuDeviceGet(ctypes.byref(dev), 0)
    ctx = ctypes.c_void_p(); cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev); cu.cuCtxSetCurrent(ctx)
    free = ctypes.c_size_t(); tot = ctypes.c_size_t(); cu.cuMemGetInfo_v2(ctypes.byref(free), ctypes.byref(tot)); t3 = time.time()
    n = ctypes.c_int(); cu.cuDeviceGetCount(ctypes.byref(n))
    print("  vis=%-8s n=%d dlopen %.3f cuInit %.3f ctx %.3f total %.3f" % (os.environ.get("CUDA_VISIBLE_DEVICES", "all"), n.value, t1-t0, t2-t1, t3-t2, t3-t0), flush=True)
    sys.exit(0)
def scen(name, vis_list):
    """Starts one process per entry (None: every GPU visible) at once and waits for them all."""
    print(name, flush=True)
    t0 = time.time(); ps = []
    for v in vis_list:
        env = dict(os.environ)
        if v is not None: env["CUDA_VISIBLE_DEVICES"] = v
        else: env.pop("CUDA_VISIBLE_DEVICES", None)
        ps.append(subprocess.Popen([sys.executable, __file__, "one"], env=env))
    for p in ps: p.wait()
    print("  wall %.3f" % (time.time() - t0), flush=True)
scen("A: 1 process, all GPUs", [None])
scen("B: 1 process, GPU 0 alone", ["0"])
scen("C: 4 processes, one GPU each", ["0", "1", "2", "3"])
scen("D: 4 processes one GPU each + 1 seeing all", ["0", "1", "2", "3", None])
scen("E: 4 processes one GPU each + 1 on GPU 0 alone", ["0", "1", "2", "3", "0"])
