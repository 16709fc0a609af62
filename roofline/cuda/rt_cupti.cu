// rt_cupti: GPU counters of one kernel execution through the CUPTI range profiler (CUDA 12.6+ /
// 13 API: cupti_range_profiler.h for the target side, cupti_profiler_host.h for configuration
// and evaluation). Host code only; it is a .cu file because cupti_profiler_host.h is C++.
//
// The session is created and torn down per call: counters are read in passes separate from the
// timed repetitions, a handful of times per point, so the set-up cost does not matter and no
// profiler state outlives the call (CUPTI allows one range profiler per context at a time).
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cuda_roofline.h"

namespace
{

const int kMaxPasses = 128; // a metric set needing more passes than this is not worth replaying
const int kMaxNames = 64;

void cupti_text(CUptiResult rc, const char *call, char *out, size_t len)
{
    const char *msg = NULL;
    if (cuptiGetErrorMessage(rc, &msg) != CUPTI_SUCCESS || !msg)
        if (cuptiGetResultString(rc, &msg) != CUPTI_SUCCESS)
            msg = NULL;
    snprintf(out, len, "CUPTI %s: %s", call, msg ? msg : "unknown error");
}

// A failed call: why says so, and the caller returns -1.
int cupti_fail(CUptiResult rc, const char *call, char *why, size_t why_len)
{
    cupti_text(rc, call, why, why_len);
    return -1;
}

struct session {
    int initialized;
    CUpti_Profiler_Host_Object *host;
    CUpti_RangeProfiler_Object *range;
    uint8_t *availability;
    uint8_t *config;
    uint8_t *counter_data;
};

void session_end(session *s)
{
    if (s->range) {
        CUpti_RangeProfiler_Disable_Params p = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
        p.pRangeProfilerObject = s->range;
        cuptiRangeProfilerDisable(&p);
    }
    if (s->host) {
        CUpti_Profiler_Host_Deinitialize_Params p = {
            CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
        p.pHostObject = s->host;
        cuptiProfilerHostDeinitialize(&p);
    }
    if (s->initialized) {
        CUpti_Profiler_DeInitialize_Params p = {CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
        cuptiProfilerDeInitialize(&p);
    }
    free(s->availability);
    free(s->config);
    free(s->counter_data);
    memset(s, 0, sizeof *s);
}

void all_unavailable(const char *const *names, int n, const char *reason, rt_metrics *m)
{
    for (int i = 0; i < n; ++i)
        rt_metrics_unavailable(m, names[i], "raw", reason);
}

// Profiler set-up up to a host object that knows the chip; fills why and returns -1 when the
// machine cannot profile (not permitted, unsupported device, VM without profiling).
int session_begin(session *s, CUcontext ctx, int device, char *why, size_t why_len)
{
    CUptiResult rc;
    {
        CUpti_Profiler_Initialize_Params p = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
        if ((rc = cuptiProfilerInitialize(&p)) != CUPTI_SUCCESS)
            return cupti_fail(rc, "cuptiProfilerInitialize", why, why_len);
        s->initialized = 1;
    }
    const char *chip = NULL;
    {
        CUpti_Device_GetChipName_Params p = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
        p.deviceIndex = (size_t)device;
        if ((rc = cuptiDeviceGetChipName(&p)) != CUPTI_SUCCESS)
            return cupti_fail(rc, "cuptiDeviceGetChipName", why, why_len);
        chip = p.pChipName;
    }
    {
        CUpti_Profiler_GetCounterAvailability_Params p = {
            CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
        p.ctx = ctx;
        if ((rc = cuptiProfilerGetCounterAvailability(&p)) != CUPTI_SUCCESS)
            return cupti_fail(rc, "cuptiProfilerGetCounterAvailability", why, why_len);
        s->availability = (uint8_t *)malloc(p.counterAvailabilityImageSize);
        if (!s->availability) {
            snprintf(why, why_len, "out of memory for the CUPTI counter availability image");
            return -1;
        }
        p.pCounterAvailabilityImage = s->availability;
        if ((rc = cuptiProfilerGetCounterAvailability(&p)) != CUPTI_SUCCESS)
            return cupti_fail(rc, "cuptiProfilerGetCounterAvailability", why, why_len);
    }
    {
        CUpti_Profiler_Host_Initialize_Params p = {
            CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
        p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
        p.pChipName = chip;
        p.pCounterAvailabilityImage = s->availability;
        if ((rc = cuptiProfilerHostInitialize(&p)) != CUPTI_SUCCESS)
            return cupti_fail(rc, "cuptiProfilerHostInitialize", why, why_len);
        s->host = p.pHostObject;
    }
    return 0;
}

// 1 when the host object knows the metric on this chip; why says what CUPTI answered otherwise.
int metric_known(session *s, const char *name, char *why, size_t why_len)
{
    CUpti_Profiler_Host_GetMetricProperties_Params p = {
        CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
    p.pHostObject = s->host;
    p.pMetricName = name;
    const CUptiResult rc = cuptiProfilerHostGetMetricProperties(&p);
    if (rc == CUPTI_SUCCESS)
        return 1;
    char text[200];
    cupti_text(rc, "cuptiProfilerHostGetMetricProperties", text, sizeof text);
    snprintf(why, why_len, "%s (metric '%s' is not known for this GPU)", text, name);
    return 0;
}

int build_config(session *s, const char **metrics, int n, char *why, size_t why_len)
{
    CUptiResult rc;
    {
        CUpti_Profiler_Host_ConfigAddMetrics_Params p = {
            CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
        p.pHostObject = s->host;
        p.ppMetricNames = metrics;
        p.numMetrics = (size_t)n;
        if ((rc = cuptiProfilerHostConfigAddMetrics(&p)) != CUPTI_SUCCESS)
            return cupti_fail(rc, "cuptiProfilerHostConfigAddMetrics", why, why_len);
    }
    CUpti_Profiler_Host_GetConfigImageSize_Params ps = {
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    ps.pHostObject = s->host;
    if ((rc = cuptiProfilerHostGetConfigImageSize(&ps)) != CUPTI_SUCCESS)
        return cupti_fail(rc, "cuptiProfilerHostGetConfigImageSize", why, why_len);
    s->config = (uint8_t *)malloc(ps.configImageSize);
    if (!s->config) {
        snprintf(why, why_len, "out of memory for the CUPTI config image");
        return -1;
    }
    CUpti_Profiler_Host_GetConfigImage_Params pi = {
        CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    pi.pHostObject = s->host;
    pi.configImageSize = ps.configImageSize;
    pi.pConfigImage = s->config;
    if ((rc = cuptiProfilerHostGetConfigImage(&pi)) != CUPTI_SUCCESS)
        return cupti_fail(rc, "cuptiProfilerHostGetConfigImage", why, why_len);
    return (int)ps.configImageSize;
}

int enable_range(session *s, CUcontext ctx, const char **metrics, int n, int config_size, char *why,
                 size_t why_len, size_t *counter_size)
{
    CUptiResult rc;
    {
        CUpti_RangeProfiler_Enable_Params p = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
        p.ctx = ctx;
        if ((rc = cuptiRangeProfilerEnable(&p)) != CUPTI_SUCCESS)
            return cupti_fail(rc, "cuptiRangeProfilerEnable", why, why_len);
        s->range = p.pRangeProfilerObject;
    }
    CUpti_RangeProfiler_GetCounterDataSize_Params ps = {
        CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    ps.pRangeProfilerObject = s->range;
    ps.pMetricNames = metrics;
    ps.numMetrics = (size_t)n;
    ps.maxNumOfRanges = 1;
    ps.maxNumRangeTreeNodes = 1;
    if ((rc = cuptiRangeProfilerGetCounterDataSize(&ps)) != CUPTI_SUCCESS)
        return cupti_fail(rc, "cuptiRangeProfilerGetCounterDataSize", why, why_len);
    s->counter_data = (uint8_t *)malloc(ps.counterDataSize);
    if (!s->counter_data) {
        snprintf(why, why_len, "out of memory for the CUPTI counter data image");
        return -1;
    }
    *counter_size = ps.counterDataSize;
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params pi = {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    pi.pRangeProfilerObject = s->range;
    pi.counterDataSize = ps.counterDataSize;
    pi.pCounterData = s->counter_data;
    if ((rc = cuptiRangeProfilerCounterDataImageInitialize(&pi)) != CUPTI_SUCCESS)
        return cupti_fail(rc, "cuptiRangeProfilerCounterDataImageInitialize", why, why_len);
    CUpti_RangeProfiler_SetConfig_Params pc = {CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    pc.pRangeProfilerObject = s->range;
    pc.configSize = (size_t)config_size;
    pc.pConfig = s->config;
    pc.counterDataImageSize = ps.counterDataSize;
    pc.pCounterDataImage = s->counter_data;
    // One user range around the whole execution (a library call may launch several kernels) and
    // user replay: the point's run hook is called again for every pass.
    pc.range = CUPTI_UserRange;
    pc.replayMode = CUPTI_UserReplay;
    pc.maxRangesPerPass = 1;
    pc.numNestingLevels = 1;
    pc.minNestingLevel = 1;
    pc.passIndex = 0;
    pc.targetNestingLevel = 1;
    if ((rc = cuptiRangeProfilerSetConfig(&pc)) != CUPTI_SUCCESS)
        return cupti_fail(rc, "cuptiRangeProfilerSetConfig", why, why_len);
    return 0;
}

// Runs the passes. Returns 0, -1 when the kernel failed (err filled), or 1 when CUPTI failed (why
// filled).
int run_passes(session *s, const rt_kernel_desc *k, void *kernel_state, char *why, size_t why_len,
               rt_err *err)
{
    CUptiResult rc;
    for (int pass = 0; pass < kMaxPasses; ++pass) {
        CUpti_RangeProfiler_Start_Params ps = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
        ps.pRangeProfilerObject = s->range;
        if ((rc = cuptiRangeProfilerStart(&ps)) != CUPTI_SUCCESS) {
            cupti_text(rc, "cuptiRangeProfilerStart", why, why_len);
            return 1;
        }
        CUpti_RangeProfiler_PushRange_Params pp = {
            CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
        pp.pRangeProfilerObject = s->range;
        pp.pRangeName = "rooftune_point";
        if ((rc = cuptiRangeProfilerPushRange(&pp)) != CUPTI_SUCCESS) {
            cupti_text(rc, "cuptiRangeProfilerPushRange", why, why_len);
            return 1;
        }
        double seconds = -1;
        const int run_rc = k->run(kernel_state, &seconds, err);
        CUpti_RangeProfiler_PopRange_Params pq = {CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
        pq.pRangeProfilerObject = s->range;
        const CUptiResult pop_rc = cuptiRangeProfilerPopRange(&pq);
        CUpti_RangeProfiler_Stop_Params pt = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
        pt.pRangeProfilerObject = s->range;
        const CUptiResult stop_rc = cuptiRangeProfilerStop(&pt);
        if (run_rc != 0)
            return -1;
        if (pop_rc != CUPTI_SUCCESS) {
            cupti_text(pop_rc, "cuptiRangeProfilerPopRange", why, why_len);
            return 1;
        }
        if (stop_rc != CUPTI_SUCCESS) {
            cupti_text(stop_rc, "cuptiRangeProfilerStop", why, why_len);
            return 1;
        }
        if (pt.isAllPassSubmitted)
            return 0;
    }
    snprintf(why, why_len, "CUPTI needs more than %d replay passes for this metric set",
             kMaxPasses);
    return 1;
}

} // namespace

extern "C" int rt_cuda_collect_counters(void *plugin_state, const rt_kernel_desc *k,
                                        void *kernel_state, const char *const *names, int n_names,
                                        rt_metrics *m, rt_err *err)
{
    (void)plugin_state;
    if (n_names <= 0)
        return 0;
    if (!k || !k->run || !m || !names)
        return rt_err_set(err, "GPU counters: called without a kernel, names or metrics");
    if (n_names > kMaxNames)
        return rt_err_set(err, "GPU counters: %d metrics requested, at most %d per point", n_names,
                          kMaxNames);
    for (int i = 0; i < n_names; ++i)
        if (!names[i] || !names[i][0])
            return rt_err_set(err, "GPU counters: metric name %d is empty", i);

    char why[RT_ERR_MSG_MAX / 2] = "";
    CUcontext ctx = NULL;
    int device = 0;
    cudaError_t crc = cudaGetDevice(&device);
    if (crc == cudaSuccess)
        crc = cudaFree(0); // makes the device's primary context current on this thread
    if (crc != cudaSuccess || cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx) {
        snprintf(why, sizeof why, "no current CUDA context for the profiler (%s)",
                 cudaGetErrorString(crc));
        all_unavailable(names, n_names, why, m);
        return 0;
    }

    session s;
    memset(&s, 0, sizeof s);
    if (session_begin(&s, ctx, device, why, sizeof why) != 0) {
        all_unavailable(names, n_names, why, m);
        session_end(&s);
        return 0;
    }
    // Names this chip does not know are recorded one by one, so one typo does not hide the rest.
    const char *valid[kMaxNames];
    int n_valid = 0;
    for (int i = 0; i < n_names; ++i) {
        char reason[400];
        if (metric_known(&s, names[i], reason, sizeof reason))
            valid[n_valid++] = names[i];
        else
            rt_metrics_unavailable(m, names[i], "raw", reason);
    }
    if (n_valid == 0) {
        session_end(&s);
        return 0;
    }
    size_t counter_size = 0;
    const int config_size = build_config(&s, valid, n_valid, why, sizeof why);
    int rc = config_size > 0 ? enable_range(&s, ctx, valid, n_valid, config_size, why, sizeof why,
                                            &counter_size)
                             : -1;
    if (rc != 0) {
        all_unavailable(valid, n_valid, why, m);
        session_end(&s);
        return 0;
    }
    rc = run_passes(&s, k, kernel_state, why, sizeof why, err);
    if (rc < 0) {
        session_end(&s);
        return rt_err_prefix(err, "GPU counters: %s", k->name);
    }
    CUptiResult crc2 = CUPTI_SUCCESS;
    if (rc == 0) {
        CUpti_RangeProfiler_DecodeData_Params pd = {
            CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
        pd.pRangeProfilerObject = s.range;
        if ((crc2 = cuptiRangeProfilerDecodeData(&pd)) != CUPTI_SUCCESS) {
            cupti_text(crc2, "cuptiRangeProfilerDecodeData", why, sizeof why);
            rc = 1;
        }
    }
    if (rc == 0) {
        CUpti_RangeProfiler_GetCounterDataInfo_Params pi = {
            CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
        pi.pCounterDataImage = s.counter_data;
        pi.counterDataImageSize = counter_size;
        if ((crc2 = cuptiRangeProfilerGetCounterDataInfo(&pi)) != CUPTI_SUCCESS) {
            cupti_text(crc2, "cuptiRangeProfilerGetCounterDataInfo", why, sizeof why);
            rc = 1;
        } else if (pi.numTotalRanges < 1) {
            snprintf(why, sizeof why, "CUPTI recorded no range for the execution");
            rc = 1;
        }
    }
    double values[kMaxNames];
    if (rc == 0) {
        CUpti_Profiler_Host_EvaluateToGpuValues_Params pe = {
            CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
        pe.pHostObject = s.host;
        pe.pCounterDataImage = s.counter_data;
        pe.counterDataImageSize = counter_size;
        pe.rangeIndex = 0;
        pe.ppMetricNames = valid;
        pe.numMetrics = (size_t)n_valid;
        pe.pMetricValues = values;
        if ((crc2 = cuptiProfilerHostEvaluateToGpuValues(&pe)) != CUPTI_SUCCESS) {
            cupti_text(crc2, "cuptiProfilerHostEvaluateToGpuValues", why, sizeof why);
            rc = 1;
        }
    }
    if (rc == 0)
        for (int i = 0; i < n_valid; ++i)
            rt_metrics_add(m, valid[i], "raw", values[i], 0);
    else
        all_unavailable(valid, n_valid, why, m);
    session_end(&s);
    return 0;
}
